/**
 * Timers that fire only when a test moves their clock (engine/timers.ts): for code that takes its
 * timers at a seam, tested without waiting on real time. `soon` is a real turn of the event loop.
 */
import type { TimerHandle, Timers } from "../../engine/timers.js";

export class SteppedTimers implements Timers {
  private now = 0;
  private timers: Array<{ atMs: number; run: () => void; cancelled: boolean }> = [];

  nowMs(): number {
    return this.now;
  }

  after(ms: number, run: () => void): TimerHandle {
    const timer = { atMs: this.now + ms, run, cancelled: false };
    this.timers.push(timer);
    const handle: TimerHandle = { cancel: () => void (timer.cancelled = true), unref: () => handle };
    return handle;
  }

  every(): TimerHandle {
    throw new Error("periodic timers are not stepped here");
  }

  soon(run: () => void): void {
    setImmediate(run);
  }

  /** Timers set and neither run nor cancelled. */
  get pending(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  /** Moves the clock by `ms`, running what falls due, then lets promise continuations run. */
  async step(ms: number): Promise<void> {
    this.now += ms;
    const due = this.timers.filter((timer) => !timer.cancelled && timer.atMs <= this.now);
    this.timers = this.timers.filter((timer) => !due.includes(timer));
    for (const timer of due) timer.run();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
