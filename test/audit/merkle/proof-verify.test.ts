/**
 * The verifier: tampering with anything a proof binds makes it fail; a rewritten or truncated
 * history fails the consistency check against a root saved before; malformed input of any kind is
 * an invalid proof with a reason, never an exception; and on random paths for sizes up to 2^53 − 1
 * it agrees with the reference verifier written from the RFC's recursive definitions.
 */
import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { MerkleLog } from "../../../engine/audit/merkle/merkle-log.js";
import { checkConsistency, checkInclusion, consistencyNodes, inclusionNodes, rootFromInclusionProof, verifyConsistency, verifyInclusion } from "@market-service/client/audit";
import { refPathDirections, refRootFromPath, refRootsFromProof, refVerifyConsistency, refVerifyInclusion, sampleLeafHashes } from "./rfc-reference.js";

const LEAVES = sampleLeafHashes(64, "tamper-");
const TREE = MerkleLog.from(LEAVES);

/** Copies of `bytes`, each with one byte changed (every byte, xor 0x01 and xor 0x80). */
function everyByteFlipped(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i++) {
    for (const mask of [0x01, 0x80]) {
      const copy = bytes.slice();
      copy[i] = (copy[i] as number) ^ mask;
      out.push(copy);
    }
  }
  return out;
}

const INCLUSION_CASES: Array<[number, number]> = [
  [0, 1], [0, 2], [1, 2], [2, 3], [0, 7], [6, 7], [3, 8], [7, 8], [12, 13], [0, 33], [31, 33], [32, 33], [21, 64], [63, 64],
];
const CONSISTENCY_CASES: Array<[number, number]> = [
  [1, 2], [2, 3], [3, 4], [4, 8], [6, 8], [6, 7], [5, 13], [7, 33], [32, 33], [31, 64], [63, 64], [1, 64],
];

describe("inclusion proofs: tampering fails", () => {
  it.each(INCLUSION_CASES)("leaf %i of %i: any byte of any proof hash, of the leaf or of the root", (m, n) => {
    const leaf = LEAVES[m] as Uint8Array;
    const root = TREE.rootAt(n);
    const proof = TREE.inclusionProof(m, n);
    expect(verifyInclusion(leaf, m, n, proof, root)).toBe(true);
    proof.forEach((hash, k) => {
      for (const flipped of everyByteFlipped(hash)) {
        const tampered = proof.map((h, j) => (j === k ? flipped : h));
        expect(verifyInclusion(leaf, m, n, tampered, root)).toBe(false);
      }
    });
    for (const flipped of everyByteFlipped(leaf)) expect(verifyInclusion(flipped, m, n, proof, root)).toBe(false);
    for (const flipped of everyByteFlipped(root)) expect(verifyInclusion(leaf, m, n, proof, flipped)).toBe(false);
  });

  it.each(INCLUSION_CASES)("leaf %i of %i: any other index, or a hash added, removed or moved", (m, n) => {
    const leaf = LEAVES[m] as Uint8Array;
    const root = TREE.rootAt(n);
    const proof = TREE.inclusionProof(m, n);
    for (let other = 0; other < n + 3; other++) if (other !== m) expect(verifyInclusion(leaf, other, n, proof, root), `index ${other}`).toBe(false);
    expect(verifyInclusion(leaf, m, n, [...proof, root], root)).toBe(false);
    expect(verifyInclusion(leaf, m, n, [root, ...proof], root)).toBe(false);
    if (proof.length > 0) expect(verifyInclusion(leaf, m, n, proof.slice(0, -1), root)).toBe(false);
    if (proof.length > 1) expect(verifyInclusion(leaf, m, n, [...proof].reverse(), root)).toBe(false);
  });

  it.each(INCLUSION_CASES)("leaf %i of %i: another size fails unless the path has the very same shape", (m, n) => {
    // The size is bound by the signed head, not by the proof: a proof whose hashes sit on the same
    // sides at the same depths in a tree of another size is the same computation (docs/proofs.md).
    const leaf = LEAVES[m] as Uint8Array;
    const root = TREE.rootAt(n);
    const proof = TREE.inclusionProof(m, n);
    for (let other = 1; other <= 2 * n + 2; other++) {
      if (other === n) continue;
      const sameShape = m < other && refPathDirections(m, other) === refPathDirections(m, n);
      expect(verifyInclusion(leaf, m, other, proof, root), `size ${other}`).toBe(sameShape);
      expect(refVerifyInclusion(m, other, leaf, proof, root)).toBe(sameShape);
    }
    expect(verifyInclusion(leaf, m, 0, proof, root)).toBe(false);
  });

  it("accepts leaf 0 of 8 as leaf 0 of 7 against the same root (the size comes from the signed head)", () => {
    const proof = TREE.inclusionProof(0, 8);
    expect(verifyInclusion(LEAVES[0] as Uint8Array, 0, 7, proof, TREE.rootAt(8))).toBe(true);
    expect(verifyInclusion(LEAVES[0] as Uint8Array, 0, 7, proof, TREE.rootAt(7))).toBe(false);
  });

  it("fails a proof for a record that was edited (one leaf of the tree changed)", () => {
    for (let changed = 0; changed < 13; changed++) {
      const edited = MerkleLog.from(LEAVES.slice(0, 13).map((leaf, i) => (i === changed ? (sampleLeafHashes(1, "edit-")[0] as Uint8Array) : leaf)));
      for (let m = 0; m < 13; m++) {
        // Proofs the forger can serve from the edited tree fail against the root saved before.
        expect(verifyInclusion(edited.leafHashAt(m), m, 13, edited.inclusionProof(m), TREE.rootAt(13))).toBe(false);
      }
    }
  });
});

