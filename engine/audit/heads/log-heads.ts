/**
 * A shard log's Merkle tree and its signed heads, as the shard that writes the log keeps them
 * (issue 29; docs/proofs.md). Every entry appended to the log is a leaf; at most every
 * `everyCommands` entries, or once the oldest entry no head covers yet is `everyMs` old, the next
 * batch (or the shard's periodic tick) ends with a head entry (engine/log/logged-head.ts) signed over every entry before it. Every batch
 * also gets a signed head over the whole log after it — the recorded head when the batch ends with
 * one, else one signed for the batch alone — which each command of the batch carries in its receipt.
 *
 * Only the tree's right edge is kept (CompactRange: log n hashes), and the edge as of the last head for
 * the shard's snapshot; proofs are built by whoever reads the log.
 */
import { CompactRange } from "../merkle/compact-range.js";
import { NODE_TREE_HASHING } from "../node-tree-hashing.js";
import { headMessage, type SignedHead, type UnsignedHead } from "@market-service/client/audit";
import { encodeLoggedHead } from "../../log/logged-head.js";

/** Signs head messages with the service's audit key (the key itself never reaches this code's callers). */
export interface HeadSigner {
  readonly keyId: string;
  sign(message: Uint8Array): Uint8Array;
}

export interface LogHeadsOptions {
  /** `shard-<n>`, or `partition-<p>` in a cluster. */
  readonly logId: string;
  readonly signer: HeadSigner;
  /** Record a head once this many entries were appended since the last one. */
  readonly everyCommands: number;
  /** Record a head once the oldest entry appended since the last one is this old. */
  readonly everyMs: number;
}

/**
 * What a snapshot keeps of the tree: the last recorded head, the entry that holds it, and the tree's
 * right edge just before that entry (at `head.treeSize`). Recovery trusts it only once the head's
 * signature verifies and the edge's root is the head's (ShardCore.open): whoever edits a snapshot
 * cannot sign, so the tree the shard goes on signing always extends a tree the service signed.
 */
export interface LogTreeAnchor {
  readonly headEntry: number;
  readonly head: SignedHead;
  readonly roots: readonly Uint8Array[];
}

export class LogHeads {
  private readonly tree: CompactRange;
  private coveredSize: number;
  private lastHeadMs: number;
  /** When the oldest entry no head covers was appended (recovery cannot know: the last head's time). */
  private firstUncoveredMs: number;
  private anchor: LogTreeAnchor | undefined;

  /** `anchor`: a snapshot's, checked by the caller; the entry holding its head is read (appended) next. */
  constructor(
    private readonly options: LogHeadsOptions,
    anchor: LogTreeAnchor | undefined,
  ) {
    if (!(Number.isSafeInteger(options.everyCommands) && options.everyCommands >= 1)) throw new RangeError(`everyCommands ${options.everyCommands} is not a positive integer`);
    if (!(Number.isSafeInteger(options.everyMs) && options.everyMs >= 1)) throw new RangeError(`everyMs ${options.everyMs} is not a positive integer`);
    this.tree = anchor === undefined ? new CompactRange(NODE_TREE_HASHING) : CompactRange.of(anchor.head.treeSize, anchor.roots, NODE_TREE_HASHING);
    this.coveredSize = this.tree.size;
    this.lastHeadMs = anchor?.head.timeMs ?? 0;
    this.firstUncoveredMs = this.lastHeadMs;
    this.anchor = anchor;
  }

  get logId(): string {
    return this.options.logId;
  }

  /** Entries the tree covers. */
  get size(): number {
    return this.tree.size;
  }

  /** The root hash over every entry so far. */
  root(): Uint8Array {
    return this.tree.root();
  }

  /** One more entry of the log, in order, appended at `nowMs` (recovery: undefined, not known). */
  append(payload: Uint8Array, nowMs?: number): void {
    if (this.uncovered === 0) this.firstUncoveredMs = nowMs ?? this.lastHeadMs;
    this.tree.append(NODE_TREE_HASHING.leafHash(payload));
  }

  /**
   * The head about to be appended (recorded by this shard, or met by recovery) covers everything
   * before it: call before appending the head's own entry, while the tree is at `head.treeSize`.
   */
  recordedAt(head: SignedHead): void {
    this.coveredSize = head.treeSize + 1;
    this.lastHeadMs = head.timeMs;
    this.anchor = { headEntry: head.treeSize + 1, head, roots: this.tree.subtreeRoots() };
  }

  /** Entries after the last head entry. */
  get uncovered(): number {
    return this.tree.size - this.coveredSize;
  }

  /** Whether the entries no head covers are as many as a head is recorded after (a head goes in now, even inside a batch). */
  get full(): boolean {
    return this.uncovered >= this.options.everyCommands;
  }

  /** Whether the batch being committed at `nowMs` ends with a recorded head. */
  due(nowMs: number): boolean {
    const uncovered = this.uncovered;
    return uncovered >= this.options.everyCommands || (uncovered > 0 && nowMs - this.firstUncoveredMs >= this.options.everyMs);
  }

  /** A head over every entry so far, signed at `nowMs`. */
  sign(nowMs: number): SignedHead {
    const unsigned: UnsignedHead = { logId: this.options.logId, treeSize: this.tree.size, rootHash: this.tree.root(), timeMs: nowMs };
    return { ...unsigned, keyId: this.options.signer.keyId, signature: this.options.signer.sign(headMessage(unsigned)) };
  }

  /**
   * A head entry to append: signed over everything before it, then itself a leaf. `acceptedFrom`: the
   * first entry of an unsigned tail an operator accepted at start (engine/log/logged-head.ts).
   */
  recordHead(nowMs: number, acceptedFrom?: number): { head: SignedHead; payload: Uint8Array } {
    const head = this.sign(nowMs);
    const payload = encodeLoggedHead(head, acceptedFrom);
    this.recordedAt(head);
    this.tree.append(NODE_TREE_HASHING.leafHash(payload));
    return { head, payload };
  }

  /** What a snapshot keeps (undefined until a head was recorded or met). */
  state(): LogTreeAnchor | undefined {
    return this.anchor;
  }
}
