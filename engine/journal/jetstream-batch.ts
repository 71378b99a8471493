/**
 * One appended batch as one JetStream message ("JSB2"), and the positions of its entries.
 *
 * A batch message is self-describing, so a stream (or an export of it) can be read and audited
 * without the journal that wrote it (all little-endian):
 *
 *   offset  size      field
 *   0       4         magic "JSB2"
 *   4       8         epoch           f64, a non-negative safe integer: the writer's ownership epoch
 *                                     (0: not in cluster mode, or no owner)
 *   12      8         first sequence  f64: the sequence of the batch's first entry; for a claim, the
 *                                     sequence the next entry will have
 *   20      4         count           u32, 0…2^16 (0: a claim, see below)
 *   24      32        chain           the hash chain after the batch's last entry (for a claim, the
 *                                     chain it continues)
 *   56      4 × count entry lengths   u32 each
 *   …                 payloads        back to back
 *
 * The chain is the file log's (storage/hash-chain.ts): chain_n = SHA-256(chain_{n−1} || payload_n)
 * over every entry of the stream in order, chain_0 = 32 zero bytes; a batch records the value after
 * its last entry, so the value before a batch is the previous message's (zeros before message 1).
 * A writer learns it from the stream's last message when it opens, so a new owner continues the
 * previous owner's chain, and an entry edited anywhere breaks it at that message.
 *
 * A claim is a batch of zero entries: a new owner publishes it first, with its (greater) epoch, so
 * the stream's last message moves and the previous owner's next publish, which expects the old last
 * message, is refused. It records the chain and the next entry's sequence unchanged.
 *
 * The stream numbers messages; the journal numbers entries. Each message carries its first entry's
 * sequence, and the writer only ever publishes a message whose first sequence follows the last
 * message in the stream (the publish expects that message's stream sequence), so the messages of a
 * stream are contiguous: message n+1 starts where message n ends (a claim ends where it starts).
 *
 * A position names an entry by its batch's stream sequence and its index in the batch:
 * `streamSequence × 2^16 + index`. Batches are bounded to 2^16 entries, and stream sequences to what
 * keeps every position a safe integer (2^37 − 1 messages).
 *
 * JSB1 (no epoch, no chain, no claims) was never in a release and no stream of a deployment holds
 * it: there is no reader for it.
 */
import { CHAIN_HASH_BYTES, nextChainHash } from "../../storage/hash-chain.js";

/** "JSB2" */
const BATCH_MAGIC = 0x3242534a;
const EPOCH_OFFSET = 4;
const FIRST_SEQUENCE_OFFSET = 12;
const COUNT_OFFSET = 20;
const CHAIN_OFFSET = 24;
const HEADER_BYTES = CHAIN_OFFSET + CHAIN_HASH_BYTES;

/** Entries one batch may hold (an entry's index must fit under the position's low 16 bits). */
export const MAX_BATCH_ENTRIES = 2 ** 16;
/** The largest stream sequence whose positions are all safe integers. */
export const MAX_STREAM_SEQUENCE = Math.floor(Number.MAX_SAFE_INTEGER / MAX_BATCH_ENTRIES);

/** Where a batch starts: what its writer knows of the stream before it. */
export interface BatchStart {
  /** The writer's ownership epoch (0: none). */
  readonly epoch: number;
  /** The sequence of the batch's first entry (the stream's last entry + 1). */
  readonly firstSequence: number;
  /** The chain after the stream's last entry (32 bytes; zeros for an empty stream). */
  readonly previousChain: Uint8Array;
}

export interface BatchHeader {
  readonly epoch: number;
  /** The sequence of the batch's first entry (for a claim, of the next entry). */
  readonly firstSequence: number;
  /** Entries in the batch: 0 for a claim. */
  readonly count: number;
  /** The chain after the batch's last entry (a view into the message's bytes). */
  readonly chain: Uint8Array;
}

export interface DecodedBatch extends BatchHeader {
  /** The entries' payloads, views into the message's bytes. */
  readonly payloads: readonly Uint8Array[];
  /** The message body's length (what the batch costs a cache). */
  readonly sizeBytes: number;
}

function isEpoch(epoch: number): boolean {
  return Number.isSafeInteger(epoch) && epoch >= 0;
}

/** The chain after `payloads`, continuing `previous` (storage/hash-chain.ts's step, entry by entry). */
export function chainAfter(previous: Uint8Array, payloads: readonly Uint8Array[]): Buffer {
  let chain: Buffer = Buffer.from(previous);
  for (const payload of payloads) chain = nextChainHash(chain, payload);
  return chain;
}

