/**
 * The right edge of an append-only Merkle tree (RFC 9162 §2.1.1): the roots of the perfect subtrees
 * the tree's leaves split into, one per set bit of its size, largest first. Enough to append and to
 * compute the tree's root in O(log n) hashes and memory — what a log's writer keeps to sign a head per
 * batch without holding every leaf hash (proofs are built by whoever reads the log: merkle-log.ts).
 */
import { HASH_BYTES, TREE_HASHING, emptyTreeHash, type TreeHashing } from "@market-service/client/audit";


export class CompactRange {
  private sizeLeaves = 0;
  /** One hash per set bit of `sizeLeaves`, the largest subtree first. */
  private readonly roots: Uint8Array[] = [];

  /** `hashing`: which SHA-256 computes the node hashes (the same bytes whichever). */
  constructor(private readonly hashing: TreeHashing = TREE_HASHING) {}

  /** A range at `size` with the given subtree roots (largest first), as `subtreeRoots` gave them. */
  static of(size: number, roots: readonly Uint8Array[], hashing: TreeHashing = TREE_HASHING): CompactRange {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`compact range size ${size} is not a non-negative safe integer`);
    const expected = popCount(size);
    if (roots.length !== expected) throw new RangeError(`a compact range of size ${size} has ${expected} subtree roots, not ${roots.length}`);
    for (const root of roots) if (root.length !== HASH_BYTES) throw new RangeError(`a subtree root is ${root.length} bytes, not ${HASH_BYTES}`);
    const range = new CompactRange(hashing);
    range.sizeLeaves = size;
    range.roots.push(...roots.map((root) => root.slice()));
    return range;
  }

  get size(): number {
    return this.sizeLeaves;
  }

  /** The subtree roots, largest first (copies). */
  subtreeRoots(): Uint8Array[] {
    return this.roots.map((root) => root.slice());
  }

  /** Appends one leaf by its leaf hash (`leafHash` of the entry's bytes). */
  append(leafHash: Uint8Array): void {
    if (leafHash.length !== HASH_BYTES) throw new RangeError(`a leaf hash is ${leafHash.length} bytes, not ${HASH_BYTES}`);
    if (this.sizeLeaves >= Number.MAX_SAFE_INTEGER) throw new RangeError("compact range is full");
    let merged: Uint8Array = leafHash.slice();
    // Each trailing set bit of the old size is a subtree as large as the one being carried: merge.
    for (let size = this.sizeLeaves; size % 2 === 1; size = Math.floor(size / 2)) {
      merged = this.hashing.nodeHash(this.roots.pop() as Uint8Array, merged);
    }
    this.roots.push(merged);
    this.sizeLeaves += 1;
  }

  /** The Merkle tree hash of every leaf appended (RFC 9162's MTH). */
  root(): Uint8Array {
    if (this.roots.length === 0) return emptyTreeHash();
    let hash = this.roots[this.roots.length - 1] as Uint8Array;
    for (let i = this.roots.length - 2; i >= 0; i -= 1) hash = this.hashing.nodeHash(this.roots[i] as Uint8Array, hash);
    return hash;
  }
}

/** Set bits of a safe integer (above 2^32 too, where `>>>` would not do). */
function popCount(value: number): number {
  let count = 0;
  for (let rest = value; rest > 0; rest = Math.floor(rest / 2)) count += rest % 2;
  return count;
}
