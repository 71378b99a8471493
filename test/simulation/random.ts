/**
 * The simulation's only source of randomness: a seeded PRNG (sfc32, seeded through splitmix32).
 * Every choice the simulated world makes (delays, losses, faults, the workload, the order of
 * simultaneous events) is drawn from one of these, so a seed replays exactly. `fork` derives an
 * independent stream for a part of the world, so that adding draws to one part does not shift
 * every other part's.
 */

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** FNV-1a of a label: forks of the same parent with different labels differ. */
function labelHash(label: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // Seeds up to 2^53: the high and low halves both enter the state.
    const mix = splitmix32((seed >>> 0) ^ Math.imul(Math.floor(seed / 0x100000000) >>> 0, 0x9e3779b1));
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniformly random 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** In [0, 1). */
  float(): number {
    return this.u32() / 0x100000000;
  }

  /** An integer in [low, high], both included. */
  int(low: number, high: number): number {
    return low + Math.floor(this.float() * (high - low + 1));
  }

  chance(probability: number): boolean {
    return probability > 0 && this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from nothing");
    return items[this.int(0, items.length - 1)] as T;
  }

  /** An independent stream for `label`, drawn from this one. */
  fork(label: string): Random {
    return new Random(((this.u32() ^ labelHash(label)) >>> 0) + this.u32() * 0x100000);
  }
}
