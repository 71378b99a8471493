/**
 * Which nodes a proof is made of, from sizes and indexes alone (no hashes): shared by the tree that
 * writes proofs and the decoder that checks a proof has as many hashes as its sizes call for.
 *
 * The tree of RFC 9162 §2.1.1 seen level by level: level 0 holds the leaves, and node (level, i)
 * covers leaves [i·2^level, (i+1)·2^level) cut at the tree size. A node whose range is whole is a
 * perfect subtree; the only others lie on the right border, covering [i·2^level, treeSize). A node
 * whose right sibling would start at or past the tree size has no sibling at that level: its hash
 * moves up unchanged (this is MTH's split at the largest power of two below n, seen bottom up).
 *
 * All arithmetic is on plain numbers up to 2^53 − 1 (Math.floor, ×2), never 32-bit bit operators.
 */

/** One hash of a proof: the node (level, index), whole or on the right border. */
export interface PathNode {
  readonly level: number;
  readonly index: number;
  /** True when the node covers all of its 2^level leaves; false for a right-border node. */
  readonly whole: boolean;
}

/**
 * The siblings on the path from node (level, index) up to the root of a tree of `treeSize` leaves,
 * lowest first: the audit path of RFC 9162's PATH when the start is a leaf (level 0). The start node
 * must exist in that tree (index·2^level < treeSize).
 */
export function pathSiblings(level: number, index: number, treeSize: number): PathNode[] {
  const path: PathNode[] = [];
  let width = 2 ** level;
  let at = index;
  let atLevel = level;
  // A node at least as wide as the tree that exists in it starts at 0: it is the root.
  while (width < treeSize) {
    const sibling = at % 2 === 0 ? at + 1 : at - 1;
    const start = sibling * width;
    if (start < treeSize) path.push({ level: atLevel, index: sibling, whole: start + width <= treeSize });
    at = Math.floor(at / 2);
    width *= 2;
    atLevel += 1;
  }
  return path;
}

/** The nodes of an inclusion proof for leaf `leafIndex` in a tree of `treeSize` (0 ≤ leafIndex < treeSize). */
export function inclusionNodes(leafIndex: number, treeSize: number): PathNode[] {
  return pathSiblings(0, leafIndex, treeSize);
}

/**
 * The nodes of a consistency proof from `oldSize` to `newSize` (0 < oldSize ≤ newSize), in the
 * order of RFC 9162's PROOF(m, D[n]). The proof is the last perfect subtree of the old tree, the
 * node [oldSize − 2^k, oldSize) with 2^k the largest power of two dividing oldSize, followed by its
 * audit path in the new tree; that node is left out when it is the whole old tree (oldSize a power
 * of two), since the verifier holds the old root. Equal sizes need no proof at all.
 */
export function consistencyNodes(oldSize: number, newSize: number): PathNode[] {
  if (oldSize === newSize) return [];
  let level = 0;
  let width = 1;
  while ((oldSize / width) % 2 === 0) {
    width *= 2;
    level += 1;
  }
  const index = oldSize / width - 1;
  const path = pathSiblings(level, index, newSize);
  return index === 0 ? path : [{ level, index, whole: true }, ...path];
}
