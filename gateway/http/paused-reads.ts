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
  pauseReading(): void;
  resumeReading(): void;
}

export class PausedReads {
  private candidates: PausableReads[] = [];
  /** Paused exchanges with the time they were paused; insertion order is age order. */
  private readonly paused = new Map<PausableReads, number>();
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
    this.paused.delete(exchange);
  }

  get size(): number {
    return this.paused.size;
  }

  private readonly pauseStillPending = (): void => {
    const candidates = this.candidates;
    this.candidates = [];
    const now = performance.now();
    for (const exchange of candidates) {
      if (!exchange.open) continue;
      exchange.pauseReading();
      this.paused.set(exchange, now);
    }
    this.arm();
  };

  private arm(): void {
    if (this.timer !== undefined) return;
    const oldest = this.paused.values().next();
    if (oldest.done === true) return;
    const waitMs = Math.max(0, oldest.value + this.maxPausedMs - performance.now());
    this.timer = setTimeout(this.sweep, waitMs);
    this.timer.unref();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    const cutoff = performance.now() - this.maxPausedMs;
    for (const [exchange, pausedAt] of this.paused) {
      if (pausedAt > cutoff) break;
      this.paused.delete(exchange);
      if (exchange.open) exchange.resumeReading();
    }
    this.arm();
  };
}