/** A batch of `payloads` (none: a claim) after `start`, with the chain after its last entry. */
export function encodeBatch(start: BatchStart, payloads: readonly Uint8Array[]): Uint8Array {
  if (payloads.length > MAX_BATCH_ENTRIES) throw new RangeError(`a batch holds 0 to ${MAX_BATCH_ENTRIES} entries, not ${payloads.length}`);
  if (!isEpoch(start.epoch)) throw new RangeError(`a batch's epoch must be a non-negative safe integer, not ${start.epoch}`);
  if (!(Number.isSafeInteger(start.firstSequence) && start.firstSequence >= 1)) throw new RangeError(`a batch's first sequence must be a positive safe integer, not ${start.firstSequence}`);
  if (start.previousChain.length !== CHAIN_HASH_BYTES) throw new RangeError(`a chain value is ${CHAIN_HASH_BYTES} bytes, not ${start.previousChain.length}`);
  let payloadBytes = 0;
  for (const payload of payloads) payloadBytes += payload.length;
  const lengthsEnd = HEADER_BYTES + 4 * payloads.length;
  const body = new Uint8Array(lengthsEnd + payloadBytes);
  const view = new DataView(body.buffer);
  view.setUint32(0, BATCH_MAGIC, true);
  view.setFloat64(EPOCH_OFFSET, start.epoch, true);
  view.setFloat64(FIRST_SEQUENCE_OFFSET, start.firstSequence, true);
  view.setUint32(COUNT_OFFSET, payloads.length, true);
  body.set(chainAfter(start.previousChain, payloads), CHAIN_OFFSET);
  let offset = lengthsEnd;
  payloads.forEach((payload, i) => {
    view.setUint32(HEADER_BYTES + 4 * i, payload.length, true);
    body.set(payload, offset);
    offset += payload.length;
  });
  return body;
}

function describe(streamSequence: number): string {
  return `the message at stream sequence ${streamSequence}`;
}

export function decodeBatchHeader(body: Uint8Array, streamSequence: number): BatchHeader {
  if (body.length < HEADER_BYTES) throw new Error(`${describe(streamSequence)} is not a journal batch (${body.length} bytes)`);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  if (view.getUint32(0, true) !== BATCH_MAGIC) throw new Error(`${describe(streamSequence)} is not a journal batch (no JSB2 magic)`);
  const epoch = view.getFloat64(EPOCH_OFFSET, true);
  const firstSequence = view.getFloat64(FIRST_SEQUENCE_OFFSET, true);
  const count = view.getUint32(COUNT_OFFSET, true);
  if (!isEpoch(epoch) || !(Number.isSafeInteger(firstSequence) && firstSequence >= 1) || count > MAX_BATCH_ENTRIES) {
    throw new Error(`${describe(streamSequence)} has an impossible batch header (epoch ${epoch}, first sequence ${firstSequence}, ${count} entries)`);
  }
  return { epoch, firstSequence, count, chain: body.subarray(CHAIN_OFFSET, HEADER_BYTES) };
}

export function decodeBatch(body: Uint8Array, streamSequence: number): DecodedBatch {
  const header = decodeBatchHeader(body, streamSequence);
  const count = header.count;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const lengthsEnd = HEADER_BYTES + 4 * count;
  if (body.length < lengthsEnd) throw new Error(`${describe(streamSequence)} is cut short (${count} entry lengths announced)`);
  const payloads: Uint8Array[] = [];
  let offset = lengthsEnd;
  for (let i = 0; i < count; i++) {
    const length = view.getUint32(HEADER_BYTES + 4 * i, true);
    if (offset + length > body.length) throw new Error(`${describe(streamSequence)} is cut short (entry ${i} runs past its end)`);
    payloads.push(body.subarray(offset, offset + length));
    offset += length;
  }
  if (offset !== body.length) throw new Error(`${describe(streamSequence)} has ${body.length - offset} bytes after its last entry`);
  return { ...header, payloads, sizeBytes: body.length };
}

/** The sequence of the last entry up to and including a batch (a claim: the one before it). */
export function lastSequenceOf(header: BatchHeader): number {
  return header.firstSequence + header.count - 1;
}

export function positionOf(streamSequence: number, index: number): number {
  if (!(Number.isSafeInteger(streamSequence) && streamSequence >= 1 && streamSequence <= MAX_STREAM_SEQUENCE)) {
    throw new RangeError(`stream sequence ${streamSequence} is outside 1…${MAX_STREAM_SEQUENCE}: its positions would not be safe integers`);
  }
  if (!(Number.isInteger(index) && index >= 0 && index < MAX_BATCH_ENTRIES)) throw new RangeError(`entry index ${index} is outside 0…${MAX_BATCH_ENTRIES - 1}`);
  return streamSequence * MAX_BATCH_ENTRIES + index;
}

/** The batch and index a position names; throws for a number no batch position can be. */
export function locate(position: number): { streamSequence: number; index: number } {
  if (!(Number.isSafeInteger(position) && position >= MAX_BATCH_ENTRIES)) throw new RangeError(`${position} is not a JetStream journal position`);
  return { streamSequence: Math.floor(position / MAX_BATCH_ENTRIES), index: position % MAX_BATCH_ENTRIES };
}
