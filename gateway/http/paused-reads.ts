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
 *   also re-arms uWS's idle timer (10 s, firing in 4 s steps, so after 8 s at the earliest), which
 *   would close the connection of an answer slower than that with no word to the client. So an
 *   answer still pending `maxAnswerMs` after its pause is given for it: the client's 503 with
 *   Retry-After (`answerLate`), and the late answer is dropped. Only answers slower than
 *   `maxPausedMs` are watched for this, on a list of their own.
 */
import { strict as assert } from "node:assert";
import type { LoopTurn } from "./loop-turn.js";

/** What pausing needs from an exchange (exchange.ts implements it). */
export interface PausableReads {
  /** Still waiting for its answer. */
  readonly open: boolean;
  /** PausedReads's own fields, kept on the exchange: when its reads were paused (`performance.now()`), and where it is in the list of paused ones (NOT_PAUSED when not paused). */
  pausedAtMs: number;
  pausedIndex: number;
  pauseReading(): void;
  resumeReading(): void;
  /** Its answer is still pending `deadlineMs` after its pause: tell the client it may retry. */
  answerLate(deadlineMs: number): void;
}

export const NOT_PAUSED = -1;

/**
 * The paused exchanges are a plain list, each knowing its index: pausing appends, answering moves
 * the last one into its place. So an answered exchange is let go at once (a claim's objects are not
 * kept alive past its answer, where the garbage collector would have to copy them) and neither costs
 * a hash-table write. The timer waits for the oldest pause's deadline; a sweep scans the list, which
 * holds no more than the requests waiting for answers.
 */
export class PausedReads {
  private candidates: PausableReads[] = [];
  private readonly paused: PausableReads[] = [];
  private timer: NodeJS.Timeout | undefined;
  /**
   * Resumed with their answers still pending, oldest pause first (each sweep's are sorted, and are
   * younger than every earlier sweep's), from `slowHead` on: each is answered late at its pause +
   * `maxAnswerMs`, if still pending then. A queue, so a stall that leaves thousands pending costs
   * each of them one visit.
   */
  private slow: PausableReads[] = [];
  private slowHead = 0;
  private slowTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly turn: LoopTurn,
    private readonly maxPausedMs: number,
    private readonly maxAnswerMs: number,
  ) {
    assert(maxAnswerMs > maxPausedMs, "an answer's deadline comes after its longest pause");
  }

  /** The request is complete and its answer pending: pause its reads at the end of this turn. */
  pauseAtTurnEnd(exchange: PausableReads): void {
    if (this.candidates.length === 0) this.turn.atEnd(this.pauseStillPending);
    this.candidates.push(exchange);
  }

  /** The exchange answered or went away: forget it (it resumed itself if needed). */
  forget(exchange: PausableReads): void {
    const index = exchange.pausedIndex;
    if (index === NOT_PAUSED) return;
    exchange.pausedIndex = NOT_PAUSED;
    const last = this.paused.pop() as PausableReads;
    if (last !== exchange) {
      this.paused[index] = last;
      last.pausedIndex = index;
    }
  }

  get size(): number {
    return this.paused.length;
  }

  private readonly pauseStillPending = (): void => {
    const candidates = this.candidates;
    this.candidates = [];
    const now = performance.now();
    for (const exchange of candidates) {
      if (!exchange.open || exchange.pausedIndex !== NOT_PAUSED) continue;
      exchange.pauseReading();
      exchange.pausedAtMs = now;
      exchange.pausedIndex = this.paused.length;
      this.paused.push(exchange);
    }
    // Those just paused are the youngest: a timer already set waits for an older deadline.
    if (this.timer === undefined && this.paused.length > 0) this.armAt(now + this.maxPausedMs);
  };

  private armAt(deadlineMs: number): void {
    this.timer = setTimeout(this.sweep, Math.max(0, deadlineMs - performance.now()));
    this.timer.unref();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    const cutoff = performance.now() - this.maxPausedMs;
    let oldestLeftMs = Number.POSITIVE_INFINITY;
    const resumed: PausableReads[] = [];
    // Backwards: forgetting moves the last one into the slot being left, which was visited already.
    for (let i = this.paused.length - 1; i >= 0; i--) {
      const exchange = this.paused[i] as PausableReads;
      if (exchange.pausedAtMs > cutoff) {
        oldestLeftMs = Math.min(oldestLeftMs, exchange.pausedAtMs);
        continue;
      }
      this.forget(exchange);
      if (!exchange.open) continue;
      exchange.resumeReading();
      resumed.push(exchange);
    }
    if (oldestLeftMs !== Number.POSITIVE_INFINITY) this.armAt(oldestLeftMs + this.maxPausedMs);
    if (resumed.length === 0) return;
    // Paused after the previous sweep's cutoff, so after everything on the queue already.
    resumed.sort((a, b) => a.pausedAtMs - b.pausedAtMs);
    for (const exchange of resumed) this.slow.push(exchange);
    if (this.slowTimer === undefined) this.armSlow();
  };

  /** Drops the answered exchanges at the head of the queue, then waits for the head's deadline. */
  private armSlow(): void {
    while (this.slowHead < this.slow.length && !(this.slow[this.slowHead] as PausableReads).open) this.slowHead++;
    if (this.slowHead === this.slow.length) {
      this.slow = [];
      this.slowHead = 0;
      return;
    }
    // Let go of those visited already (the queue lives on through a long stall).
    if (this.slowHead >= 1024 && 2 * this.slowHead >= this.slow.length) {
      this.slow = this.slow.slice(this.slowHead);
      this.slowHead = 0;
    }
    const oldestMs = (this.slow[this.slowHead] as PausableReads).pausedAtMs;
    this.slowTimer = setTimeout(this.answerSlow, Math.max(0, oldestMs + this.maxAnswerMs - performance.now()));
    this.slowTimer.unref();
  }

  private readonly answerSlow = (): void => {
    this.slowTimer = undefined;
    const cutoff = performance.now() - this.maxAnswerMs;
    while (this.slowHead < this.slow.length) {
      const exchange = this.slow[this.slowHead] as PausableReads;
      if (exchange.open && exchange.pausedAtMs > cutoff) break;
      this.slowHead++;
      if (exchange.open) exchange.answerLate(this.maxAnswerMs);
    }
    this.armSlow();
  };
}
