/**
 * What happened in a seed, one line per event: simulated time, who, what. The whole trace is hashed
 * as it grows (a seed's identity: the same seed must give the same hash), and its last lines are kept
 * for the report of a failure; a replay of one seed (`--seed S`) keeps and prints every line.
 */
import { createHash, type Hash } from "node:crypto";

/** Lines kept for a failure's report when the trace is not kept whole. */
const KEPT_LINES = 300;

export class Trace {
  private readonly hash: Hash = createHash("sha256");
  private readonly lines: string[] = [];
  private count = 0;

  constructor(
    private readonly clock: () => number,
    /** Keep every line (a replay), not only the last few. */
    private readonly whole: boolean,
    /** Also print each line as it happens. */
    private readonly echo: ((line: string) => void) | undefined = undefined,
  ) {}

  add(who: string, what: string): void {
    const line = `${(this.clock() / 1000).toFixed(3).padStart(8)}s ${who.padEnd(9)} ${what}`;
    this.hash.update(line);
    this.hash.update("\n");
    this.count += 1;
    this.lines.push(line);
    if (!this.whole && this.lines.length > KEPT_LINES * 2) this.lines.splice(0, this.lines.length - KEPT_LINES);
    this.echo?.(line);
  }

  get lineCount(): number {
    return this.count;
  }

  /** The trace's hash so far (hex). */
  digest(): string {
    return this.hash.copy().digest("hex");
  }

  /** The last `count` lines kept (every line kept, for a whole trace). */
  tail(count: number = KEPT_LINES): string[] {
    return this.lines.slice(-count);
  }
}
