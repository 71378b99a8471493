/**
 * PausedReads's bookkeeping (gateway/http/paused-reads.ts) on its own, with fake exchanges and fake
 * time: pauses at the end of the turn only what is still pending, forgets what answered, resumes
 * what stayed paused past maxPausedMs (oldest first, each once), counts what is paused, and answers
 * late (503) what is still pending maxAnswerMs after its pause.
 * test/http/pipelining.test.ts covers the same on real uWS connections.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LoopTurn } from "../../gateway/http/loop-turn.js";
import { NOT_PAUSED, PausedReads, type PausableReads } from "../../gateway/http/paused-reads.js";

const MAX_PAUSED_MS = 1_000;
const MAX_ANSWER_MS = 8_000;

class FakeExchange implements PausableReads {
  open = true;
  pausedAtMs = NOT_PAUSED;
  pausedIndex = NOT_PAUSED;
  pauses = 0;
  resumes = 0;
  constructor(private readonly reads: PausedReads) {}
  pauseReading(): void {
    this.pauses += 1;
  }
  resumeReading(): void {
    this.resumes += 1;
    this.reads.forget(this);
  }
  /** The answer is written: as exchange.ts does, resume (which forgets it) if it was paused. */
  answer(): void {
    this.open = false;
    if (this.pauses > this.resumes) this.resumeReading();
  }
  /** The deadlines it was answered late at (exchange.ts writes the 503, which answers it). */
  readonly lateAnswers: number[] = [];
  answerLate(deadlineMs: number): void {
    this.lateAnswers.push(deadlineMs);
    this.answer();
  }
}

describe("PausedReads", () => {
  let turn: LoopTurn;
  let reads: PausedReads;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] });
    turn = new LoopTurn((error) => {
      throw error;
    });
    reads = new PausedReads(turn, MAX_PAUSED_MS, MAX_ANSWER_MS);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  const exchanges = (count: number): FakeExchange[] => Array.from({ length: count }, () => new FakeExchange(reads));
  const endTurn = (): void => void vi.advanceTimersToNextTimer();
  /** Rounds 100 ms apart, each leaving 34 paused: those of rounds at least 1 s old were resumed. */
  const resumedSoFar = (round: number): number => 34 * Math.max(0, round - 9);

  it("given requests still pending at the end of their turn, when the turn ends, then each is paused once and counted", () => {
    const [a, b, c] = exchanges(3) as [FakeExchange, FakeExchange, FakeExchange];
    for (const exchange of [a, b, c]) reads.pauseAtTurnEnd(exchange);
    b.open = false; // answered within its turn: no pause
    endTurn();
    expect([a.pauses, b.pauses, c.pauses]).toEqual([1, 0, 1]);
    expect(reads.size).toBe(2);
  });

  it("given paused requests, when they are answered, then they are forgotten and never resumed by the sweep", () => {
    const all = exchanges(5);
    for (const exchange of all) reads.pauseAtTurnEnd(exchange);
    endTurn();
    for (const exchange of all) exchange.answer();
    expect(reads.size).toBe(0);
    vi.advanceTimersByTime(10 * MAX_PAUSED_MS);
    expect(all.map((e) => e.resumes)).toEqual([1, 1, 1, 1, 1]);
  });

  it("given pauses of different ages, when maxPausedMs passes for each, then each is resumed at its own deadline, oldest first", () => {
    const [early, answered, late] = exchanges(3) as [FakeExchange, FakeExchange, FakeExchange];
    reads.pauseAtTurnEnd(early);
    reads.pauseAtTurnEnd(answered);
    endTurn();
    vi.advanceTimersByTime(400);
    reads.pauseAtTurnEnd(late);
    endTurn();
    answered.answer();
    expect(reads.size).toBe(2);

    vi.advanceTimersByTime(MAX_PAUSED_MS - 400);
    expect([early.resumes, answered.resumes, late.resumes]).toEqual([1, 1, 0]);
    expect(reads.size).toBe(1);
    vi.advanceTimersByTime(400);
    expect(late.resumes).toBe(1);
    expect(reads.size).toBe(0);
    // Once resumed, an exchange is never resumed again.
    vi.advanceTimersByTime(10 * MAX_PAUSED_MS);
    expect([early.resumes, answered.resumes, late.resumes]).toEqual([1, 1, 1]);
  });

  it("given answers still pending, when maxAnswerMs passes after each pause, then each is answered late once, at its own deadline; one answered before is not", () => {
    const [first, answered, second] = exchanges(3) as [FakeExchange, FakeExchange, FakeExchange];
    reads.pauseAtTurnEnd(first);
    reads.pauseAtTurnEnd(answered);
    endTurn();
    vi.advanceTimersByTime(3_000);
    reads.pauseAtTurnEnd(second);
    endTurn();
    vi.advanceTimersByTime(MAX_PAUSED_MS);
    // All three resumed at their pause's end, none answered late yet.
    expect([first.resumes, answered.resumes, second.resumes]).toEqual([1, 1, 1]);
    answered.answer();
    vi.advanceTimersByTime(MAX_ANSWER_MS - 3_000 - MAX_PAUSED_MS - 1);
    expect([first.lateAnswers, second.lateAnswers]).toEqual([[], []]);
    vi.advanceTimersByTime(1);
    expect(first.lateAnswers).toEqual([MAX_ANSWER_MS]);
    expect(second.lateAnswers).toEqual([]);
    vi.advanceTimersByTime(3_000);
    expect(second.lateAnswers).toEqual([MAX_ANSWER_MS]);
    vi.advanceTimersByTime(10 * MAX_ANSWER_MS);
    expect([first.lateAnswers.length, answered.lateAnswers.length, second.lateAnswers.length]).toEqual([1, 0, 1]);
  });

  it("given a storm of short pauses answered in any order, then nothing answered is kept, the rest is resumed on time and answered late once", () => {
    const unanswered: FakeExchange[] = [];
    for (let round = 0; round < 50; round++) {
      const batch = exchanges(100);
      unanswered.push(...batch.filter((_, i) => i % 3 === 0));
      for (const exchange of batch) reads.pauseAtTurnEnd(exchange);
      endTurn();
      // Every third one stays unanswered; the others answer from the middle out.
      const answered = batch.filter((_, i) => i % 3 !== 0);
      for (const exchange of [...answered.slice(50), ...answered.slice(0, 50).reverse()]) exchange.answer();
      expect(reads.size).toBe(34 * (round + 1) - resumedSoFar(round));
      vi.advanceTimersByTime(MAX_PAUSED_MS / 10);
    }
    vi.advanceTimersByTime(2 * MAX_PAUSED_MS);
    expect(reads.size).toBe(0);
    vi.advanceTimersByTime(MAX_ANSWER_MS);
    expect(unanswered.every((exchange) => exchange.lateAnswers.length === 1)).toBe(true);
  });
});
