/**
 * Two services measured against each other: the same storm on each, `rounds` times, the order
 * alternating every round so that drift of the machine falls on both alike; the ratio b ÷ a of each
 * round and their median. Serves the heads scenario (heads on ÷ off) and the guard (this build ÷ a
 * pinned reference build).
 */
export interface PairedRound<T> {
  round: number;
  a: T;
  b: T;
  /** b ÷ a of this round's measure. */
  ratio: number;
}

export interface PairedSummary<T> {
  rounds: PairedRound<T>[];
  /** Median of the rounds' ratios. */
  median: number;
  min: number;
  max: number;
}

/** The median of `values` (the mean of the two middle ones for an even count); 0 when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  const lo = sorted[Math.floor((sorted.length - 1) / 2)] as number;
  const hi = sorted[Math.ceil((sorted.length - 1) / 2)] as number;
  return (lo + hi) / 2;
}

/**
 * Runs `measure` on a and b for each round (odd rounds a first, even rounds b first) and returns the
 * rounds with the ratio of `score` b ÷ a, and the median and range of those ratios.
 */
export async function pairedRounds<T>(options: {
  rounds: number;
  measure: (side: "a" | "b", round: number) => Promise<T>;
  score: (result: T) => number;
}): Promise<PairedSummary<T>> {
  const rounds: PairedRound<T>[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    const order = round % 2 === 1 ? (["a", "b"] as const) : (["b", "a"] as const);
    const results: Partial<Record<"a" | "b", T>> = {};
    for (const side of order) results[side] = await options.measure(side, round);
    const a = results.a as T;
    const b = results.b as T;
    rounds.push({ round, a, b, ratio: options.score(b) / options.score(a) });
  }
  return { rounds, ...ratioSummary(rounds.map((r) => r.ratio)) };
}

/** The median and range of rounds' ratios. */
export function ratioSummary(ratios: readonly number[]): { median: number; min: number; max: number } {
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}