describe("consistency proofs: tampering fails", () => {
  it.each(CONSISTENCY_CASES)("%i → %i: any byte of any proof hash or of either root", (m, n) => {
    const oldRoot = TREE.rootAt(m);
    const newRoot = TREE.rootAt(n);
    const proof = TREE.consistencyProof(m, n);
    expect(verifyConsistency(m, n, oldRoot, newRoot, proof)).toBe(true);
    proof.forEach((hash, k) => {
      for (const flipped of everyByteFlipped(hash)) {
        expect(verifyConsistency(m, n, oldRoot, newRoot, proof.map((h, j) => (j === k ? flipped : h)))).toBe(false);
      }
    });
    for (const flipped of everyByteFlipped(oldRoot)) expect(verifyConsistency(m, n, flipped, newRoot, proof)).toBe(false);
    for (const flipped of everyByteFlipped(newRoot)) expect(verifyConsistency(m, n, oldRoot, flipped, proof)).toBe(false);
  });

  it.each(CONSISTENCY_CASES)("%i → %i: a hash added, removed or moved, the roots swapped, another size", (m, n) => {
    const oldRoot = TREE.rootAt(m);
    const newRoot = TREE.rootAt(n);
    const proof = TREE.consistencyProof(m, n);
    expect(verifyConsistency(m, n, oldRoot, newRoot, [...proof, newRoot])).toBe(false);
    expect(verifyConsistency(m, n, oldRoot, newRoot, [oldRoot, ...proof])).toBe(false);
    expect(verifyConsistency(m, n, oldRoot, newRoot, proof.slice(0, -1))).toBe(false);
    if (proof.length > 1) expect(verifyConsistency(m, n, oldRoot, newRoot, [...proof].reverse())).toBe(false);
    expect(verifyConsistency(m, n, newRoot, oldRoot, proof)).toBe(false);
    expect(verifyConsistency(n, m, oldRoot, newRoot, proof)).toBe(false);
    // Other sizes: accepted exactly where the RFC's own definition accepts the same hashes.
    for (let otherOld = 1; otherOld <= n + 2; otherOld++) {
      for (const otherNew of [n - 1, n, n + 1, 2 * n]) {
        if ((otherOld === m && otherNew === n) || otherOld >= otherNew) continue;
        expect(verifyConsistency(otherOld, otherNew, oldRoot, newRoot, proof), `${otherOld} → ${otherNew}`).toBe(
          refVerifyConsistency(otherOld, otherNew, oldRoot, newRoot, proof),
        );
      }
    }
  });

  it("fails when the old tree was rewritten (one leaf changed) and the new one built on the rewrite", () => {
    const replacement = sampleLeafHashes(1, "forged-")[0] as Uint8Array;
    for (const [m, n] of CONSISTENCY_CASES) {
      for (let changed = 0; changed < n; changed++) {
        const forged = MerkleLog.from(LEAVES.slice(0, n).map((leaf, i) => (i === changed ? replacement : leaf)));
        const consistent = verifyConsistency(m, n, TREE.rootAt(m), forged.rootAt(n), forged.consistencyProof(m, n));
        // A change past the old size only extends the old tree differently: still consistent.
        expect(consistent, `${m} → ${n}, leaf ${changed} changed`).toBe(changed >= m);
        // Nor does the honest tree's proof join the old root to the forged new root.
        if (changed < m) expect(verifyConsistency(m, n, TREE.rootAt(m), forged.rootAt(n), TREE.consistencyProof(m, n))).toBe(false);
      }
    }
  });

  it("fails when the newest entries were dropped and others written in their place", () => {
    // A client saved the head at 40; the forger cuts the log back to 37 and appends anew up to 50.
    const forged = MerkleLog.from([...LEAVES.slice(0, 37), ...sampleLeafHashes(13, "regrown-")]);
    const check = checkConsistency(40, 50, TREE.rootAt(40), forged.rootAt(50), forged.consistencyProof(40, 50));
    expect(check.valid).toBe(false);
    // Merely cut back: the log is now smaller than the saved head, which no proof can bridge.
    expect(checkConsistency(40, 37, TREE.rootAt(40), TREE.rootAt(37), [])).toEqual({ valid: false, reason: "oldSize 40 is larger than newSize 37" });
  });

  it("treats equal sizes as consistent only with an empty proof and equal roots, and refuses oldSize 0", () => {
    const root = TREE.rootAt(9);
    expect(checkConsistency(9, 9, root, root, [])).toEqual({ valid: true });
    expect(checkConsistency(9, 9, root, TREE.rootAt(8), []).valid).toBe(false);
    expect(checkConsistency(9, 9, root, root, [root]).valid).toBe(false);
    expect(checkConsistency(0, 9, TREE.rootAt(0), root, [])).toEqual({
      valid: false,
      reason: "oldSize is 0: every tree extends the empty tree, so there is nothing to prove",
    });
    expect(checkConsistency(0, 0, TREE.rootAt(0), TREE.rootAt(0), []).valid).toBe(false);
  });
});

