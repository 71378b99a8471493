/**
 * The tree against the RFC's own definitions (rfc-reference.ts): every root, inclusion proof and
 * consistency proof for every size up to 260, random ones up to a few thousand leaves and around
 * powers of two, a tree that spans several storage chunks; the same answers from a tree built in
 * one go as from one grown leaf by leaf; bounds; and that nothing handed out aliases the tree.
 */
import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { MerkleLog } from "../../../engine/audit/merkle/merkle-log.js";
import { verifyConsistency, verifyInclusion } from "@market-service/client/audit";
import { RfcTree, refVerifyConsistency, refVerifyInclusion, sampleLeafHashes, sha256 } from "./rfc-reference.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const hexes = (list: readonly Uint8Array[]): string[] => list.map(hex);

const EXHAUSTIVE = 260;
const LEAVES = sampleLeafHashes(EXHAUSTIVE);
const REFERENCE = new RfcTree(LEAVES);
const TREE = MerkleLog.from(LEAVES);

describe("MerkleLog against RFC 9162's definitions, every size up to 260", () => {
  it("has MTH(D[n]) as its root after each append, and as rootAt(n) afterwards (n = 0..260)", () => {
    const grown = new MerkleLog();
    expect(hex(grown.root())).toBe(hex(sha256()));
    for (let n = 1; n <= EXHAUSTIVE; n++) {
      expect(grown.append(LEAVES[n - 1] as Uint8Array)).toBe(n - 1);
      expect(grown.size).toBe(n);
      expect(hex(grown.root()), `root at ${n}`).toBe(hex(REFERENCE.mth(0, n)));
    }
    for (let n = 0; n <= EXHAUSTIVE; n++) expect(hex(TREE.rootAt(n)), `rootAt(${n})`).toBe(hex(REFERENCE.mth(0, n)));
  });

  it("gives PATH(m, D[n]) for every leaf m of every size n ≤ 260, which both verifiers accept", () => {
    for (let n = 1; n <= EXHAUSTIVE; n++) {
      const root = REFERENCE.mth(0, n);
      for (let m = 0; m < n; m++) {
        const proof = TREE.inclusionProof(m, n);
        expect(hexes(proof), `PATH(${m}, D[${n}])`).toEqual(hexes(REFERENCE.path(m, 0, n)));
        const leaf = LEAVES[m] as Uint8Array;
        expect(verifyInclusion(leaf, m, n, proof, root), `verifyInclusion(${m}, ${n})`).toBe(true);
        expect(refVerifyInclusion(m, n, leaf, proof, root)).toBe(true);
      }
    }
  });

  it("gives PROOF(m, D[n]) for every 1 ≤ m ≤ n ≤ 260, which both verifiers accept", () => {
    for (let n = 1; n <= EXHAUSTIVE; n++) {
      const newRoot = REFERENCE.mth(0, n);
      for (let m = 1; m <= n; m++) {
        const proof = TREE.consistencyProof(m, n);
        expect(hexes(proof), `PROOF(${m}, D[${n}])`).toEqual(hexes(REFERENCE.proof(m, n)));
        const oldRoot = REFERENCE.mth(0, m);
        expect(verifyConsistency(m, n, oldRoot, newRoot, proof), `verifyConsistency(${m}, ${n})`).toBe(true);
        if (m < n) expect(refVerifyConsistency(m, n, oldRoot, newRoot, proof)).toBe(true);
      }
    }
  });

  it("defaults the proofs' tree size to the current size", () => {
    expect(hexes(TREE.inclusionProof(17))).toEqual(hexes(TREE.inclusionProof(17, EXHAUSTIVE)));
    expect(hexes(TREE.consistencyProof(100))).toEqual(hexes(TREE.consistencyProof(100, EXHAUSTIVE)));
    expect(hex(TREE.root())).toBe(hex(TREE.rootAt(EXHAUSTIVE)));
    expect(hex(TREE.leafHashAt(5))).toBe(hex(LEAVES[5] as Uint8Array));
  });
});

