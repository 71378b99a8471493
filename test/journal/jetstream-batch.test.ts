/**
 * The JetStream journal's message format and positions (engine/journal/jetstream-batch.ts), without
 * a server: a batch survives the round trip byte for byte, a damaged one is refused naming the
 * message, and positions stay safe integers at the bounds.
 */
import { describe, expect, it } from "vitest";
import { MAX_BATCH_ENTRIES, MAX_STREAM_SEQUENCE, decodeBatch, decodeBatchHeader, encodeBatch, locate, positionOf } from "../../engine/journal/jetstream-batch.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("a journal batch as one JetStream message", () => {
  it("round-trips its entries, empty ones included, with the first sequence", () => {
    const payloads = [bytes("a"), new Uint8Array(0), bytes("ccc"), new Uint8Array([0, 255, 7])];
    const decoded = decodeBatch(encodeBatch(41, payloads), 9);
    expect(decoded.firstSequence).toBe(41);
    expect(decoded.count).toBe(4);
    expect(decoded.payloads.map((payload) => [...payload])).toEqual(payloads.map((payload) => [...payload]));
    expect(decodeBatchHeader(encodeBatch(41, payloads), 9)).toEqual({ firstSequence: 41, count: 4 });
  });

  it("refuses an empty batch, one too large and a first sequence that is not a positive safe integer", () => {
    expect(() => encodeBatch(1, [])).toThrow(RangeError);
    expect(() => encodeBatch(1, Array.from({ length: MAX_BATCH_ENTRIES + 1 }, () => new Uint8Array(0)))).toThrow(RangeError);
    expect(() => encodeBatch(0, [bytes("a")])).toThrow(RangeError);
    expect(() => encodeBatch(2 ** 53, [bytes("a")])).toThrow(RangeError);
  });

  it("refuses a message that is not a whole batch, naming its stream sequence", () => {
    const body = encodeBatch(1, [bytes("hello"), bytes("world")]);
    expect(() => decodeBatch(bytes("not a batch at all"), 5)).toThrow(/stream sequence 5 is not a journal batch/);
    expect(() => decodeBatch(body.subarray(0, body.length - 1), 6)).toThrow(/stream sequence 6 is cut short/);
    const longer = new Uint8Array(body.length + 1);
    longer.set(body);
    expect(() => decodeBatch(longer, 7)).toThrow(/stream sequence 7 has 1 bytes after its last entry/);
    const zeroCount = body.slice();
    new DataView(zeroCount.buffer).setUint32(12, 0, true);
    expect(() => decodeBatchHeader(zeroCount, 8)).toThrow(/impossible batch header/);
  });

  it("gives every entry a distinct safe-integer position, and locates it again", () => {
    expect(positionOf(1, 0)).toBe(MAX_BATCH_ENTRIES);
    expect(locate(positionOf(3, 17))).toEqual({ streamSequence: 3, index: 17 });
    const highest = positionOf(MAX_STREAM_SEQUENCE, MAX_BATCH_ENTRIES - 1);
    expect(Number.isSafeInteger(highest)).toBe(true);
    expect(locate(highest)).toEqual({ streamSequence: MAX_STREAM_SEQUENCE, index: MAX_BATCH_ENTRIES - 1 });
    expect(() => positionOf(MAX_STREAM_SEQUENCE + 1, 0)).toThrow(RangeError);
    expect(() => positionOf(0, 0)).toThrow(RangeError);
    expect(() => positionOf(1, MAX_BATCH_ENTRIES)).toThrow(RangeError);
    expect(() => locate(5)).toThrow(/not a JetStream journal position/);
    expect(() => locate(1.5 * MAX_BATCH_ENTRIES + 0.5)).toThrow(/not a JetStream journal position/);
  });
});
