/**
 * Verifying RFC 9162 proofs with nothing but hashes: the algorithms of §2.1.3.2 (inclusion) and
 * §2.1.4.2 (consistency), step by step (the comments number the RFC's steps).
 *
 * These functions take whatever an outsider hands them and never throw: a value of the wrong type
 * or length, a size or index that is not an integer from 0 to 2^53 − 1 or is out of range, too many
 * or too few proof hashes, all make the proof invalid. `check…` says why in a plain sentence;
 * `verify…` is the same check as a boolean.
 *
 * What a valid proof shows and what it does not: the leaf (or old root) is bound to the given root
 * under the given size and index. The sizes themselves are bound by the signed head that carries
 * the root; the proof alone does not pin them (a proof for leaf 0 of 8 also verifies as leaf 0 of
 * 7 against the same root: every hash on that path is a right sibling either way). Take sizes from
 * a signed head, never from the proof.
 *
 * Pure JavaScript (no Node API): the SDK runs this in browsers.
 */
import { HASH_BYTES, isHash, nodeHash, sameHash } from "./tree-hash.js";

/** The outcome of a check: valid, or invalid with the reason in a sentence. */
export type ProofCheck = { readonly valid: true } | { readonly valid: false; readonly reason: string };

const VALID: ProofCheck = { valid: true };
const invalid = (reason: string): ProofCheck => ({ valid: false, reason });

/** A tree size or index: an integer from 0 to 2^53 − 1 (JSON's exact integers). */
function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Why `proof` is not an array of 32-byte hashes, or undefined when it is. */
function proofShapeProblem(proof: unknown): string | undefined {
  if (!Array.isArray(proof)) return "the proof is not an array of hashes";
  for (let i = 0; i < proof.length; i++) {
    if (!isHash(proof[i])) return `proof hash ${i} is not a ${HASH_BYTES}-byte hash`;
  }
  return undefined;
}

const isOdd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

/**
 * The root that `proof` leads to from leaf `leafIndex` (hash `leafHash`) in a tree of `treeSize`
 * leaves, by RFC 9162 §2.1.3.2 steps 1–4 and the sn check of step 5; null when the inputs are
 * malformed or the proof has the wrong number of hashes for that index and size.
 */
export function rootFromInclusionProof(leafHash: Uint8Array, leafIndex: number, treeSize: number, proof: readonly Uint8Array[]): Uint8Array | null {
  const result = walkInclusion(leafHash, leafIndex, treeSize, proof);
  return typeof result === "string" ? null : result;
}

/** Returns the computed root, or why none could be computed. */
function walkInclusion(leafHash: unknown, leafIndex: unknown, treeSize: unknown, proof: unknown): Uint8Array | string {
  if (!isHash(leafHash)) return `the leaf hash is not a ${HASH_BYTES}-byte hash`;
  if (!isCount(leafIndex)) return "leafIndex is not an integer from 0 to 2^53 − 1";
  if (!isCount(treeSize)) return "treeSize is not an integer from 0 to 2^53 − 1";
  const shape = proofShapeProblem(proof);
  if (shape !== undefined) return shape;
  const path = proof as readonly Uint8Array[];
  // 1. leaf_index ≥ tree_size fails.
  if (leafIndex >= treeSize) return `leafIndex ${leafIndex} is not below treeSize ${treeSize}`;
  // 2. fn = leaf_index, sn = tree_size − 1.
  let fn = leafIndex;
  let sn = treeSize - 1;
  // 3. r = hash.
  let r: Uint8Array = leafHash;
  // 4. For each p in inclusion_path:
  for (const p of path) {
    // a. sn = 0: fail.
    if (sn === 0) return `the proof has more hashes than leaf ${leafIndex} of a tree of ${treeSize} needs`;
    // b. LSB(fn) set, or fn = sn:
    if (isOdd(fn) || fn === sn) {
      // i. r = HASH(0x01 ‖ p ‖ r)
      r = nodeHash(p, r);
      // ii. if LSB(fn) is not set, right-shift fn and sn until LSB(fn) is set or fn is 0.
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      // Otherwise: r = HASH(0x01 ‖ r ‖ p)
      r = nodeHash(r, p);
    }
    // c. right-shift fn and sn once.
    fn = half(fn);
    sn = half(sn);
  }
  // 5. sn must be 0 (the root comparison is the caller's).
  if (sn !== 0) return `the proof has fewer hashes than leaf ${leafIndex} of a tree of ${treeSize} needs`;
  return r;
}

