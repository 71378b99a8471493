/**
 * What an audit checks of a log's signed heads (issue 29; docs/proofs.md) as it reads the log's entries
 * in order: every head entry covers exactly the entries before it, and its root hash is theirs; with
 * the service's public keys, its signature verifies under the key it names. A log rewritten by someone
 * without the signing key (every chain value, CRC and header recomputed) fails at the first head after
 * the first changed entry, or — if they dropped the heads too — for holding none.
 */
import { CompactRange } from "./merkle/compact-range.js";
import { NODE_TREE_HASHING } from "../runtime/node-tree-hashing.js";
import { verifyHead, type SignedHead } from "./heads/signed-head.js";
import { recordedHeadProblem } from "./heads/recorded-head.js";

export interface HeadAuditReport {
  /** Head entries met and checked. */
  readonly heads: number;
  /** Entries after the last head (not yet covered by a recorded head: a crash can leave some). */
  readonly uncoveredEntries: number;
  /** The first problem, naming the log and the entry. */
  readonly problem?: string;
}

export class HeadAudit {
  private readonly tree = new CompactRange(NODE_TREE_HASHING);
  private heads = 0;
  private lastHeadSize = 0;
  private problem: string | undefined;

  /**
   * `publicKeys`: keyId → raw 32-byte public key; with them, signatures are checked and a log with
   * entries but no head fails. `logId`: what every head of this log must name.
   */
  constructor(
    private readonly logId: string,
    private readonly publicKeys: ReadonlyMap<string, Uint8Array> | undefined,
  ) {}

  /** The entry at `sequence` (1, 2, … in order), and the head it holds if it is a head entry. */
  entry(sequence: number, payload: Uint8Array, head: SignedHead | undefined): void {
    if (head !== undefined && this.problem === undefined) this.check(sequence, head);
    this.tree.append(NODE_TREE_HASHING.leafHash(payload));
  }

  report(): HeadAuditReport {
    const uncoveredEntries = this.tree.size - this.lastHeadSize - (this.heads > 0 ? 1 : 0);
    let problem = this.problem;
    if (problem === undefined && this.publicKeys !== undefined && this.heads === 0 && this.tree.size > 0) {
      problem = `log ${this.logId}: ${this.tree.size} entries and no signed head: nothing in it is signed by the service`;
    }
    return { heads: this.heads, uncoveredEntries: Math.max(0, uncoveredEntries), ...(problem === undefined ? {} : { problem }) };
  }

  private check(sequence: number, head: SignedHead): void {
    this.problem = recordedHeadProblem(this.logId, sequence, head, this.tree);
    if (this.problem === undefined && this.publicKeys !== undefined) {
      const at = `log ${this.logId}: the head recorded at entry ${sequence}`;
      const key = this.publicKeys.get(head.keyId);
      if (key === undefined) this.problem = `${at} is signed with key ${head.keyId}, which is not among the public keys given`;
      else if (!verifyHead(head, key)) this.problem = `${at} has a signature that does not verify with key ${head.keyId}`;
    }
    if (this.problem !== undefined) return;
    this.heads += 1;
    this.lastHeadSize = head.treeSize;
  }
}
