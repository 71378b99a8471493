/**
 * The one check of a head recorded in a log against the entries before it (docs/proofs.md): it names
 * the log, covers exactly the entries before its own, its root is theirs, and its signature verifies
 * under the key its `keyId` names in the service's key history. Recovery refuses a log that fails it
 * (ShardCore); an audit reports it (HeadAudit: `verify`, and with `--public-key` the signature too).
 * A head is "verified" once it passes.
 */
import { sameHash, type SignedHead } from "@market-service/client/audit";
import type { HeadKeys } from "../signing/head-keys.js";

/** A tree over a log's entries as read so far: its size and root. */
export interface TreeSoFar {
  readonly size: number;
  root(): Uint8Array;
}

/**
 * Why the head recorded at entry `sequence` of log `logId` does not fit `tree` (the entries before
 * it), or its signature does not verify under `keys`; undefined when it holds. Without keys only the
 * root and the size are checked.
 */
export function recordedHeadProblem(logId: string, sequence: number, head: SignedHead, tree: TreeSoFar, keys: HeadKeys | undefined): string | undefined {
  const at = `log ${logId}: the head recorded at entry ${sequence}`;
  if (head.logId !== logId) return `${at} names log ${JSON.stringify(head.logId)}`;
  if (head.treeSize !== sequence - 1 || tree.size !== head.treeSize) return `${at} covers ${head.treeSize} entries, not the ${sequence - 1} before it`;
  if (!sameHash(tree.root(), head.rootHash)) return `${at} has a root hash that is not the entries' before it: the log was changed after that head was signed`;
  const signature = keys?.signatureProblem(head);
  return signature === undefined ? undefined : `${at} ${signature}`;
}
