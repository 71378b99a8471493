/**
 * Which live node each partition should belong to: balanced and sticky.
 *
 * Every node of the cluster computes this map from its own view of the lease bucket; the same view
 * gives the same map, so nodes agree without talking to each other, and where their views differ
 * (one has seen a heartbeat the other has not yet) the compare-and-swap on the lease decides.
 *
 * - Balanced: with n live nodes and P partitions, every node's share is floor(P/n) or ceil(P/n).
 *   The P mod n larger shares go to the nodes that hold the most now (ties by node id), so a balanced
 *   cluster keeps its shape instead of shuffling which nodes carry the extra partition.
 * - Sticky: a partition stays with its current owner while that owner is within its share; an owner
 *   over its share keeps its lowest-numbered partitions and gives up the rest.
 * - Everything else (free, expired, owned by a node no longer live, or given up) goes, in partition
 *   order, to the least-loaded live node still under its share, ties by node id.
 *
 * So a joining node receives only its share, taken from the nodes over theirs; a departing node's
 * partitions are spread over the survivors; nothing else moves.
 */

/** A partition's target: the live node that should own it, or null when no node is live. */
export type PlacementTargets = ReadonlyArray<string | null>;

/**
 * `owners[p]` is p's current valid owner (null if none); owners that are not in `liveNodes` are
 * ignored. `liveNodes` may be in any order and must not repeat.
 */
export function placePartitions(partitions: number, liveNodes: readonly string[], owners: ReadonlyArray<string | null>): PlacementTargets {
  if (!Number.isSafeInteger(partitions) || partitions < 0) throw new RangeError(`partitions must be a non-negative integer, got ${partitions}`);
  if (owners.length !== partitions) throw new RangeError(`owners has ${owners.length} entries for ${partitions} partitions`);
  const nodes = [...liveNodes].sort(compareIds);
  const targets: Array<string | null> = new Array<string | null>(partitions).fill(null);
  if (nodes.length === 0) return targets;

  const held = new Map<string, number>(nodes.map((node) => [node, 0]));
  for (const owner of owners) {
    if (owner !== null && held.has(owner)) held.set(owner, (held.get(owner) as number) + 1);
  }
  const base = Math.floor(partitions / nodes.length);
  const extra = partitions % nodes.length;
  const byHoldings = [...nodes].sort((a, b) => (held.get(b) as number) - (held.get(a) as number) || compareIds(a, b));
  const quota = new Map<string, number>(byHoldings.map((node, rank) => [node, rank < extra ? base + 1 : base]));
  const load = new Map<string, number>(nodes.map((node) => [node, 0]));

  // Sticky: owners keep what fits their share, lowest partitions first.
  for (let partition = 0; partition < partitions; partition++) {
    const owner = owners[partition] ?? null;
    if (owner === null || !load.has(owner)) continue;
    const kept = load.get(owner) as number;
    if (kept < (quota.get(owner) as number)) {
      targets[partition] = owner;
      load.set(owner, kept + 1);
    }
  }
  // The rest: least-loaded node under its share, ties by id.
  for (let partition = 0; partition < partitions; partition++) {
    if (targets[partition] !== null) continue;
    let chosen: string | undefined;
    for (const node of nodes) {
      const current = load.get(node) as number;
      if (current >= (quota.get(node) as number)) continue;
      if (chosen === undefined || current < (load.get(chosen) as number)) chosen = node;
    }
    // The shares add up to `partitions`, so some node is always under its share here.
    if (chosen === undefined) throw new Error("placement: no node under its share (shares do not add up)");
    targets[partition] = chosen;
    load.set(chosen, (load.get(chosen) as number) + 1);
  }
  return targets;
}

/** Node ids compare by code unit, the same on every node (no locale). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
