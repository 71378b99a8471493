/**
 * The one check of a head recorded in a log against the entries before it (docs/proofs.md): it names
 * the log, covers exactly the entries before its own, and its root is theirs. Recovery refuses a log
 * that fails it (ShardCore); an audit reports it (HeadAudit), and with public keys also checks the
 * signature, which recovery need not (the shard signed what it wrote).
 */
import { sameHash } from "../merkle/tree-hash.js";
import type { SignedHead } from "./signed-head.js";

/** A tree over a log's entries as read so far: its size and root. */
export interface TreeSoFar {
  readonly size: number;
  root(): Uint8Array;
}

/** Why the head recorded at entry `sequence` of log `logId` does not fit `tree` (the entries before it), or undefined. */
export function recordedHeadProblem(logId: string, sequence: number, head: SignedHead, tree: TreeSoFar): string | undefined {
  const at = `log ${logId}: the head recorded at entry ${sequence}`;
  if (head.logId !== logId) return `${at} names log ${JSON.stringify(head.logId)}`;
  if (head.treeSize !== sequence - 1 || tree.size !== head.treeSize) return `${at} covers ${head.treeSize} entries, not the ${sequence - 1} before it`;
  if (!sameHash(tree.root(), head.rootHash)) return `${at} has a root hash that is not the entries' before it: the log was changed after that head was signed`;
  return undefined;
}
