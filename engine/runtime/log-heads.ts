/**
 * A shard log's Merkle tree and its signed heads, as the shard that writes the log keeps them
 * (issue 29; docs/proofs.md). Every entry appended to the log is a leaf; at most every
 * `everyCommands` entries, or once the oldest entry no head covers yet is `everyMs` old, the next
 * batch (or the shard's periodic tick) ends with a head entry (logged-head.ts) signed over every entry before it. Every batch
 * also gets a signed head over the whole log after it — the recorded head when the batch ends with
 * one, else one signed for the batch alone — which each command of the batch carries in its receipt.
 *
 * Only the tree's right edge is kept (CompactRange: log n hashes), in the shard's snapshot too; proofs
 * are built by whoever reads the log.
 */
import { CompactRange } from "../audit/merkle/compact-range.js";
import { NODE_TREE_HASHING } from "./node-tree-hashing.js";
import { headMessage, type SignedHead, type UnsignedHead } from "../audit/heads/signed-head.js";
import { encodeLoggedHead } from "./logged-head.js";

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

/** What a snapshot keeps of the tree: its right edge, and the last recorded head's entry and time. */
export interface LogTreeState {
  readonly size: number;
  readonly roots: readonly Uint8Array[];
  /** Entries up to and including the last head entry (0: no head yet). */
  readonly coveredSize: number;
  readonly lastHeadMs: number;
}

export class LogHeads {
  private readonly tree: CompactRange;
  private coveredSize: number;
  private lastHeadMs: number;
  /** When the oldest entry no head covers was appended (recovery cannot know: the last head's time). */
  private firstUncoveredMs: number;

  constructor(
    private readonly options: LogHeadsOptions,
    state: LogTreeState | undefined,
  ) {
    if (!(Number.isSafeInteger(options.everyCommands) && options.everyCommands >= 1)) throw new RangeError(`everyCommands ${options.everyCommands} is not a positive integer`);
    if (!(Number.isSafeInteger(options.everyMs) && options.everyMs >= 1)) throw new RangeError(`everyMs ${options.everyMs} is not a positive integer`);
    this.tree = state === undefined ? new CompactRange(NODE_TREE_HASHING) : CompactRange.of(state.size, state.roots, NODE_TREE_HASHING);
    this.coveredSize = state?.coveredSize ?? 0;
    this.lastHeadMs = state?.lastHeadMs ?? 0;
    this.firstUncoveredMs = this.lastHeadMs;
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

  /** The head just appended (recorded by this shard, or met by recovery) covers everything before it. */
  recordedAt(head: SignedHead): void {
    this.coveredSize = head.treeSize + 1;
    this.lastHeadMs = head.timeMs;
  }

  /** Entries after the last head entry. */
  get uncovered(): number {
    return this.tree.size - this.coveredSize;
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

  /** A head entry to end the batch with: signed over everything before it, then itself a leaf. */
  recordHead(nowMs: number): { head: SignedHead; payload: Uint8Array } {
    const head = this.sign(nowMs);
    const payload = encodeLoggedHead(head);
    this.tree.append(NODE_TREE_HASHING.leafHash(payload));
    this.recordedAt(head);
    return { head, payload };
  }

  state(): LogTreeState {
    return { size: this.tree.size, roots: this.tree.subtreeRoots(), coveredSize: this.coveredSize, lastHeadMs: this.lastHeadMs };
  }
}
