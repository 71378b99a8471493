/**
 * The payloads of a journal's entries, read through the journal and packed for a replay thread
 * (ReplaySource "payloads", engine/shard-protocol/shard-protocol.ts). A shard on a journal with no files another thread
 * could read (Journal.readView undefined: a journal on a stream) hands a record's or an old reply's
 * commands over this way instead of a view of its log.
 *
 * Two ways to read them, chosen by how densely the wanted entries lie between the first and the
 * last of them (their sequences, from `readAt` of both):
 * - dense (a hot market's record, where most entries of the span are the market's): one `read`
 *   pass over the span, keeping the wanted entries and ending the read at the last one. On the
 *   JetStream journal a pass streams the span's batches from a consumer, far faster per entry than
 *   a request per batch (decision I28 has the measurements);
 * - sparse (a long-lived market among busy neighbours): `readAt` of each, a few at a time. For the
 *   JetStream journal a batch not cached costs one request, which the entries of that batch read
 *   meanwhile share, and the batch cache answers the ones after: one request per batch holding any
 *   wanted entry, and none for the batches in between.
 */
import type { Journal, JournalEntry, JournalPosition } from "../journal/journal.js";
import { float64Bytes, float64sOf } from "./float64-bytes.js";

/** `readAt` reads under way at once: enough to overlap the round trips, without one replay flooding the stream. */
const READS_IN_FLIGHT = 16;
/**
 * A pass is chosen while the span holds at most this many entries per wanted one: reading an
 * unwanted entry in a pass costs far less than a request for a batch does (decision I28).
 */
const PASS_ENTRIES_PER_WANTED = 32;

/** Payloads one after another in one buffer; `ends`: float64 bytes of where each ends. */
export interface PackedPayloads {
  readonly payloads: Uint8Array;
  readonly ends: Uint8Array;
}

/** Ends a `read` pass once every wanted entry was handed over (an `onEntry` that throws ends a read). */
class AllRead extends Error {
  override name = "AllRead";
}

/** The payloads of the entries at `positions` (in journal order, as a market's record lists them), packed. */
export async function readPayloads(journal: Journal, positions: readonly JournalPosition[]): Promise<PackedPayloads> {
  const count = positions.length;
  if (count === 0) return packPayloads([]);
  const [first, last] = await Promise.all([journal.readAt(positions[0] as JournalPosition), journal.readAt(positions[count - 1] as JournalPosition)]);
  const span = last.sequence - first.sequence + 1;
  const read = span <= count * PASS_ENTRIES_PER_WANTED ? await readInOnePass(journal, positions, first) : await readEach(journal, positions);
  return packPayloads(read);
}

/** One `read` from the first wanted entry, keeping the wanted ones, ended at the last. */
async function readInOnePass(journal: Journal, positions: readonly JournalPosition[], first: JournalEntry): Promise<Uint8Array[]> {
  const read: Uint8Array[] = [];
  try {
    await journal.read(first.sequence - 1, (entry) => {
      if (entry.position !== positions[read.length]) return;
      read.push(entry.payload);
      if (read.length === positions.length) throw new AllRead();
    });
  } catch (error) {
    if (!(error instanceof AllRead)) throw error;
  }
  if (read.length !== positions.length) throw new Error(`the journal holds no entry at position ${positions[read.length]} after sequence ${first.sequence} in the order given`);
  return read;
}

/** `readAt` of each, up to READS_IN_FLIGHT at once, in order. */
async function readEach(journal: Journal, positions: readonly JournalPosition[]): Promise<Uint8Array[]> {
  const read = new Array<Uint8Array>(positions.length);
  let next = 0;
  const reader = async (): Promise<void> => {
    try {
      while (next < positions.length) {
        const index = next;
        next += 1;
        read[index] = (await journal.readAt(positions[index] as JournalPosition)).payload;
      }
    } catch (error) {
      next = positions.length; // the other readers stop too: the whole read has failed
      throw error;
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, positions.length) }, reader));
  return read;
}

export function packPayloads(list: readonly Uint8Array[]): PackedPayloads {
  let total = 0;
  for (const payload of list) total += payload.length;
  const payloads = new Uint8Array(total);
  const ends = new Array<number>(list.length);
  let offset = 0;
  list.forEach((payload, index) => {
    payloads.set(payload, offset);
    offset += payload.length;
    ends[index] = offset;
  });
  return { payloads, ends: float64Bytes(ends) };
}

/** Hands each packed payload to `each`, in order (views into `packed.payloads`, not copies). */
export function forEachPayload(packed: PackedPayloads, each: (payload: Uint8Array, index: number) => void): void {
  const ends = float64sOf(packed.ends);
  let start = 0;
  for (let index = 0; index < ends.length; index += 1) {
    const end = ends[index] as number;
    if (!(Number.isInteger(end) && start <= end && end <= packed.payloads.length)) throw new RangeError(`packed payload ${index} ends at ${end}, outside ${start}…${packed.payloads.length}`);
    each(packed.payloads.subarray(start, end), index);
    start = end;
  }
  if (start !== packed.payloads.length) throw new RangeError(`packed payloads: ${packed.payloads.length - start} bytes after the last payload`);
}

/** The packed payload at `index`, a copy. */
export function unpackPayload(packed: PackedPayloads, index: number): Uint8Array {
  let found: Uint8Array | undefined;
  forEachPayload(packed, (payload, i) => {
    if (i === index) found = payload.slice();
  });
  if (found === undefined) throw new RangeError(`no packed payload ${index} among ${payloadCount(packed)}`);
  return found;
}

/** The first `count` packed payloads (views into `packed`, not copies). */
export function firstPayloads(packed: PackedPayloads, count: number): PackedPayloads {
  const total = payloadCount(packed);
  if (!(Number.isInteger(count) && count >= 0 && count <= total)) throw new RangeError(`${count} of ${total} packed payloads`);
  if (count === total) return packed;
  const end = count === 0 ? 0 : (float64sOf(packed.ends.subarray((count - 1) * 8, count * 8))[0] as number);
  return { payloads: packed.payloads.subarray(0, end), ends: packed.ends.subarray(0, count * 8) };
}

/** How many payloads are packed. */
export function payloadCount(packed: PackedPayloads): number {
  return packed.ends.byteLength / 8;
}

/** The payloads of the journal's `count` entries after its first `after`, packed (a proof of a log without a view). */
export async function readPayloadsAfter(journal: Journal, after: number, count: number): Promise<PackedPayloads> {
  const read: Uint8Array[] = [];
  if (count > 0) {
    try {
      await journal.read(after, (entry) => {
        read.push(entry.payload);
        if (read.length === count) throw new AllRead();
      });
    } catch (error) {
      if (!(error instanceof AllRead)) throw error;
    }
  }
  return packPayloads(read);
}
