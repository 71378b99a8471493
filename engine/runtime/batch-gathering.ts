/**
 * A partition's next batch waits a moment for company (cluster mode, decision I69; docs/cluster.md,
 * "Batches that wait for company").
 *
 * On a stream every append is one replicated, fsynced write, and what it costs the NATS servers
 * hardly depends on how many commands it holds; under a storm the servers' share of that cost is
 * most of what a claim costs. A shard's group commit takes whatever arrived while its previous
 * append was in flight; waiting a little longer lets more claims share the next write. So, after a
 * batch that appended at least two commands (others are arriving: a lone client's requests, one at a
 * time, never wait; nor does a batch after one of reads alone, which wrote nothing), the next batch
 * leaves `lingerMs` after the previous append returned, or as soon as it holds
 * `GATHER_UP_TO_REQUESTS` requests, whichever comes first. A batch that starts later than that (the
 * partition was idle) leaves at once. The embedded default has no gathering: an fsync of a local
 * file costs little, and its hot path is guarded against a pinned reference.
 *
 * A node's bind messages to a key home wait the same way (engine/cluster/forwarding.ts, decision
 * I70): there a "batch" is one bind message and "committed" its answer.
 *
 * Time is the injected timers' (engine/timers.ts), so the simulation runs the same waits.
 */
import { strict as assert } from "node:assert";
import type { TimerHandle, Timers } from "../timers.js";

/** A batch holding this many requests leaves without waiting (the group commit's measured shape: 64 entries). */
export const GATHER_UP_TO_REQUESTS = 64;

/** The longest wait a setting may ask for: a bound on what a claim can be held for company. */
export const MAX_LINGER_MS = 100;

export class BatchGathering {
  /** Commands in the batch committed last. */
  private lastBatchCommands = 0;
  /** When the previous append returned, by the timers' clock. */
  private lastCommittedAtMs = Number.NEGATIVE_INFINITY;
  /** The batch being held, released by its timer or by enough arrivals. */
  private held: { release(): void; timer: TimerHandle } | undefined;

  constructor(
    private readonly timers: Timers,
    private readonly lingerMs: number,
  ) {
    assert(Number.isSafeInteger(lingerMs) && lingerMs > 0 && lingerMs <= MAX_LINGER_MS, `a batch's wait for company must be 1 to ${MAX_LINGER_MS} ms, got ${lingerMs}`);
  }

  /**
   * Whether the batch of `queuedRequests` waits before it leaves: a promise that settles when it
   * may go, or undefined when it goes at once (no extra turn for the caller).
   */
  wait(queuedRequests: number): Promise<void> | undefined {
    assert(this.held === undefined, "one batch is gathered at a time");
    if (this.lastBatchCommands < 2 || queuedRequests >= GATHER_UP_TO_REQUESTS) return undefined;
    const waitMs = this.lastCommittedAtMs + this.lingerMs - this.timers.nowMs();
    if (waitMs <= 0) return undefined;
    return new Promise((resolve) => {
      const timer = this.timers.after(waitMs, () => this.release());
      this.held = { release: resolve, timer };
    });
  }

  /** Requests arrived: a held batch that now holds enough leaves. */
  arrived(queuedRequests: number): void {
    if (this.held !== undefined && queuedRequests >= GATHER_UP_TO_REQUESTS) this.release();
  }

  /** A batch was committed now, with `commands` commands appended (a batch of reads alone appends none, and brings no company). */
  committed(commands: number): void {
    this.lastBatchCommands = commands;
    this.lastCommittedAtMs = this.timers.nowMs();
  }

  /** Lets the batch being held, if any, leave now (forwarding.ts: its messages' subject was abandoned). */
  release(): void {
    const held = this.held;
    this.held = undefined;
    held?.timer.cancel();
    held?.release();
  }
}
