/**
 * Reading paused while an answer is pending, so that pipelined requests survive.
 *
 * uWS closes a connection when it parses a request while the previous answer on it is still pending
 * (docs/http.md, "HTTP/1.1 at the edge"). Pausing the socket once the request is complete stops uWS
 * from reading the next request before the answer is written; the answer resumes it in the same
 * cork. Requests that arrived in the same read as the pending one are already being parsed and are
 * lost regardless: that part is inherent to this uWS build.
 *
 * - The pause is applied at the end of the turn (loop-turn.ts), and only if the answer is still
 *   pending then: an answer that comes within the same parse (microtask-resolved handlers) costs no
 *   pause/resume, and no later read can be parsed before the turn ends.
 * - Never before the body is complete: a paused socket reads nothing, so the body would never come.
 * - A paused socket sees nothing, not even a client that left: uWS stops polling it. So a pause lasts
 *   at most `maxPausedMs`; then reading resumes (a client that left is noticed, `onAborted` fires),
 *   and a pipelined request that arrives after that point closes the connection as before. Resuming
 *   also re-arms uWS's idle timer (10 s): an answer slower than `maxPausedMs` plus that loses its
 *   connection.
 */
import type { LoopTurn } from "./loop-turn.js";

/** What pausing needs from an exchange (exchange.ts implements it). */
export interface PausableReads {
  /** Still waiting for its answer. */
  readonly open: boolean;
  /** When its reads were paused (`performance.now()`), or NOT_PAUSED: PausedReads's own field, kept on the exchange. */
  pausedAtMs: number;
  pauseReading(): void;
  resumeReading(): void;
}

export const NOT_PAUSED = -1;

/**
 * Paused exchanges wait in a queue in the order they were paused (so by age), each holding the time
 * it was paused; one that answered (`forget`) is marked NOT_PAUSED where it stands and dropped when
 * the sweep reaches it. So pausing and answering cost a field write each, no map of exchanges.
 */
export class PausedReads {
  private candidates: PausableReads[] = [];
  private queue: PausableReads[] = [];
  /** Queue entries before this one were swept. */
  private head = 0;
  private pausedCount = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly turn: LoopTurn,
    private readonly maxPausedMs: number,
  ) {}

  /** The request is complete and its answer pending: pause its reads at the end of this turn. */
  pauseAtTurnEnd(exchange: PausableReads): void {
    if (this.candidates.length === 0) this.turn.atEnd(this.pauseStillPending);
    this.candidates.push(exchange);
  }

  /** The exchange answered or went away: forget it (it resumed itself if needed). */
  forget(exchange: PausableReads): void {
    if (exchange.pausedAtMs === NOT_PAUSED) return;
    exchange.pausedAtMs = NOT_PAUSED;
    this.pausedCount -= 1;
  }

  get size(): number {
    return this.pausedCount;
  }

  private readonly pauseStillPending = (): void => {
    const candidates = this.candidates;
    this.candidates = [];
    const now = performance.now();
    for (const exchange of candidates) {
      if (!exchange.open || exchange.pausedAtMs !== NOT_PAUSED) continue;
      exchange.pauseReading();
      exchange.pausedAtMs = now;
      this.pausedCount += 1;
      this.queue.push(exchange);
    }
    this.arm();
  };

  /** Drops answered exchanges from the front; the timer waits for the oldest one still paused. */
  private arm(): void {
    if (this.timer !== undefined) return;
    const queue = this.queue;
    while (this.head < queue.length && (queue[this.head] as PausableReads).pausedAtMs === NOT_PAUSED) this.head += 1;
    if (this.head === queue.length) {
      this.queue = [];
      this.head = 0;
      return;
    }
    const oldest = queue[this.head] as PausableReads;
    const waitMs = Math.max(0, oldest.pausedAtMs + this.maxPausedMs - performance.now());
    this.timer = setTimeout(this.sweep, waitMs);
    this.timer.unref();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    const cutoff = performance.now() - this.maxPausedMs;
    const queue = this.queue;
    while (this.head < queue.length) {
      const exchange = queue[this.head] as PausableReads;
      if (exchange.pausedAtMs > cutoff) break;
      this.head += 1;
      if (exchange.pausedAtMs === NOT_PAUSED) continue;
      this.forget(exchange);
      if (exchange.open) exchange.resumeReading();
    }
    if (this.head > 0 && this.head * 2 >= queue.length) {
      this.queue = queue.slice(this.head);
      this.head = 0;
    }
    this.arm();
  };
}
