/**
 * The replies a shard keeps for retries (engine/runtime/recent-replies.ts): the newest within both
 * bounds, found by position through the ring's wrap-arounds.
 */
import { describe, expect, it } from "vitest";
import { RecentReplies } from "../../engine/runtime/recent-replies.js";
import { errorReply, okReply, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";

/** A reply of `chars` characters of JSON. */
function replyOf(chars: number): ShardReply {
  return okReply("x".repeat(chars));
}

function keptPositions(replies: RecentReplies, from: number, to: number): number[] {
  const kept: number[] = [];
  for (let position = from; position <= to; position += 1) if (replies.get(position) !== undefined) kept.push(position);
  return kept;
}

describe("RecentReplies", () => {
  it("keeps the newest maxEntries replies, each found by its position, through wrap-arounds", () => {
    const replies = new RecentReplies(100, 1_000_000);
    const given = new Map<number, ShardReply>();
    for (let i = 1; i <= 1_000; i += 1) {
      const reply = replyOf(i % 7);
      given.set(i * 10, reply);
      replies.remember(i * 10, reply);
    }
    expect(replies.size).toBe(100);
    expect(keptPositions(replies, 0, 10_010).map((position) => position / 10)).toEqual(Array.from({ length: 100 }, (_, i) => 901 + i));
    for (let i = 901; i <= 1_000; i += 1) expect(replies.get(i * 10)).toBe(given.get(i * 10));
    expect(replies.get(9_005)).toBeUndefined();
    expect(replies.chars).toBe([...Array(100).keys()].reduce((sum, i) => sum + ((901 + i) % 7), 0));
  });

  it("drops the oldest until the new reply fits within maxChars, and keeps none larger than the bound", () => {
    const replies = new RecentReplies(1_000, 100);
    replies.remember(1, replyOf(40));
    replies.remember(2, replyOf(40));
    replies.remember(3, replyOf(30));
    expect([replies.size, replies.chars]).toEqual([2, 70]);
    expect(keptPositions(replies, 1, 3)).toEqual([2, 3]);
    replies.remember(4, replyOf(101));
    expect(keptPositions(replies, 1, 4)).toEqual([2, 3]);
    replies.remember(5, replyOf(100));
    expect([replies.size, replies.chars, keptPositions(replies, 1, 5)]).toEqual([1, 100, [5]]);
    replies.remember(6, errorReply("capacity_exhausted", "x".repeat(10)));
    expect([replies.size, replies.chars, keptPositions(replies, 1, 6)]).toEqual([1, 28, [6]]);
  });

  it("keeps replies in order after the ring has wrapped around", () => {
    const replies = new RecentReplies(1_000, 130);
    replies.remember(1, replyOf(60));
    for (let position = 2; position <= 64; position += 1) replies.remember(position, replyOf(1));
    // 123 + 10 characters: the oldest leaves, so the ring's front is no longer its first slot.
    replies.remember(65, replyOf(10));
    for (let position = 66; position <= 95; position += 1) replies.remember(position, replyOf(1));
    expect(keptPositions(replies, 1, 95)).toEqual(Array.from({ length: 94 }, (_, i) => 2 + i));
    expect(replies.chars).toBe(63 + 10 + 30);
  });

  it("keeps the newest one with maxEntries 1, and only empty replies with maxChars 0", () => {
    const one = new RecentReplies(1, 100);
    one.remember(1, replyOf(5));
    one.remember(2, replyOf(6));
    expect([one.size, one.chars, keptPositions(one, 1, 2)]).toEqual([1, 6, [2]]);
    const none = new RecentReplies(10, 0);
    none.remember(1, replyOf(1));
    none.remember(2, replyOf(0));
    expect([none.size, none.chars, keptPositions(none, 1, 2)]).toEqual([1, 0, [2]]);
  });

  it("keeps nothing with maxEntries 0", () => {
    const replies = new RecentReplies(0, 100);
    replies.remember(1, replyOf(1));
    expect([replies.size, replies.chars, replies.get(1)]).toEqual([0, 0, undefined]);
  });

  it("refuses a position that is not after the newest kept one's", () => {
    const replies = new RecentReplies(10, 100);
    replies.remember(5, replyOf(1));
    expect(() => replies.remember(5, replyOf(1))).toThrow(/log position 5, not after the newest kept one's \(5\)/);
    expect(() => replies.remember(4, replyOf(1))).toThrow(/log position 4/);
    expect(replies.size).toBe(1);
  });
});