describe("malformed input: an invalid proof with a reason, never an exception", () => {
  const leaf = LEAVES[5] as Uint8Array;
  const root = TREE.rootAt(13);
  const proof = TREE.inclusionProof(5, 13);
  const consistency = TREE.consistencyProof(5, 13);

  it.each([
    ["a 31-byte leaf hash", () => checkInclusion(leaf.subarray(1), 5, 13, proof, root), "the leaf hash is not a 32-byte hash"],
    ["a 33-byte root", () => checkInclusion(leaf, 5, 13, proof, new Uint8Array(33)), "the root is not a 32-byte hash"],
    ["a proof hash of 31 bytes", () => checkInclusion(leaf, 5, 13, [...proof.slice(0, -1), new Uint8Array(31)], root), "proof hash 3 is not a 32-byte hash"],
    ["a proof that is not an array", () => checkInclusion(leaf, 5, 13, "abc" as unknown as Uint8Array[], root), "the proof is not an array of hashes"],
    ["a negative index", () => checkInclusion(leaf, -1, 13, proof, root), "leafIndex is not an integer from 0 to 2^53 − 1"],
    ["a fractional index", () => checkInclusion(leaf, 5.5, 13, proof, root), "leafIndex is not an integer from 0 to 2^53 − 1"],
    ["an index of 2^53", () => checkInclusion(leaf, 2 ** 53, 13, proof, root), "leafIndex is not an integer from 0 to 2^53 − 1"],
    ["a NaN size", () => checkInclusion(leaf, 5, Number.NaN, proof, root), "treeSize is not an integer from 0 to 2^53 − 1"],
    ["an infinite size", () => checkInclusion(leaf, 5, Number.POSITIVE_INFINITY, proof, root), "treeSize is not an integer from 0 to 2^53 − 1"],
    ["a size given as a string", () => checkInclusion(leaf, 5, "13" as unknown as number, proof, root), "treeSize is not an integer from 0 to 2^53 − 1"],
    ["an index at the size", () => checkInclusion(leaf, 13, 13, proof, root), "leafIndex 13 is not below treeSize 13"],
    ["one hash too many", () => checkInclusion(leaf, 5, 13, [...proof, root], root), "the proof has more hashes than leaf 5 of a tree of 13 needs"],
    ["one hash too few", () => checkInclusion(leaf, 5, 13, proof.slice(1), root), "the proof has fewer hashes than leaf 5 of a tree of 13 needs"],
    ["a wrong root", () => checkInclusion(leaf, 5, 13, proof, TREE.rootAt(12)), "the proof leads to another root: the leaf, its index or the root is not the one proven"],
    ["a consistency old size of -1", () => checkConsistency(-1, 13, root, root, consistency), "oldSize is not an integer from 0 to 2^53 − 1"],
    ["a consistency new size of 1.5", () => checkConsistency(1, 1.5, root, root, consistency), "newSize is not an integer from 0 to 2^53 − 1"],
    ["a 0-byte old root", () => checkConsistency(5, 13, new Uint8Array(0), root, consistency), "the old root is not a 32-byte hash"],
    ["a new root that is not bytes", () => checkConsistency(5, 13, root, [1, 2] as unknown as Uint8Array, consistency), "the new root is not a 32-byte hash"],
    ["an empty consistency proof", () => checkConsistency(5, 13, TREE.rootAt(5), root, []), "the proof is empty"],
    ["a consistency proof with a hash too many", () => checkConsistency(5, 13, TREE.rootAt(5), root, [...consistency, root]), "the proof has more hashes than a proof from 5 to 13 leaves needs"],
    ["a consistency proof with a hash too few", () => checkConsistency(5, 13, TREE.rootAt(5), root, consistency.slice(0, -1)), "the proof has fewer hashes than a proof from 5 to 13 leaves needs"],
    ["a consistency proof to another new root", () => checkConsistency(5, 13, TREE.rootAt(5), TREE.rootAt(14), consistency), "the proof does not lead to the new root: the new tree does not extend the old one"],
    ["a consistency proof from another old root", () => checkConsistency(5, 13, TREE.rootAt(6), root, consistency), "the proof does not lead to the old root: the old tree is not a prefix of the new one"],
  ])("%s", (_, check, reason) => {
    expect(check()).toEqual({ valid: false, reason });
  });

  it("returns null from rootFromInclusionProof for malformed input", () => {
    expect(rootFromInclusionProof(leaf, 5, 13, proof.slice(1))).toBeNull();
    expect(rootFromInclusionProof(leaf, 13, 13, proof)).toBeNull();
    expect(rootFromInclusionProof(new Uint8Array(2), 5, 13, proof)).toBeNull();
  });

  const anything = fc.anything({ withTypedArray: true, withBigInt: true, withNullPrototype: true, withMap: true, withSet: true });
  const hashLike = fc.oneof(anything, fc.uint8Array({ minLength: 30, maxLength: 34 }));
  const countLike = fc.oneof(anything, fc.integer(), fc.double(), fc.constantFrom(2 ** 53, 2 ** 53 - 1, -0, Number.NaN));
  const proofLike = fc.oneof(anything, fc.array(hashLike, { maxLength: 70 }), fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 70 }));

  fcTest.prop([hashLike, countLike, countLike, proofLike, hashLike], { numRuns: 2_000 })("checkInclusion never throws", (l, i, n, p, r) => {
    const check = checkInclusion(l as Uint8Array, i as number, n as number, p as Uint8Array[], r as Uint8Array);
    expect(check.valid === true || typeof check.reason === "string").toBe(true);
    expect(() => rootFromInclusionProof(l as Uint8Array, i as number, n as number, p as Uint8Array[])).not.toThrow();
  });

  fcTest.prop([countLike, countLike, hashLike, hashLike, proofLike], { numRuns: 2_000 })("checkConsistency never throws", (m, n, a, b, p) => {
    const check = checkConsistency(m as number, n as number, a as Uint8Array, b as Uint8Array, p as Uint8Array[]);
    expect(check.valid === true || typeof check.reason === "string").toBe(true);
  });
});