describe("MerkleLog against RFC 9162's definitions, random sizes up to a few thousand", () => {
  const BIG = 5_000;
  const bigLeaves = sampleLeafHashes(BIG, "big-");
  const bigReference = new RfcTree(bigLeaves);
  const bigTree = MerkleLog.from(bigLeaves);
  // Sizes anywhere, and sizes within 2 of a power of two, where the tree's shape changes.
  const size = fc.oneof(
    fc.integer({ min: 1, max: BIG }),
    fc.integer({ min: 0, max: 12 }).chain((e) => fc.integer({ min: Math.max(1, 2 ** e - 2), max: Math.min(BIG, 2 ** e + 2) })),
  );

  fcTest.prop([size, fc.nat()], { numRuns: 400 })("inclusion proofs equal PATH and verify", (n, pick) => {
    const m = pick % n;
    const proof = bigTree.inclusionProof(m, n);
    expect(hexes(proof)).toEqual(hexes(bigReference.path(m, 0, n)));
    expect(verifyInclusion(bigLeaves[m] as Uint8Array, m, n, proof, bigReference.mth(0, n))).toBe(true);
  });

  fcTest.prop([size, size], { numRuns: 400 })("consistency proofs equal PROOF and verify", (a, b) => {
    const [m, n] = a <= b ? [a, b] : [b, a];
    const proof = bigTree.consistencyProof(m, n);
    expect(hexes(proof)).toEqual(hexes(bigReference.proof(m, n)));
    expect(verifyConsistency(m, n, bigReference.mth(0, m), bigReference.mth(0, n), proof)).toBe(true);
  });

  fcTest.prop([size], { numRuns: 200 })("rootAt(n) equals MTH(D[n])", (n) => {
    expect(hex(bigTree.rootAt(n))).toBe(hex(bigReference.mth(0, n)));
  });
});

describe("MerkleLog across storage chunks", () => {
  it("answers as the RFC defines around the chunk boundaries of its columns (70,000 leaves)", () => {
    // Columns are stored in chunks of 32,768 hashes: level 0 crosses two boundaries here, level 1 one.
    const leaves = sampleLeafHashes(70_000, "chunk-");
    const reference = new RfcTree(leaves);
    const tree = MerkleLog.from(leaves);
    for (const n of [32_767, 32_768, 32_769, 65_535, 65_536, 65_537, 70_000]) {
      expect(hex(tree.rootAt(n)), `rootAt(${n})`).toBe(hex(reference.mth(0, n)));
      for (const m of [0, 32_766, 32_767, 32_768, n - 1].filter((m) => m < n)) {
        expect(hexes(tree.inclusionProof(m, n)), `PATH(${m}, D[${n}])`).toEqual(hexes(reference.path(m, 0, n)));
      }
      for (const m of [1, 32_767, 32_768, 32_769, 65_536].filter((m) => m <= n)) {
        expect(hexes(tree.consistencyProof(m, n)), `PROOF(${m}, D[${n}])`).toEqual(hexes(reference.proof(m, n)));
      }
    }
  });
});

describe("MerkleLog built leaf by leaf and in one go", () => {
  it("gives the same roots and proofs at every size, whichever way it was built", () => {
    const grown = new MerkleLog();
    for (let n = 1; n <= 130; n++) {
      grown.append(LEAVES[n - 1] as Uint8Array);
      // At each step, the growing tree's answers for its current size are those of the full tree.
      expect(hex(grown.root())).toBe(hex(TREE.rootAt(n)));
      for (let m = 0; m < n; m++) expect(hexes(grown.inclusionProof(m))).toEqual(hexes(TREE.inclusionProof(m, n)));
      for (let m = 1; m <= n; m++) expect(hexes(grown.consistencyProof(m))).toEqual(hexes(TREE.consistencyProof(m, n)));
    }
    const atOnce = MerkleLog.from(LEAVES.slice(0, 130));
    for (let n = 0; n <= 130; n++) expect(hex(grown.rootAt(n))).toBe(hex(atOnce.rootAt(n)));
    for (let n = 1; n <= 130; n += 7) {
      for (let m = 0; m < n; m++) expect(hexes(grown.inclusionProof(m, n))).toEqual(hexes(atOnce.inclusionProof(m, n)));
      for (let m = 1; m <= n; m++) expect(hexes(grown.consistencyProof(m, n))).toEqual(hexes(atOnce.consistencyProof(m, n)));
    }
  });

  it("builds from any iterable of leaf hashes, e.g. a generator reading a log", () => {
    function* read(): Generator<Uint8Array> {
      for (const leaf of LEAVES.slice(0, 33)) yield leaf;
    }
    expect(hex(MerkleLog.from(read()).root())).toBe(hex(REFERENCE.mth(0, 33)));
  });
});

