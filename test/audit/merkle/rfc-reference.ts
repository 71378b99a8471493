/**
 * A second, minimal Merkle tree and verifier, written straight from the recursive definitions of
 * RFC 9162 §2.1 and nothing else, for the tests to hold engine/audit/merkle against:
 *
 *   MTH({}) = SHA-256()      MTH({d0}) = SHA-256(0x00 ‖ d0)
 *   MTH(D[n]) = SHA-256(0x01 ‖ MTH(D[0:k]) ‖ MTH(D[k:n])), k the largest power of two < n
 *
 *   PATH(0, D[1]) = {}
 *   PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n])        for m < k
 *                 = PATH(m − k, D[k:n]) : MTH(D[0:k])    for m ≥ k
 *
 *   PROOF(m, D[n]) = SUBPROOF(m, D[n], true)
 *   SUBPROOF(m, D[m], true) = {}        SUBPROOF(m, D[m], false) = {MTH(D[m])}
 *   SUBPROOF(m, D[n], b) = SUBPROOF(m, D[0:k], b) : MTH(D[k:n])          for m ≤ k
 *                        = SUBPROOF(m − k, D[k:n], false) : MTH(D[0:k])  for m > k
 *
 * The verifiers undo these recursions (the last hash of a path is the top split's other half)
 * instead of running the RFC's iterative algorithms of §2.1.3.2 and §2.1.4.2, which is what the
 * code under test does: two different roads to the same roots. SHA-256 here is node:crypto's, not
 * the @noble/hashes the code under test uses. Leaves are given as leaf hashes (MTH({d}) of each
 * entry). MTH of a range is memoized: the definition is the same, the tests just run faster.
 */
import { createHash } from "node:crypto";

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

export const refLeafHash = (data: Uint8Array): Uint8Array => sha256(Uint8Array.of(0x00), data);
export const refNodeHash = (left: Uint8Array, right: Uint8Array): Uint8Array => sha256(Uint8Array.of(0x01), left, right);

/** The largest power of two smaller than n (n > 1). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export class RfcTree {
  private readonly memo = new Map<string, Uint8Array>();

  constructor(private readonly leafHashes: readonly Uint8Array[]) {}

  /** MTH(D[lo:hi]). */
  mth(lo: number, hi: number): Uint8Array {
    const n = hi - lo;
    if (n === 0) return sha256();
    if (n === 1) return this.leafHashes[lo] as Uint8Array;
    const key = `${lo}:${hi}`;
    let hash = this.memo.get(key);
    if (hash === undefined) {
      const k = splitPoint(n);
      hash = refNodeHash(this.mth(lo, lo + k), this.mth(lo + k, hi));
      this.memo.set(key, hash);
    }
    return hash;
  }

  /** PATH(m, D[lo:hi]), m relative to lo. */
  path(m: number, lo: number, hi: number): Uint8Array[] {
    const n = hi - lo;
    if (n === 1) return [];
    const k = splitPoint(n);
    return m < k ? [...this.path(m, lo, lo + k), this.mth(lo + k, hi)] : [...this.path(m - k, lo + k, hi), this.mth(lo, lo + k)];
  }

  /** PROOF(m, D[n]). */
  proof(m: number, n: number): Uint8Array[] {
    return this.subproof(m, 0, n, true);
  }

  private subproof(m: number, lo: number, hi: number, b: boolean): Uint8Array[] {
    const n = hi - lo;
    if (m === n) return b ? [] : [this.mth(lo, hi)];
    const k = splitPoint(n);
    return m <= k ? [...this.subproof(m, lo, lo + k, b), this.mth(lo + k, hi)] : [...this.subproof(m - k, lo + k, hi, false), this.mth(lo, lo + k)];
  }
}

/** The root PATH(m, D[n]) leads to from `leafHash`, undoing PATH's recursion; null if the path has the wrong length. */
export function refRootFromPath(m: number, n: number, leafHash: Uint8Array, path: readonly Uint8Array[]): Uint8Array | null {
  if (n === 1) return path.length === 0 ? leafHash : null;
  if (path.length === 0) return null;
  const k = splitPoint(n);
  const last = path[path.length - 1] as Uint8Array;
  const rest = path.slice(0, -1);
  if (m < k) {
    const left = refRootFromPath(m, k, leafHash, rest);
    return left === null ? null : refNodeHash(left, last);
  }
  const right = refRootFromPath(m - k, n - k, leafHash, rest);
  return right === null ? null : refNodeHash(last, right);
}

/** The direction of each hash of PATH(m, D[n]), lowest first: "L" when it is a left sibling. */
export function refPathDirections(m: number, n: number): string {
  if (n === 1) return "";
  const k = splitPoint(n);
  return m < k ? `${refPathDirections(m, k)}R` : `${refPathDirections(m - k, n - k)}L`;
}

/**
 * The old and new roots PROOF(m, D[n]) leads to, undoing SUBPROOF's recursion; `oldRoot` stands for
 * the subtree SUBPROOF(m, D[m], true) leaves out (the whole old tree). Null if the path has the
 * wrong length.
 */
export function refRootsFromProof(m: number, n: number, oldRoot: Uint8Array, path: readonly Uint8Array[]): { old: Uint8Array; new: Uint8Array } | null {
  const walk = (m: number, n: number, b: boolean, path: readonly Uint8Array[]): { old: Uint8Array; new: Uint8Array } | null => {
    if (m === n) {
      if (b) return path.length === 0 ? { old: oldRoot, new: oldRoot } : null;
      return path.length === 1 ? { old: path[0] as Uint8Array, new: path[0] as Uint8Array } : null;
    }
    if (path.length === 0) return null;
    const k = splitPoint(n);
    const last = path[path.length - 1] as Uint8Array;
    const rest = path.slice(0, -1);
    if (m <= k) {
      const left = walk(m, k, b, rest);
      return left === null ? null : { old: left.old, new: refNodeHash(left.new, last) };
    }
    const right = walk(m - k, n - k, false, rest);
    return right === null ? null : { old: refNodeHash(last, right.old), new: refNodeHash(last, right.new) };
  };
  return walk(m, n, true, path);
}

/** Whether the reference accepts `path` as PROOF(m, D[n]) between these roots (defined for 0 < m < n only). */
export function refVerifyConsistency(m: number, n: number, oldRoot: Uint8Array, newRoot: Uint8Array, path: readonly Uint8Array[]): boolean {
  if (!(0 < m && m < n)) return false;
  const roots = refRootsFromProof(m, n, oldRoot, path);
  return roots !== null && equalBytes(roots.old, oldRoot) && equalBytes(roots.new, newRoot);
}

/** Whether the reference accepts `path` as PATH(m, D[n]) of `leafHash` under `root` (defined for 0 ≤ m < n only). */
export function refVerifyInclusion(m: number, n: number, leafHash: Uint8Array, path: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!(0 <= m && m < n)) return false;
  const computed = refRootFromPath(m, n, leafHash, path);
  return computed !== null && equalBytes(computed, root);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** Distinct, reproducible leaf hashes: the leaf hash of each index's decimal text. */
export function sampleLeafHashes(count: number, salt = ""): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => refLeafHash(new TextEncoder().encode(`${salt}leaf-${i}`)));
}
