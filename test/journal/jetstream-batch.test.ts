/**
 * The JetStream journal's message format ("JSB2", engine/journal/jetstream-batch.ts) and what must
 * hold between consecutive messages (engine/journal/stream-continuity.ts), without a server: a batch
 * survives the round trip byte for byte with its epoch and chain, a claim is a batch of no entries,
 * a damaged message is refused naming it, the chain is the file log's, and a break in a run of
 * messages (an edited entry, a gap, an epoch going down, a claim that does not raise it) is named by
 * its stream sequence.
 */
import { describe, expect, it } from "vitest";
import {
  MAX_BATCH_ENTRIES,
  MAX_STREAM_SEQUENCE,
  chainAfter,
  decodeBatch,
  decodeBatchHeader,
  encodeBatch,
  lastSequenceOf,
  locate,
  positionOf,
  type BatchStart,
  type DecodedBatch,
} from "../../engine/journal/jetstream-batch.js";
import { StreamBreakError, StreamContinuity } from "../../engine/journal/stream-continuity.js";
import { genesisChainHash, nextChainHash } from "../../storage/hash-chain.js";
import { encodeFrame, FRAME_CHAIN_OFFSET } from "../../storage/frame.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const hex = (value: Uint8Array): string => Buffer.from(value).toString("hex");
const start = (firstSequence: number, epoch = 0, previousChain: Uint8Array = genesisChainHash()): BatchStart => ({ epoch, firstSequence, previousChain });