describe("MerkleLog bounds", () => {
  const tree = MerkleLog.from(LEAVES.slice(0, 8));

  it.each([
    ["rootAt(-1)", () => tree.rootAt(-1), "treeSize"],
    ["rootAt(9)", () => tree.rootAt(9), "treeSize"],
    ["rootAt(1.5)", () => tree.rootAt(1.5), "treeSize"],
    ["rootAt(NaN)", () => tree.rootAt(Number.NaN), "treeSize"],
    ["inclusionProof(8, 8)", () => tree.inclusionProof(8, 8), "leafIndex"],
    ["inclusionProof(-1, 8)", () => tree.inclusionProof(-1, 8), "leafIndex"],
    ["inclusionProof(0.5, 8)", () => tree.inclusionProof(0.5, 8), "leafIndex"],
    ["inclusionProof(3, 3)", () => tree.inclusionProof(3, 3), "leafIndex"],
    ["inclusionProof(0, 0)", () => tree.inclusionProof(0, 0), "treeSize"],
    ["inclusionProof(0, 9)", () => tree.inclusionProof(0, 9), "treeSize"],
    ["inclusionProof(0, 2 ** 53)", () => tree.inclusionProof(0, 2 ** 53), "treeSize"],
    ["consistencyProof(0, 8)", () => tree.consistencyProof(0, 8), "oldSize"],
    ["consistencyProof(5, 4)", () => tree.consistencyProof(5, 4), "oldSize"],
    ["consistencyProof(1, 9)", () => tree.consistencyProof(1, 9), "newSize"],
    ["consistencyProof(1, 0)", () => tree.consistencyProof(1, 0), "newSize"],
    ["consistencyProof(2.5, 8)", () => tree.consistencyProof(2.5, 8), "oldSize"],
    ["leafHashAt(8)", () => tree.leafHashAt(8), "leafIndex"],
  ])("%s throws a RangeError naming %s", (_, call, name) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(new RegExp(`^${name} `));
  });

  it("refuses a leaf hash that is not 32 bytes", () => {
    const empty = new MerkleLog();
    expect(() => empty.append(new Uint8Array(31))).toThrow(RangeError);
    expect(() => empty.append(new Uint8Array(33))).toThrow(/leafHash must be 32 bytes; got 33/);
    expect(() => empty.append("00".repeat(32) as unknown as Uint8Array)).toThrow(TypeError);
    expect(empty.size).toBe(0);
    expect(() => empty.leafHashAt(0)).toThrow(RangeError);
    expect(() => empty.inclusionProof(0)).toThrow(RangeError);
    expect(() => empty.consistencyProof(1)).toThrow(RangeError);
    expect(hex(empty.rootAt(0))).toBe(hex(sha256()));
  });
});

describe("MerkleLog hands out copies", () => {
  it("is not changed by writing to what it returned or to what it was given", () => {
    const given = LEAVES.slice(0, 11).map((leaf) => leaf.slice());
    const tree = new MerkleLog();
    for (const leaf of given) tree.append(leaf);
    const before = { root: hex(tree.root()), proof: hexes(tree.inclusionProof(3)), consistency: hexes(tree.consistencyProof(6)), leaf: hex(tree.leafHashAt(3)) };
    for (const leaf of given) leaf.fill(0xaa);
    tree.root().fill(0);
    tree.rootAt(8).fill(0);
    tree.leafHashAt(3).fill(0);
    for (const hash of tree.inclusionProof(3)) hash.fill(0);
    for (const hash of tree.consistencyProof(6)) hash.fill(0);
    expect({ root: hex(tree.root()), proof: hexes(tree.inclusionProof(3)), consistency: hexes(tree.consistencyProof(6)), leaf: hex(tree.leafHashAt(3)) }).toEqual(before);
    expect(before.root).toBe(hex(REFERENCE.mth(0, 11)));
  });
});
