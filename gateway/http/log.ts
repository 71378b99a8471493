/**
 * Logging is injected: library code never writes to the console, so the process owner decides the
 * format and destination (and tests can assert on what was logged).
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Readonly<Record<string, unknown>>;
export type LogFn = (level: LogLevel, message: string, fields: LogFields) => void;

/**
 * Calls the injected logger from inside uWS callbacks. A logger that throws must not turn into a
 * throw inside a uWS handler (that aborts the process), so its failure is swallowed: losing one log
 * line is better than losing the process.
 */
export function safeLog(log: LogFn, level: LogLevel, message: string, fields: LogFields): void {
  try {
    log(level, message, fields);
  } catch {
    // Deliberately ignored; see above.
  }
}

/** A loggable description of anything thrown (stack for errors, a bounded string otherwise). */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.stack ?? `${thrown.name}: ${thrown.message}`;
  try {
    return String(thrown).slice(0, 1000);
  } catch {
    return "(unprintable value)";
  }
}
