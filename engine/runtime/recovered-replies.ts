/**
 * The replies a recovery puts back among those kept for retries (decision I61). The clients of a
 * restarted shard or of a partition's new owner retry what was in flight when the last one stopped:
 * the last commands of the log. A reply not kept is recomputed from its market's first command,
 * which on a stream means reading the market's whole record (a hot market's takes seconds, and the
 * partition's appends wait behind the read). So the replies of the client commands replayed near
 * the log's end are shaped as the live path shaped them (`replyOf`, deterministic: the same bytes)
 * and kept; each acceptance's receipt is added once the replay is over, under one head over the
 * recovered log, as a batch's acceptances share one head.
 *
 * Bounded as the kept replies are: a reply is shaped only while it could still be kept at the log's
 * end, by their count and, judging by the size of its market's reply before it, by their characters
 * (a market whose subject is near the body limit has only its last few kept). So a recovery shapes
 * about what the cache keeps, never every reply of a large market's last commands.
 */
import { receiptJson } from "@market-service/client/audit";
import type { ShardReply } from "../shard-protocol/shard-protocol.js";
import { charsOf, type RecentReplies } from "./recent-replies.js";

export class RecoveredReplies {
  /** The characters of each market's last reply shaped. */
  private readonly lastCharsOf = new Map<string, number>();
  /** The acceptances kept, to be given receipts. */
  private readonly accepted: Array<{ position: number; sequence: number }> = [];

  constructor(
    private readonly kept: RecentReplies,
    /** The log's last entry's sequence, which the recovery reads up to. */
    private readonly lastSequence: number,
  ) {}

  /** Whether the reply of the client command at `sequence` (of market `marketId`) would still be kept at the log's end. */
  wanted(sequence: number, marketId: string | undefined): boolean {
    const entriesAfter = this.lastSequence - sequence;
    if (entriesAfter >= this.kept.capacity) return false;
    const chars = marketId === undefined ? undefined : this.lastCharsOf.get(marketId);
    return chars === undefined || chars * (entriesAfter + 1) <= this.kept.capacityChars;
  }

  /** Keeps the reply of the command logged at `position` (sequence `sequence`). */
  keep(position: number, sequence: number, marketId: string | undefined, reply: ShardReply): void {
    this.kept.remember(position, reply);
    if (marketId !== undefined) this.lastCharsOf.set(marketId, charsOf(reply));
    if (reply.ok) this.accepted.push({ position, sequence });
  }

  /** Acceptances kept, waiting for their receipt. */
  get acceptances(): number {
    return this.accepted.length;
  }

  /** Gives each acceptance still kept its receipt under `head` (JSON of a head signed over the whole recovered log). */
  addReceipts(head: string): void {
    for (const { position, sequence } of this.accepted) {
      const reply = this.kept.get(position);
      if (reply?.ok === true) reply.receipt = receiptJson(sequence - 1, head);
    }
    this.accepted.length = 0;
  }
}
