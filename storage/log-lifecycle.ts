/**
 * The log's lifecycle: open → failed → closed. A failed write or flush fails the log for good (see
 * LogFailedError for why it is never retried): every later append or commit refuses, while reads
 * of durable frames and `close()` still work. Closing is allowed from either state and is final.
 */
import { LogClosedError, LogFailedError, describeCause } from "./errors.js";

type LogState = "open" | "failed" | "closed";

export class LogLifecycle {
  private state: LogState = "open";
  private failureCause: unknown = null;

  constructor(private readonly dir: string) {}

  get failed(): boolean {
    return this.state === "failed";
  }

  get closed(): boolean {
    return this.state === "closed";
  }

  /** The error that put the log into the failed state, if any (kept after close). */
  get failure(): unknown {
    return this.failureCause;
  }

  /** A write or flush failed with `cause`: no write is accepted from now on. */
  fail(cause: unknown): void {
    this.state = "failed";
    this.failureCause = cause;
  }

  /** Moves to closed; false when the log was closed already (closing twice does nothing). */
  close(): boolean {
    if (this.state === "closed") return false;
    this.state = "closed";
    return true;
  }

  assertWritable(): void {
    if (this.state === "closed") throw new LogClosedError(`log ${this.dir} is closed`);
    if (this.state === "failed") {
      throw new LogFailedError(`log ${this.dir} failed earlier and accepts no more writes: ${describeCause(this.failureCause)}`, { cause: this.failureCause });
    }
  }

  assertReadable(): void {
    if (this.state === "closed") throw new LogClosedError(`log ${this.dir} is closed`);
  }
}
