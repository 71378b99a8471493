/**
 * Timers outside the rules: the time that timeouts, retries, pauses and periodic rounds run by,
 * injected like the clock (engine/clock.ts), so that the cluster's modules run unchanged on Node's
 * timers in production and on a seeded scheduler with simulated time in the simulation (test/simulation/,
 * docs/simulation.md). Nothing in a module that takes Timers calls setTimeout, setImmediate,
 * setInterval or Date.now for its own timing.
 *
 * `nowMs` is this time's clock: a deadline is `nowMs() + ms` and is judged by it. It is not the
 * service's clock of record (server stamps, lease expiries), which stays a Clock of its own.
 */
import type { Clock } from "./clock.js";

export interface TimerHandle {
  /** The timer never runs after this (a no-op once it ran). */
  cancel(): void;
  /** The timer does not keep the process alive (Node's unref; nothing in a simulation). */
  unref(): TimerHandle;
}

export interface Timers extends Clock {
  /** Runs `run` once, `ms` from now. */
  after(ms: number, run: () => void): TimerHandle;
  /** Runs `run` every `ms` until cancelled. */
  every(ms: number, run: () => void): TimerHandle;
  /** Runs `run` in a later turn, after everything pending now (setImmediate). */
  soon(run: () => void): void;
}

/** A promise that resolves `ms` from now by `timers`. */
export function pauseFor(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => timers.after(ms, resolve));
}

function handleOf(timer: NodeJS.Timeout, clear: (timer: NodeJS.Timeout) => void): TimerHandle {
  const handle: TimerHandle = {
    cancel: () => clear(timer),
    unref: () => {
      timer.unref();
      return handle;
    },
  };
  return handle;
}

/** Node's timers and wall clock: production. */
export const systemTimers: Timers = {
  nowMs: () => Date.now(),
  after: (ms, run) => handleOf(setTimeout(run, ms), clearTimeout),
  every: (ms, run) => handleOf(setInterval(run, ms), clearInterval),
  soon: (run) => {
    setImmediate(run);
  },
};
