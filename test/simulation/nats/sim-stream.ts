/**
 * A JetStream stream on the simulated servers: messages numbered from 1, a message id remembered
 * for the duplicate window (a publish with a known id is answered with the original's sequence and
 * stored no second time), an expected last sequence checked against every proposal made so far, and
 * a message visible (to reads, consumers, the stream's state) only once a quorum stored it. A leader
 * election loses the proposals no quorum has yet, from the first such one on.
 */
import { MessagingError } from "../../../engine/messaging/messaging-error.js";
import type { PublishAck, StoredMessage, StreamConfig, StreamInfo } from "../../../engine/messaging/streams.js";
import { RaftGroup } from "./raft-group.js";

/** JetStream's default duplicate window. */
export const DUPLICATE_WINDOW_MS = 120_000;

export interface CommittedMessage extends StoredMessage {
  /** When a quorum had it (an acknowledgement can leave no earlier). */
  readonly committedAtMs: number;
}

interface Proposal {
  readonly sequence: number;
  readonly data: Uint8Array;
  readonly msgId: string;
  readonly term: number;
  /** Called once the proposal is committed (its acknowledgement leaves then), never if it is lost. */
  readonly onCommit: (message: CommittedMessage) => void;
}

/** Who hears of every committed message (ordered consumers). */
export interface StreamListener {
  committed(message: CommittedMessage): void;
}

export type ProposalOutcome =
  | { readonly kind: "duplicate"; readonly ack: PublishAck }
  | { readonly kind: "refused"; readonly error: MessagingError }
  | { readonly kind: "proposed"; readonly sequence: number };

export class SimStream {
  readonly group: RaftGroup;
  readonly messages: CommittedMessage[] = [];
  private bytes = 0;
  private readonly pending: Proposal[] = [];
  /** Message id → sequence and when it was stored (pending ones included). */
  private readonly ids = new Map<string, { sequence: number; atMs: number }>();
  readonly listeners = new Set<StreamListener>();

  constructor(readonly config: StreamConfig) {
    this.group = new RaftGroup(`stream ${config.name}`);
  }

  get name(): string {
    return this.config.name;
  }

  /** The last sequence proposed (committed or not): what an expected last sequence is checked against. */
  get proposedLastSequence(): number {
    return this.messages.length + this.pending.length;
  }

  info(): StreamInfo {
    const last = this.messages.length;
    return { config: this.config, state: { messages: last, firstSequence: last === 0 ? 0 : 1, lastSequence: last, bytes: this.bytes } };
  }

  message(sequence: number): CommittedMessage | null {
    return this.messages[sequence - 1] ?? null;
  }

  propose(data: Uint8Array, msgId: string, expectedLastSequence: number | undefined, nowMs: number, onCommit: (message: CommittedMessage) => void): ProposalOutcome {
    const known = this.ids.get(msgId);
    if (known !== undefined && nowMs - known.atMs < DUPLICATE_WINDOW_MS) {
      return { kind: "duplicate", ack: { stream: this.name, sequence: known.sequence, duplicate: true } };
    }
    const last = this.proposedLastSequence;
    if (expectedLastSequence !== undefined && expectedLastSequence !== last) {
      return { kind: "refused", error: new MessagingError("wrong-last-sequence", `wrong last sequence: ${last}`, last) };
    }
    const sequence = last + 1;
    if (msgId !== "") this.ids.set(msgId, { sequence, atMs: nowMs });
    this.pending.push({ sequence, data, msgId, term: this.group.term, onCommit });
    return { kind: "proposed", sequence };
  }

  /** A quorum stored the proposals through `sequence` made in `term` (nothing, if an election came between). */
  commitThrough(sequence: number, term: number, nowMs: number): void {
    if (term !== this.group.term) return;
    while (this.pending.length > 0 && (this.pending[0] as Proposal).sequence <= sequence) {
      const proposal = this.pending.shift() as Proposal;
      const message: CommittedMessage = { streamSequence: proposal.sequence, data: proposal.data, msgId: proposal.msgId, committedAtMs: nowMs };
      this.messages.push(message);
      this.bytes += proposal.data.length;
      proposal.onCommit(message);
      for (const listener of this.listeners) listener.committed(message);
    }
  }

  /**
   * The leader died: the first `surviving` pending proposals had reached the new leader and are
   * committed by it (their publishers get no acknowledgement: that leader is gone); the rest are
   * lost, their sequences free again.
   */
  elect(nowMs: number, outageMs: number, surviving: number): { kept: number; lost: number } {
    this.group.term += 1;
    this.group.electingUntilMs = Math.max(this.group.electingUntilMs, nowMs + outageMs);
    const pending = this.pending.splice(0);
    let kept = 0;
    for (const proposal of pending) {
      if (kept < surviving) {
        const message: CommittedMessage = { streamSequence: proposal.sequence, data: proposal.data, msgId: proposal.msgId, committedAtMs: nowMs };
        this.messages.push(message);
        this.bytes += proposal.data.length;
        for (const listener of this.listeners) listener.committed(message);
        kept += 1;
      } else if (this.ids.get(proposal.msgId)?.sequence === proposal.sequence) {
        this.ids.delete(proposal.msgId);
      }
    }
    return { kept, lost: pending.length - kept };
  }

  get pendingCount(): number {
    return this.pending.length;
  }
}