/** Whether `proof` proves that `leafHash` is leaf `leafIndex` of the tree of `treeSize` leaves with root `root`. */
export function checkInclusion(leafHash: Uint8Array, leafIndex: number, treeSize: number, proof: readonly Uint8Array[], root: Uint8Array): ProofCheck {
  if (!isHash(root)) return invalid(`the root is not a ${HASH_BYTES}-byte hash`);
  const computed = walkInclusion(leafHash, leafIndex, treeSize, proof);
  if (typeof computed === "string") return invalid(computed);
  // 5. r must equal root_hash.
  return sameHash(computed, root) ? VALID : invalid("the proof leads to another root: the leaf, its index or the root is not the one proven");
}

/** checkInclusion as a boolean. */
export function verifyInclusion(leafHash: Uint8Array, leafIndex: number, treeSize: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  return checkInclusion(leafHash, leafIndex, treeSize, proof, root).valid;
}

/**
 * Whether `proof` proves that the tree of `oldSize` leaves with root `oldRoot` is a prefix of the
 * tree of `newSize` leaves with root `newRoot`. RFC 9162 §2.1.4.2 covers 0 < oldSize < newSize;
 * beyond it: equal sizes are consistent when the proof is empty and the roots are equal, and a
 * proof from the empty tree (oldSize 0) is refused, because it would prove nothing.
 */
export function checkConsistency(oldSize: number, newSize: number, oldRoot: Uint8Array, newRoot: Uint8Array, proof: readonly Uint8Array[]): ProofCheck {
  if (!isCount(oldSize)) return invalid("oldSize is not an integer from 0 to 2^53 − 1");
  if (!isCount(newSize)) return invalid("newSize is not an integer from 0 to 2^53 − 1");
  if (!isHash(oldRoot)) return invalid(`the old root is not a ${HASH_BYTES}-byte hash`);
  if (!isHash(newRoot)) return invalid(`the new root is not a ${HASH_BYTES}-byte hash`);
  const shape = proofShapeProblem(proof);
  if (shape !== undefined) return invalid(shape);
  if (oldSize === 0) return invalid("oldSize is 0: every tree extends the empty tree, so there is nothing to prove");
  if (oldSize > newSize) return invalid(`oldSize ${oldSize} is larger than newSize ${newSize}`);
  if (oldSize === newSize) {
    if (proof.length !== 0) return invalid("the sizes are equal, so the proof must be empty");
    return sameHash(oldRoot, newRoot) ? VALID : invalid("the sizes are equal but the roots differ");
  }
  // 1. An empty consistency_path fails.
  if (proof.length === 0) return invalid("the proof is empty");
  // 2. If first is an exact power of 2, prepend first_hash.
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : proof;
  // 3. fn = first − 1, sn = second − 1.
  let fn = oldSize - 1;
  let sn = newSize - 1;
  // 4. While LSB(fn) is set, right-shift fn and sn.
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  // 5. fr = sr = the first value of the path.
  let fr = path[0] as Uint8Array;
  let sr = fr;
  // 6. For each subsequent value c:
  for (let i = 1; i < path.length; i++) {
    const c = path[i] as Uint8Array;
    // a. sn = 0: fail.
    if (sn === 0) return invalid(`the proof has more hashes than a proof from ${oldSize} to ${newSize} leaves needs`);
    // b. LSB(fn) set, or fn = sn:
    if (isOdd(fn) || fn === sn) {
      // i. fr = HASH(0x01 ‖ c ‖ fr); ii. sr = HASH(0x01 ‖ c ‖ sr)
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      // iii. if LSB(fn) is not set, right-shift fn and sn until LSB(fn) is set or fn is 0.
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      // Otherwise: sr = HASH(0x01 ‖ sr ‖ c)
      sr = nodeHash(sr, c);
    }
    // c. right-shift fn and sn once.
    fn = half(fn);
    sn = half(sn);
  }
  // 7. fr = first_hash, sr = second_hash, sn = 0.
  if (sn !== 0) return invalid(`the proof has fewer hashes than a proof from ${oldSize} to ${newSize} leaves needs`);
  if (!sameHash(fr, oldRoot)) return invalid("the proof does not lead to the old root: the old tree is not a prefix of the new one");
  if (!sameHash(sr, newRoot)) return invalid("the proof does not lead to the new root: the new tree does not extend the old one");
  return VALID;
}

/** checkConsistency as a boolean. */
export function verifyConsistency(oldSize: number, newSize: number, oldRoot: Uint8Array, newRoot: Uint8Array, proof: readonly Uint8Array[]): boolean {
  return checkConsistency(oldSize, newSize, oldRoot, newRoot, proof).valid;
}

function isPowerOfTwo(n: number): boolean {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
}
