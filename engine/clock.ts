/**
 * Time outside the engine comes from an injected clock, so tests control it and never sleep to wait
 * for a deadline.
 */
export interface Clock {
  /** Current Unix epoch time in milliseconds (an integer). */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private currentMs: number) {}
  nowMs(): number {
    return this.currentMs;
  }
  set(epochMs: number): void {
    this.currentMs = epochMs;
  }
  advance(ms: number): void {
    this.currentMs += ms;
  }
}
