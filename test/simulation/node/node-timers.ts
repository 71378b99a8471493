/**
 * A simulated node's time: its clock (the simulated instant plus the node's skew) and its timers,
 * which run on the scheduler as the node's current process (a crash cancels them all, a pause
 * holds them). The cluster's modules get these as their Clock and Timers (engine/timers.ts).
 */
import type { TimerHandle, Timers } from "../../../engine/timers.js";
import type { Actor, Scheduler } from "../scheduler.js";

export class NodeTimers implements Timers {
  constructor(
    private readonly scheduler: Scheduler,
    private readonly actor: Actor,
    /** Epoch milliseconds at simulated time 0. */
    private readonly epochMs: number,
    /** How far this node's clock is ahead of true time (negative: behind). */
    readonly skewMs: number,
  ) {}

  nowMs(): number {
    return this.epochMs + this.scheduler.nowMs + this.skewMs;
  }

  after(ms: number, run: () => void): TimerHandle {
    const timer = this.scheduler.after(Math.max(1, Math.ceil(ms)), this.actor, run);
    const handle: TimerHandle = { cancel: () => timer.cancel(), unref: () => handle };
    return handle;
  }

  every(ms: number, run: () => void): TimerHandle {
    let current = this.after(ms, tick);
    const scheduler = this;
    function tick(): void {
      current = scheduler.after(ms, tick);
      run();
    }
    const handle: TimerHandle = { cancel: () => current.cancel(), unref: () => handle };
    return handle;
  }

  soon(run: () => void): void {
    this.scheduler.after(0, this.actor, run);
  }
}
