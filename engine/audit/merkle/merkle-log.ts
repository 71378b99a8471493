/**
 * An append-only RFC 9162 Merkle tree over a log's leaf hashes (leaf index = entry sequence − 1),
 * answering for the current size and for every earlier one: the root (MTH), inclusion proofs
 * (PATH, §2.1.3.1) and consistency proofs (PROOF, §2.1.4.1).
 *
 * Kept as every aligned perfect subtree, level by level: level 0 holds the leaf hashes, level k the
 * hash of each whole block of 2^k leaves [i·2^k, (i+1)·2^k). A tree of n leaves keeps fewer than 2n
 * hashes (about 64 bytes a leaf) and an append computes one node hash on average. Every node of
 * the tree at any size m ≤ n is either such a block (a lookup) or on m's right border, whose hash
 * folds the at most log2(m) blocks m splits into; so a root or a proof costs O(log n) lookups and
 * hashes (a proof crosses the border at most once).
 *
 * Pure JavaScript (no Node API): it runs wherever the verifier does.
 */
import { HashColumn } from "./hash-column.js";
import { consistencyNodes, emptyTreeHash, HASH_BYTES, inclusionNodes, type PathNode, TREE_HASHING, type TreeHashing } from "@market-service/client/audit";

export class MerkleLog {
  /** levels[k] holds floor(size / 2^k) hashes: the whole blocks of 2^k leaves. */
  private readonly levels: HashColumn[] = [new HashColumn()];

  /** `hashing`: which SHA-256 computes the node hashes (the same bytes whichever; as CompactRange). */
  constructor(private readonly hashing: TreeHashing = TREE_HASHING) {}

  /** A tree over these leaf hashes, in order (what recovery rebuilds from reading the log). */
  static from(leafHashes: Iterable<Uint8Array>, hashing: TreeHashing = TREE_HASHING): MerkleLog {
    const log = new MerkleLog(hashing);
    for (const hash of leafHashes) log.append(hash);
    return log;
  }

  /** The number of leaves. */
  get size(): number {
    return (this.levels[0] as HashColumn).length;
  }

  /** Bytes allocated for the stored hashes (for memory accounting). */
  get allocatedBytes(): number {
    let bytes = 0;
    for (const level of this.levels) bytes += level.allocatedBytes;
    return bytes;
  }

  /** Appends one leaf hash (32 bytes, copied) and returns its leaf index. */
  append(leafHash: Uint8Array): number {
    if (!(leafHash instanceof Uint8Array)) throw new TypeError("leafHash must be a Uint8Array");
    if (leafHash.length !== HASH_BYTES) throw new RangeError(`leafHash must be ${HASH_BYTES} bytes; got ${leafHash.length}`);
    const leafIndex = this.size;
    (this.levels[0] as HashColumn).append(leafHash);
    // Each time a level's count becomes even, its last two hashes complete a block one level up.
    let level = 0;
    let column = this.levels[0] as HashColumn;
    while (column.length % 2 === 0) {
      const parent = this.hashing.nodeHash(column.view(column.length - 2), column.view(column.length - 1));
      let above = this.levels[level + 1];
      if (above === undefined) {
        above = new HashColumn();
        this.levels.push(above);
      }
      above.append(parent);
      column = above;
      level += 1;
    }
    return leafIndex;
  }

  /** The hash of leaf `leafIndex` (0 ≤ leafIndex < size), a copy. */
  leafHashAt(leafIndex: number): Uint8Array {
    requireInteger("leafIndex", leafIndex, 0, this.size - 1, `the tree holds ${this.size} leaves`);
    return (this.levels[0] as HashColumn).view(leafIndex).slice();
  }

  /** MTH of all leaves; SHA-256 of the empty string for the empty tree. */
  root(): Uint8Array {
    return this.rootAt(this.size);
  }

  /** MTH of the first `treeSize` leaves (0 ≤ treeSize ≤ size): the root the tree had at that size. */
  rootAt(treeSize: number): Uint8Array {
    requireInteger("treeSize", treeSize, 0, this.size, `the tree holds ${this.size} leaves`);
    if (treeSize === 0) return emptyTreeHash();
    return this.borderHash(0, treeSize);
  }

  /**
   * The audit path of leaf `leafIndex` in the tree of the first `treeSize` leaves
   * (0 ≤ leafIndex < treeSize ≤ size), lowest node first: RFC 9162 PATH(leafIndex, D[treeSize]).
   */
  inclusionProof(leafIndex: number, treeSize: number = this.size): Uint8Array[] {
    requireInteger("treeSize", treeSize, 1, this.size, `the tree holds ${this.size} leaves`);
    requireInteger("leafIndex", leafIndex, 0, treeSize - 1, `the proof is for a tree of ${treeSize} leaves`);
    return this.hashes(inclusionNodes(leafIndex, treeSize), treeSize);
  }

  /**
   * The proof that the tree of the first `oldSize` leaves is a prefix of the tree of the first
   * `newSize` (1 ≤ oldSize ≤ newSize ≤ size): RFC 9162 PROOF(oldSize, D[newSize]); empty when the
   * sizes are equal. A proof from the empty tree is refused: it would prove nothing (any tree
   * extends the empty one), and verifyConsistency accepts none.
   */
  consistencyProof(oldSize: number, newSize: number = this.size): Uint8Array[] {
    requireInteger("newSize", newSize, 1, this.size, `the tree holds ${this.size} leaves`);
    requireInteger("oldSize", oldSize, 1, newSize, `a consistency proof goes from a non-empty tree to one at least as large (newSize ${newSize})`);
    return this.hashes(consistencyNodes(oldSize, newSize), newSize);
  }

  private hashes(nodes: readonly PathNode[], treeSize: number): Uint8Array[] {
    return nodes.map((node) =>
      node.whole ? this.block(node.level, node.index).slice() : this.borderHash(node.index * 2 ** node.level, treeSize),
    );
  }

  /** The stored hash of the whole block (level, index): a view, not to be handed out. */
  private block(level: number, index: number): Uint8Array {
    return (this.levels[level] as HashColumn).view(index);
  }

  /**
   * MTH of leaves [start, end) where start is a multiple of a power of two at least end − start
   * (the whole tree, or a node on its right border): the blocks of end − start's binary digits,
   * largest first, folded from the right.
   */
  private borderHash(start: number, end: number): Uint8Array {
    let hash: Uint8Array | undefined;
    let blockEnd = end;
    let remaining = end - start;
    let width = 1;
    let level = 0;
    while (remaining > 0) {
      if (remaining % (2 * width) !== 0) {
        const block = this.block(level, (blockEnd - width) / width);
        hash = hash === undefined ? block.slice() : this.hashing.nodeHash(block, hash);
        blockEnd -= width;
        remaining -= width;
      }
      width *= 2;
      level += 1;
    }
    return hash as Uint8Array;
  }
}

/** Throws a RangeError naming the argument unless `value` is an integer in [min, max]. */
function requireInteger(name: string, value: number, min: number, max: number, context: string): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max < min ? "no value is valid" : `it must be an integer from ${min} to ${max}`;
    throw new RangeError(`${name} ${String(value)} is out of range: ${range} (${context})`);
  }
}
