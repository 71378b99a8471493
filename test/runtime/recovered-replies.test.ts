/**
 * The replies a recovery keeps again (decision I61): only those that can still be kept when the
 * replay reaches the log's end, by the kept replies' count and characters, and receipts only for
 * the acceptances still kept.
 */
import { describe, expect, it } from "vitest";
import { RecentReplies } from "../../engine/runtime/recent-replies.js";
import { RecoveredReplies } from "../../engine/runtime/recovered-replies.js";
import { errorReply, okReply, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";
import { receiptJson } from "@market-service/client/audit";

/** A head's JSON as the recovery passes it (its content does not matter here). */
const HEAD = JSON.stringify({ logId: "shard-0", treeSize: 100 });

describe("RecoveredReplies", () => {
  it("wants only the commands within the kept count of the log's end", () => {
    const recovered = new RecoveredReplies(new RecentReplies(4, 1_000_000), 100);
    expect(recovered.wanted(96, "m")).toBe(false);
    expect(recovered.wanted(97, "m")).toBe(true);
    expect(recovered.wanted(100, undefined)).toBe(true);
  });

  it("judges a market's later replies by the size of its last one: a large market keeps only its last few shaped", () => {
    const recovered = new RecoveredReplies(new RecentReplies(1000, 10_000), 1000);
    // 3,000 characters: at most 3 such replies fit, so only the last 3 entries of the log are worth shaping.
    recovered.keep(10, 990, "big", okReply("x".repeat(3_000)));
    expect(recovered.wanted(991, "big")).toBe(false);
    expect(recovered.wanted(997, "big")).toBe(false);
    expect(recovered.wanted(998, "big")).toBe(true);
    // Another market is judged by its own replies.
    expect(recovered.wanted(991, "small")).toBe(true);
  });

  it("gives receipts to the acceptances still kept, and to no rejection", () => {
    const kept = new RecentReplies(2, 1_000_000);
    const recovered = new RecoveredReplies(kept, 20);
    const replies: ShardReply[] = [okReply('{"a":1}'), okReply('{"a":2}'), errorReply("capacity_exhausted", "no capacity left"), okReply('{"a":3}')];
    replies.forEach((reply, i) => recovered.keep(100 + i, 17 + i, "m", reply));
    expect(recovered.acceptances).toBe(3);
    recovered.addReceipts(HEAD);
    // Only the last two are kept (count 2): the rejection, and the acceptance at sequence 20 with its receipt.
    expect(kept.get(100)).toBeUndefined();
    expect(kept.get(102)).toEqual(errorReply("capacity_exhausted", "no capacity left"));
    const last = kept.get(103);
    if (last?.ok !== true || last.receipt === undefined) throw new Error("the kept acceptance has no receipt");
    expect(last.receipt).toBe(receiptJson(19, HEAD));
    // An evicted acceptance is not given one (nothing holds it).
    expect(replies[0]).toEqual(okReply('{"a":1}'));
    expect(recovered.acceptances).toBe(0);
  });
});
