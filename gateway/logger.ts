/**
 * One JSON object per line on stdout. Callers pass only fields they chose: never tokens, secrets,
 * private keys or open bid amounts (a test greps the log of a full lifecycle for them).
 */
import type { LogFn, LogLevel } from "./http/log.js";
import type { LogLevelSetting } from "./config.js";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(level: LogLevelSetting, write: (line: string) => void = (line) => process.stdout.write(line)): LogFn {
  const threshold = level === "silent" ? Number.POSITIVE_INFINITY : RANK[level];
  return (messageLevel, message, fields) => {
    if (RANK[messageLevel] < threshold) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: messageLevel, msg: message, ...fields })}\n`);
  };
}
