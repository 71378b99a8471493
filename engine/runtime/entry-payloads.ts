/**
 * The payloads of a journal's entries, read through the journal and packed for a replay thread
 * (ReplaySource "payloads", shard-protocol.ts). A shard on a journal with no files another thread
 * could read (Journal.readView undefined: a journal on a stream) hands a record's or an old reply's
 * commands over this way instead of a view of its log.
 *
 * Reads go through `readAt`, a few at a time, in record order. For the JetStream journal an entry
 * whose batch is not cached costs a request to the stream, which the entries of that batch read
 * meanwhile share, and the batch cache answers the ones after: a market's entries cost one request
 * per batch holding any of them, and no other market's batches are read. (One `read` pass from the
 * first entry's sequence would stream every entry of the partition from there, all of a
 * long-lived market's neighbours included.)
 */
import type { Journal, JournalPosition } from "../journal/journal.js";
import { float64Bytes, float64sOf } from "./float64-bytes.js";

/** Reads under way at once: enough to overlap the round trips, without one replay flooding the stream. */
const READS_IN_FLIGHT = 16;

/** Payloads one after another in one buffer; `ends`: float64 bytes of where each ends. */
export interface PackedPayloads {
  readonly payloads: Uint8Array;
  readonly ends: Uint8Array;
}

/** The payloads of the entries at `positions`, in that order, packed. */
export async function readPayloads(journal: Journal, positions: readonly JournalPosition[]): Promise<PackedPayloads> {
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
  return packPayloads(read);
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

/** How many payloads are packed. */
export function payloadCount(packed: PackedPayloads): number {
  return packed.ends.byteLength / 8;
}
