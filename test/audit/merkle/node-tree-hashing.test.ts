/** The shards' node:crypto tree hashes are the pure (noble) ones, byte for byte. */
import { describe, expect } from "vitest";
import { fc, it } from "@fast-check/vitest";
import { NODE_TREE_HASHING } from "../../../engine/audit/node-tree-hashing.js";
import { TREE_HASHING, sameHash } from "@market-service/client/audit";
import { CompactRange } from "../../../engine/audit/merkle/compact-range.js";

describe("node:crypto tree hashing", () => {
  it.prop([fc.uint8Array({ maxLength: 2048 })])("hashes a leaf as noble does", (bytes) => {
    expect(sameHash(NODE_TREE_HASHING.leafHash(bytes), TREE_HASHING.leafHash(bytes))).toBe(true);
  });

  it("hashes leaves on both sides of its reused input's size, each followed by a short one, as noble does", () => {
    for (const length of [64 * 1024 - 2, 64 * 1024 - 1, 64 * 1024, 200 * 1024]) {
      const long = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      const short = Uint8Array.of(1, 2, 3);
      expect(sameHash(NODE_TREE_HASHING.leafHash(long), TREE_HASHING.leafHash(long))).toBe(true);
      expect(sameHash(NODE_TREE_HASHING.leafHash(short), TREE_HASHING.leafHash(short))).toBe(true);
    }
  });

  it.prop([fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 32, maxLength: 32 })])("hashes a node as noble does", (left, right) => {
    expect(sameHash(NODE_TREE_HASHING.nodeHash(left, right), TREE_HASHING.nodeHash(left, right))).toBe(true);
  });

  it.prop([fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 200 })])("gives a compact range the same root", (entries) => {
    const withNode = new CompactRange(NODE_TREE_HASHING);
    const withNoble = new CompactRange();
    for (const entry of entries) {
      withNode.append(NODE_TREE_HASHING.leafHash(entry));
      withNoble.append(TREE_HASHING.leafHash(entry));
    }
    expect(sameHash(withNode.root(), withNoble.root())).toBe(true);
  });
});
