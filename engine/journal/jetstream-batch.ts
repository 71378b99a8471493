/**
 * One appended batch as one JetStream message, and the positions of its entries.
 *
 * A batch message is self-describing, so a stream (or an export of it) can be read without the
 * journal that wrote it: the sequence of its first entry, the entry count, every entry's length,
 * then the payloads back to back (all little-endian):
 *
 *   "JSB1" u32 · first sequence f64 · count u32 · count × length u32 · payloads
 *
 * The stream numbers messages (batches); the journal numbers entries. Each message carries its
 * first entry's sequence, and the writer only ever publishes a batch whose first sequence follows
 * the last batch in the stream (the publish expects that batch's stream sequence), so the batches
 * of a stream are contiguous: batch n+1 starts where batch n ends.
 *
 * A position names an entry by its batch's stream sequence and its index in the batch:
 * `streamSequence × 2^16 + index`. Batches are bounded to 2^16 entries, and stream sequences to what
 * keeps every position a safe integer (2^37 − 1 batches).
 */

/** "JSB1" */
const BATCH_MAGIC = 0x3142534a;
const HEADER_BYTES = 4 + 8 + 4;

/** Entries one batch may hold (an entry's index must fit under the position's low 16 bits). */
export const MAX_BATCH_ENTRIES = 2 ** 16;
/** The largest stream sequence whose positions are all safe integers. */
export const MAX_STREAM_SEQUENCE = Math.floor(Number.MAX_SAFE_INTEGER / MAX_BATCH_ENTRIES);

export interface BatchHeader {
  /** The sequence of the batch's first entry. */
  readonly firstSequence: number;
  readonly count: number;
}

export interface DecodedBatch extends BatchHeader {
  /** The entries' payloads, views into the message's bytes. */
  readonly payloads: readonly Uint8Array[];
  /** The message body's length (what the batch costs a cache). */
  readonly sizeBytes: number;
}

export function encodeBatch(firstSequence: number, payloads: readonly Uint8Array[]): Uint8Array {
  if (payloads.length === 0 || payloads.length > MAX_BATCH_ENTRIES) {
    throw new RangeError(`a batch holds 1 to ${MAX_BATCH_ENTRIES} entries, not ${payloads.length}`);
  }
  if (!(Number.isSafeInteger(firstSequence) && firstSequence >= 1)) throw new RangeError(`a batch's first sequence must be a positive safe integer, not ${firstSequence}`);
  let payloadBytes = 0;
  for (const payload of payloads) payloadBytes += payload.length;
  const lengthsEnd = HEADER_BYTES + 4 * payloads.length;
  const body = new Uint8Array(lengthsEnd + payloadBytes);
  const view = new DataView(body.buffer);
  view.setUint32(0, BATCH_MAGIC, true);
  view.setFloat64(4, firstSequence, true);
  view.setUint32(12, payloads.length, true);
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
  if (view.getUint32(0, true) !== BATCH_MAGIC) throw new Error(`${describe(streamSequence)} is not a journal batch (no JSB1 magic)`);
  const firstSequence = view.getFloat64(4, true);
  const count = view.getUint32(12, true);
  if (!(Number.isSafeInteger(firstSequence) && firstSequence >= 1) || count < 1 || count > MAX_BATCH_ENTRIES) {
    throw new Error(`${describe(streamSequence)} has an impossible batch header (first sequence ${firstSequence}, ${count} entries)`);
  }
  return { firstSequence, count };
}

export function decodeBatch(body: Uint8Array, streamSequence: number): DecodedBatch {
  const { firstSequence, count } = decodeBatchHeader(body, streamSequence);
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
  return { firstSequence, count, payloads, sizeBytes: body.length };
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
