/**
 * How the engine's growable typed arrays grow (commitment rows, id arenas, principal-index slots).
 * Each growth allocates a new ArrayBuffer, and in a storm over many markets those allocations were
 * GC work that showed in P3's throughput (measured when this was chosen: bench/README.md as of
 * commit 164567a). So small arrays grow ×4, which keeps a market with one claim small and reaches a
 * few hundred claims in few steps; large ones ×2, which bounds the unused tail to half.
 */
import { assert } from "../rules/common/assert.js";

/** The capacity to grow to so that `needed` fits: from `first`, ×4 below `quadrupleBelow`, then ×2. */
export function grownCapacity(current: number, needed: number, first: number, quadrupleBelow: number): number {
  assert(Number.isSafeInteger(needed) && needed > current, "growth is asked for only when needed");
  let capacity = Math.max(first, current);
  while (capacity < needed) capacity *= capacity < quadrupleBelow ? 4 : 2;
  return capacity;
}
