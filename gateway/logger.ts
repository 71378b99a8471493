/**
 * Structured JSON logs (pino), one object per line on stdout. Callers pass only fields they chose:
 * never tokens, secrets, private keys or open bid amounts (a test greps the log of a full lifecycle
 * for them); the redaction paths below are a second line of defence, not the first.
 */
import { pino, type Logger } from "pino";
import type { LogFn } from "./http/log.js";
import type { LogLevelSetting } from "./config.js";

const REDACTED_PATHS = [
  "authorization",
  "*.authorization",
  "token",
  "*.token",
  "accessToken",
  "*.accessToken",
  "secret",
  "*.secret",
  "privateKey",
  "*.privateKey",
  "signature",
  "*.signature",
  "nonce",
  "*.nonce",
  "amountMinor",
  "*.amountMinor",
];

export function createPinoLogger(level: LogLevelSetting, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "market-service" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

/** The LogFn the HTTP layer and the service use, on top of pino. */
export function logFnOf(logger: Logger): LogFn {
  return (level, message, fields) => logger[level](fields, message);
}

export function createLogger(level: LogLevelSetting, destination?: pino.DestinationStream): LogFn {
  return logFnOf(createPinoLogger(level, destination));
}