describe("a journal batch as one JetStream message (JSB2)", () => {
  it("round-trips its entries, empty ones included, with its epoch, first sequence and chain", () => {
    const payloads = [bytes("a"), new Uint8Array(0), bytes("ccc"), new Uint8Array([0, 255, 7])];
    const previous = nextChainHash(genesisChainHash(), bytes("earlier"));
    const body = encodeBatch(start(41, 7, previous), payloads);
    const decoded = decodeBatch(body, 9);
    expect(decoded.epoch).toBe(7);
    expect(decoded.firstSequence).toBe(41);
    expect(decoded.count).toBe(4);
    expect(decoded.sizeBytes).toBe(body.length);
    expect(decoded.payloads.map((payload) => [...payload])).toEqual(payloads.map((payload) => [...payload]));
    let chain: Uint8Array = previous;
    for (const payload of payloads) chain = nextChainHash(chain, payload);
    expect(hex(decoded.chain)).toBe(hex(chain));
    expect(lastSequenceOf(decoded)).toBe(44);
    const header = decodeBatchHeader(body, 9);
    expect({ ...header, chain: hex(header.chain) }).toEqual({ epoch: 7, firstSequence: 41, count: 4, chain: hex(chain) });
  });

  it("chains entries exactly as the file log's frames do", () => {
    const payloads = [bytes("first entry"), bytes("second"), new Uint8Array(0)];
    let frameChain = genesisChainHash();
    payloads.forEach((payload, i) => {
      const frame = encodeFrame(i + 1, frameChain, payload);
      frameChain = frame.subarray(FRAME_CHAIN_OFFSET, FRAME_CHAIN_OFFSET + 32);
    });
    expect(hex(decodeBatch(encodeBatch(start(1), payloads), 1).chain)).toBe(hex(frameChain));
    expect(hex(chainAfter(genesisChainHash(), payloads))).toBe(hex(frameChain));
  });

  it("encodes a claim as a batch of no entries that carries the chain and the next sequence unchanged", () => {
    const previous = chainAfter(genesisChainHash(), [bytes("x"), bytes("y")]);
    const claim = decodeBatch(encodeBatch(start(3, 2, previous), []), 4);
    expect(claim.count).toBe(0);
    expect(claim.payloads).toEqual([]);
    expect(claim.epoch).toBe(2);
    expect(claim.firstSequence).toBe(3);
    expect(lastSequenceOf(claim)).toBe(2);
    expect(hex(claim.chain)).toBe(hex(previous));
    // A claim on an empty stream: the next entry is 1, the chain is chain_0.
    const first = decodeBatch(encodeBatch(start(1, 1), []), 1);
    expect(lastSequenceOf(first)).toBe(0);
    expect(hex(first.chain)).toBe(hex(genesisChainHash()));
  });

  it("refuses a batch too large, an epoch or first sequence that is not a safe integer in range, and a chain that is not 32 bytes", () => {
    expect(() => encodeBatch(start(1), Array.from({ length: MAX_BATCH_ENTRIES + 1 }, () => new Uint8Array(0)))).toThrow(RangeError);
    expect(() => encodeBatch(start(0), [bytes("a")])).toThrow(/first sequence/);
    expect(() => encodeBatch(start(2 ** 53), [bytes("a")])).toThrow(/first sequence/);
    expect(() => encodeBatch(start(1, -1), [bytes("a")])).toThrow(/epoch/);
    expect(() => encodeBatch(start(1, 1.5), [bytes("a")])).toThrow(/epoch/);
    expect(() => encodeBatch(start(1, 2 ** 53), [bytes("a")])).toThrow(/epoch/);
    expect(() => encodeBatch(start(1, 0, new Uint8Array(31)), [bytes("a")])).toThrow(/32 bytes/);
  });

  it("refuses a message that is not a whole JSB2 batch, naming its stream sequence", () => {
    const body = encodeBatch(start(1), [bytes("hello"), bytes("world")]);
    expect(() => decodeBatch(bytes("not a batch at all"), 5)).toThrow(/stream sequence 5 is not a journal batch/);
    expect(() => decodeBatch(body.subarray(0, body.length - 1), 6)).toThrow(/stream sequence 6 is cut short/);
    const longer = new Uint8Array(body.length + 1);
    longer.set(body);
    expect(() => decodeBatch(longer, 7)).toThrow(/stream sequence 7 has 1 bytes after its last entry/);
    const tooMany = body.slice();
    new DataView(tooMany.buffer).setUint32(20, MAX_BATCH_ENTRIES + 1, true);
    expect(() => decodeBatchHeader(tooMany, 8)).toThrow(/stream sequence 8 has an impossible batch header/);
    const negativeEpoch = body.slice();
    new DataView(negativeEpoch.buffer).setFloat64(4, -3, true);
    expect(() => decodeBatchHeader(negativeEpoch, 10)).toThrow(/stream sequence 10 has an impossible batch header \(epoch -3/);
    // JSB1, the format before epochs and chains, is not read.
    const jsb1 = body.slice();
    jsb1.set(bytes("JSB1"), 0);
    expect(() => decodeBatch(jsb1, 11)).toThrow(/stream sequence 11 is not a journal batch \(no JSB2 magic\)/);
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

/** A stream as a run of decoded messages, written the way journals write: each batch after the last. */
class StreamBuilder {
  readonly bodies: Uint8Array[] = [];
  private next = 1;
  private chain: Uint8Array = genesisChainHash();

  add(epoch: number, entries: string[]): this {
    const body = encodeBatch({ epoch, firstSequence: this.next, previousChain: this.chain }, entries.map(bytes));
    const decoded = decodeBatch(body, this.bodies.length + 1);
    this.bodies.push(body);
    this.next += entries.length;
    this.chain = decoded.chain;
    return this;
  }

  decoded(): DecodedBatch[] {
    return this.bodies.map((body, i) => decodeBatch(body, i + 1));
  }
}

function checkAll(stream: string, batches: readonly DecodedBatch[]): StreamContinuity {
  const continuity = StreamContinuity.fromStart(stream);
  batches.forEach((batch, i) => continuity.check(i + 1, batch));
  return continuity;
}

function breakOf(run: () => unknown): StreamBreakError {
  try {
    run();
  } catch (error) {
    if (error instanceof StreamBreakError) return error;
    throw error;
  }
  throw new Error("no StreamBreakError");
}

describe("consecutive messages of a journal stream", () => {
  it("accept two owners' batches with a claim between them: the chain runs on across the claim", () => {
    const built = new StreamBuilder().add(0, ["before"]).add(1, []).add(1, ["a", "b"]).add(2, []).add(2, ["c"]).add(3, []);
    const state = checkAll("partition-0", built.decoded()).current;
    expect(state).toMatchObject({ streamSequence: 6, nextSequence: 5, epoch: 3 });
    expect(hex(state.chain)).toBe(hex(chainAfter(genesisChainHash(), ["before", "a", "b", "c"].map(bytes))));
  });

  it("name the stream sequence where an entry was edited, even with the batch otherwise intact", () => {
    const built = new StreamBuilder().add(1, []).add(1, ["one", "two"]).add(1, ["three"]).add(2, []).add(2, ["four"]);
    const edited = built.bodies[2]?.slice() as Uint8Array;
    edited[edited.length - 1] = (edited[edited.length - 1] as number) ^ 1;
    const batches = built.decoded();
    batches[2] = decodeBatch(edited, 3);
    const error = breakOf(() => checkAll("partition-4", batches));
    expect(error.streamSequence).toBe(3);
    expect(error.message).toMatch(/stream partition-4, message at stream sequence 3: the hash chain breaks/);
    // A chain recomputed over the edit breaks at the next message instead (here the claim, which
    // records the chain as it was).
    const rechained = encodeBatch({ epoch: 1, firstSequence: 3, previousChain: (batches[1] as DecodedBatch).chain }, [bytes("thref")]);
    batches[2] = decodeBatch(rechained, 3);
    expect(breakOf(() => checkAll("p", batches)).streamSequence).toBe(4);
  });

  it("refuse a claim that does not raise the epoch, and a batch of an epoch below one recorded before it", () => {
    const sameEpochClaim = new StreamBuilder().add(2, []).add(2, ["x"]).add(2, []).decoded();
    expect(breakOf(() => checkAll("p", sameEpochClaim))).toMatchObject({ streamSequence: 3, message: expect.stringMatching(/a claim of epoch 2 does not raise the epoch 2/) });
    const oldOwnerAfterClaim = new StreamBuilder().add(1, []).add(1, ["x"]).add(2, []).add(1, ["late"]).decoded();
    expect(breakOf(() => checkAll("p", oldOwnerAfterClaim))).toMatchObject({ streamSequence: 4, message: expect.stringMatching(/written in epoch 1 after epoch 2/) });
    // Epoch 0 (no owner) claims nothing: a claim must be of epoch 1 or more.
    expect(breakOf(() => checkAll("p", new StreamBuilder().add(0, []).decoded())).streamSequence).toBe(1);
  });

  it("refuse a missing message and batches that are not contiguous", () => {
    const batches = new StreamBuilder().add(0, ["a"]).add(0, ["b"]).add(0, ["c"]).decoded();
    const continuity = StreamContinuity.fromStart("p");
    continuity.check(1, batches[0] as DecodedBatch);
    expect(breakOf(() => continuity.check(3, batches[2] as DecodedBatch)).message).toMatch(/stream sequence 3: expected the message at stream sequence 2/);
    expect(breakOf(() => continuity.check(2, batches[2] as DecodedBatch)).message).toMatch(/starts at entry sequence 3, not 2/);
  });

  it("check from a message taken on its word: what follows it must chain onto its recorded chain", () => {
    const batches = new StreamBuilder().add(0, ["a"]).add(0, ["b", "c"]).add(0, ["d"]).decoded();
    const continuity = StreamContinuity.after("p", 2, batches[1] as DecodedBatch);
    continuity.check(3, batches[2] as DecodedBatch);
    expect(continuity.current.nextSequence).toBe(5);
    const foreign = decodeBatch(encodeBatch({ epoch: 0, firstSequence: 4, previousChain: genesisChainHash() }, [bytes("d")]), 3);
    expect(breakOf(() => StreamContinuity.after("p", 2, batches[1] as DecodedBatch).check(3, foreign)).message).toMatch(/hash chain breaks/);
  });
});
