/**
 * The partition placement every node computes from its view of the lease bucket
 * (engine/cluster/placement.ts): balanced over live nodes, sticky, the same map from the same view.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { placePartitions } from "../../engine/cluster/placement.js";

const NODE_IDS = ["a", "b", "c", "d", "e", "f", "node-10", "node-2", "Z"];

function counts(targets: ReadonlyArray<string | null>): Map<string, number> {
  const result = new Map<string, number>();
  for (const target of targets) if (target !== null) result.set(target, (result.get(target) ?? 0) + 1);
  return result;
}

/** Live nodes (1…all of NODE_IDS), a partition count, and owners among the live nodes, others and none. */
const views = fc
  .record({
    live: fc.subarray(NODE_IDS, { minLength: 1 }),
    partitions: fc.integer({ min: 0, max: 40 }),
    seed: fc.array(fc.integer({ min: 0, max: NODE_IDS.length + 2 }), { maxLength: 40 }),
  })
  .map(({ live, partitions, seed }) => {
    const candidates: Array<string | null> = [...NODE_IDS, "gone", null, null];
    const owners = Array.from({ length: partitions }, (_, p) => candidates[(seed[p] ?? NODE_IDS.length + 1) % candidates.length] ?? null);
    return { live, partitions, owners };
  });

describe("placePartitions", () => {
  test.prop([views])("gives every partition to a live node, every node floor(P/n) or ceil(P/n)", ({ live, partitions, owners }) => {
    const targets = placePartitions(partitions, live, owners);
    expect(targets).toHaveLength(partitions);
    for (const target of targets) expect(live).toContain(target);
    const low = Math.floor(partitions / live.length);
    const high = Math.ceil(partitions / live.length);
    const perNode = counts(targets);
    for (const node of live) {
      const count = perNode.get(node) ?? 0;
      expect(count).toBeGreaterThanOrEqual(low);
      expect(count).toBeLessThanOrEqual(high);
    }
  });

  test.prop([views])("is sticky: a live owner keeps min(held, its share) of its partitions; an owner within floor(P/n) keeps all", ({ live, partitions, owners }) => {
    const targets = placePartitions(partitions, live, owners);
    const perNode = counts(targets);
    const low = Math.floor(partitions / live.length);
    for (const node of live) {
      const held = owners.filter((owner) => owner === node).length;
      const kept = owners.filter((owner, p) => owner === node && targets[p] === node).length;
      expect(kept).toBe(Math.min(held, perNode.get(node) ?? 0));
      if (held <= low) expect(kept).toBe(held);
    }
  });

  test.prop([views, fc.integer()])("is the same map whatever the order the live nodes are listed in", ({ live, partitions, owners }, seed) => {
    const shuffled = [...live].sort((a, b) => ((a.charCodeAt(0) * 31 + seed) % 7) - ((b.charCodeAt(0) * 31 + seed) % 7));
    expect(placePartitions(partitions, shuffled, owners)).toEqual(placePartitions(partitions, live, owners));
  });

  it("spreads 6 free partitions 6, 3/3, 2/2/2 over 1, 2, 3 nodes, least-loaded first, ties by id", () => {
    const free = new Array<string | null>(6).fill(null);
    expect(placePartitions(6, ["a"], free)).toEqual(["a", "a", "a", "a", "a", "a"]);
    expect(placePartitions(6, ["b", "a"], free)).toEqual(["a", "b", "a", "b", "a", "b"]);
    expect(placePartitions(6, ["c", "a", "b"], free)).toEqual(["a", "b", "c", "a", "b", "c"]);
  });

  it("moves only the newcomer's share when a node joins, from the owners' highest partitions", () => {
    const one = ["a", "a", "a", "a", "a", "a"];
    expect(placePartitions(6, ["a", "b"], one)).toEqual(["a", "a", "a", "b", "b", "b"]);
    const two = ["a", "a", "a", "b", "b", "b"];
    expect(placePartitions(6, ["a", "b", "c"], two)).toEqual(["a", "a", "c", "b", "b", "c"]);
    // 7 partitions on 3 nodes, then a fourth: the two nodes with 2 keep them, the one with 3 gives one up.
    const three = ["a", "a", "a", "b", "b", "c", "c"];
    expect(placePartitions(7, ["a", "b", "c", "d"], three)).toEqual(["a", "a", "d", "b", "b", "c", "c"]);
  });

  it("spreads a departed node's partitions over the survivors and moves nothing else", () => {
    const owners = ["a", "b", "c", "a", "b", "c"];
    expect(placePartitions(6, ["a", "b"], owners)).toEqual(["a", "b", "a", "a", "b", "b"]);
  });

  it("gives nothing to anyone when no node is live", () => {
    expect(placePartitions(3, [], ["a", null, "b"])).toEqual([null, null, null]);
  });
});
