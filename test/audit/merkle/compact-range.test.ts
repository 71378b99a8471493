/** The writer's right edge of the tree (compact-range.ts) against the full tree (merkle-log.ts) and the RFC's definition. */
import { describe, expect, it } from "vitest";
import { CompactRange } from "../../../engine/audit/merkle/compact-range.js";
import { MerkleLog } from "../../../engine/audit/merkle/merkle-log.js";
import { leafHash, sameHash } from "@market-service/client/audit";

const leaf = (i: number): Uint8Array => leafHash(new TextEncoder().encode(`entry ${i}`));

describe("CompactRange", () => {
  it("has the full tree's root at every size up to 600, and keeps one subtree root per set bit of the size", () => {
    const range = new CompactRange();
    const full = new MerkleLog();
    expect(sameHash(range.root(), full.root())).toBe(true);
    for (let i = 0; i < 600; i += 1) {
      range.append(leaf(i));
      full.append(leaf(i));
      expect(sameHash(range.root(), full.root()), `size ${i + 1}`).toBe(true);
      expect(range.subtreeRoots()).toHaveLength((i + 1).toString(2).split("1").length - 1);
    }
  });

  it("continues from its saved state (a snapshot) exactly as if it had never stopped", () => {
    const range = new CompactRange();
    for (let i = 0; i < 77; i += 1) range.append(leaf(i));
    const restored = CompactRange.of(range.size, range.subtreeRoots());
    for (let i = 77; i < 300; i += 1) {
      range.append(leaf(i));
      restored.append(leaf(i));
    }
    expect(restored.size).toBe(300);
    expect(sameHash(restored.root(), range.root())).toBe(true);
  });

  it("refuses a saved state whose root count does not match its size, or a hash that is not 32 bytes", () => {
    expect(() => CompactRange.of(3, [leaf(0)])).toThrow(/size 3 has 2 subtree roots, not 1/);
    expect(() => CompactRange.of(-1, [])).toThrow(RangeError);
    expect(() => CompactRange.of(1, [new Uint8Array(31)])).toThrow(/31 bytes/);
    expect(() => new CompactRange().append(new Uint8Array(33))).toThrow(/33 bytes/);
  });
});
