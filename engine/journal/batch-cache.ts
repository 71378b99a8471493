/**
 * The JetStream journal's batches recently appended or read, by stream sequence, so that `readAt`
 * can answer without a round trip to NATS for the entries a shard asks about most: those of the
 * commands it has just logged or just recovered, and the neighbours of an entry it has just read.
 *
 * Least recently used first out, within `maxBytes` of message bodies; the newest batch is always
 * kept, however large, so that what was just appended can be read back by position.
 */
import type { DecodedBatch } from "./jetstream-batch.js";

export interface CachedBatch extends DecodedBatch {
  readonly streamSequence: number;
  /** The message's Nats-Msg-Id (a snapshot's mark names the batch it was taken after by it). */
  readonly batchId: string;
}

export class BatchCache {
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly batches = new Map<number, CachedBatch>();
  private bytes = 0;
  /** Reads of batches not cached, under way, by stream sequence (`readThrough`). */
  private readonly reading = new Map<number, Promise<CachedBatch | null>>();

  constructor(private readonly maxBytes: number) {
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) throw new RangeError(`batch cache bytes must be a non-negative integer, not ${maxBytes}`);
  }

  get(streamSequence: number): CachedBatch | undefined {
    const batch = this.batches.get(streamSequence);
    if (batch !== undefined) {
      this.batches.delete(streamSequence);
      this.batches.set(streamSequence, batch);
    }
    return batch;
  }

  put(batch: CachedBatch): void {
    const previous = this.batches.get(batch.streamSequence);
    if (previous !== undefined) {
      this.batches.delete(batch.streamSequence);
      this.bytes -= previous.sizeBytes;
    }
    this.batches.set(batch.streamSequence, batch);
    this.bytes += batch.sizeBytes;
    for (const [streamSequence, oldest] of this.batches) {
      if (this.bytes <= this.maxBytes || this.batches.size === 1) break;
      this.batches.delete(streamSequence);
      this.bytes -= oldest.sizeBytes;
    }
  }

  /**
   * The batch at `streamSequence`: cached, else what `read` gives (null: the stream has no such
   * message), read once however many ask while it is read, and cached.
   */
  readThrough(streamSequence: number, read: () => Promise<CachedBatch | null>): Promise<CachedBatch | null> {
    const cached = this.get(streamSequence);
    if (cached !== undefined) return Promise.resolve(cached);
    const running = this.reading.get(streamSequence);
    if (running !== undefined) return running;
    const reading = read()
      .then((batch) => {
        if (batch !== null) this.put(batch);
        return batch;
      })
      .finally(() => this.reading.delete(streamSequence));
    this.reading.set(streamSequence, reading);
    return reading;
  }

  /** The cached batch holding entry `sequence`, if any (a scan: the cache holds few batches). */
  holding(sequence: number): CachedBatch | undefined {
    for (const batch of this.batches.values()) {
      if (batch.firstSequence <= sequence && sequence < batch.firstSequence + batch.count) return batch;
    }
    return undefined;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.batches.size;
  }
}