describe("agreement with the reference verifier on huge trees (sizes up to 2^53 − 1)", () => {
  // No tree that large can be built, but a path can be drawn at random and its root computed by
  // the reference; our verifier, whose index arithmetic must hold past 2^32, has to agree.
  const huge = fc.oneof(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 1, max: 53 }).map((e) => 2 ** e - (e === 53 ? 1 : 0)));
  const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });

  fcTest.prop([huge, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), hash, fc.array(hash, { minLength: 60, maxLength: 60 })], { numRuns: 300 })(
    "inclusion",
    (n, at, leaf, pool) => {
      const m = Math.min(n - 1, Math.floor(at * n));
      const path = pool.slice(0, inclusionNodes(m, n).length);
      const root = refRootFromPath(m, n, leaf, path) as Uint8Array;
      expect(root).not.toBeNull();
      expect(verifyInclusion(leaf, m, n, path, root)).toBe(true);
      if (path.length > 0) expect(verifyInclusion(leaf, m, n, path.slice(1), root)).toBe(false);
      if (m + 1 < n) expect(verifyInclusion(leaf, m + 1, n, path, root)).toBe(refVerifyInclusion(m + 1, n, leaf, path, root));
    },
  );

  fcTest.prop([huge, huge, hash, fc.array(hash, { minLength: 60, maxLength: 60 })], { numRuns: 300 })("consistency", (a, b, seed, pool) => {
    fc.pre(a !== b);
    const [m, n] = a < b ? [a, b] : [b, a];
    const path = pool.slice(0, consistencyNodes(m, n).length);
    const roots = refRootsFromProof(m, n, seed, path);
    expect(roots).not.toBeNull();
    const { old: oldRoot, new: newRoot } = roots as { old: Uint8Array; new: Uint8Array };
    expect(verifyConsistency(m, n, oldRoot, newRoot, path)).toBe(true);
    expect(verifyConsistency(m, n, oldRoot, newRoot, path.slice(0, -1))).toBe(false);
  });
});
