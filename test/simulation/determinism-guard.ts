/**
 * Nothing in a simulated node may read the real clock, draw real randomness or set a real timer:
 * those would make a seed's run differ from its replay. The modules take their time and timers as
 * ports (engine/timers.ts); this guard makes any use that slipped past them fail loudly instead of
 * silently breaking determinism. (The scheduler took Node's process.nextTick for the end of its turns before this runs.)
 */
export function guardDeterminism(): void {
  const refuse = (what: string) => (): never => {
    throw new Error(`${what} in the simulation: time and randomness must come through the ports (engine/timers.ts, Messaging.uniqueId)`);
  };
  Math.random = refuse("Math.random()");
  Date.now = refuse("Date.now()");
  globalThis.setTimeout = refuse("setTimeout") as unknown as typeof setTimeout;
  globalThis.setInterval = refuse("setInterval") as unknown as typeof setInterval;
  globalThis.setImmediate = refuse("setImmediate") as unknown as typeof setImmediate;
}
