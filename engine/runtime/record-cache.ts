/**
 * Market records already rendered, kept on the gateway thread so that reading an unchanged record
 * again costs no replay (decision I12).
 *
 * A record is a pure function of the commands the market's record holds (engine/record.ts), and
 * a record only ever grows: every recorded command appends to it, deadlines included (they are
 * recorded system commands). So (market id, record length) names one record exactly, and an
 * entry is valid for as long as the market's record has the length it was rendered at. The shard
 * states that length with the work it hands back (ReplayWork "record").
 *
 * Two reads of the same record that overlap share one replay. Entries are evicted least recently
 * used first, to stay within `maxBytes` of JSON; a record larger than the whole bound is not kept.
 *
 * Only records of at least `minRecordLength` commands are kept (decision I22): a replay's cost
 * grows with the commands it replays, and a short record is rebuilt quickly on a replay worker,
 * while its JSON (which repeats the market's subject in every commitment) can be large. Keeping
 * every record read filled the bound with the records of a service's many small markets, memory a
 * fresh process on the same data does not need, and left little of it to the long records the
 * cache is for.
 */
import type { ReplayWork, ShardReply } from "../shard-protocol/shard-protocol.js";

/** 64 MiB: three records of a 50,000-claim storm market (~21 MB of JSON each). */
export const DEFAULT_RECORD_CACHE_BYTES = 64 * 1024 * 1024;
/** Records shorter than this many commands are replayed on every read, not kept (decision I22). */
export const DEFAULT_RECORD_CACHE_MIN_LENGTH = 1_000;

export type RecordWork = Extract<ReplayWork, { kind: "record" }>;

interface Entry {
  recordLength: number;
  reply: ShardReply & { ok: true };
  sizeBytes: number;
}

export interface RecordCacheStats {
  hits: number;
  /** Reads that joined a replay already under way for the same record. */
  shared: number;
  replays: number;
  entries: number;
  sizeBytes: number;
}

function sizeOf(json: string | Buffer): number {
  return typeof json === "string" ? Buffer.byteLength(json) : json.byteLength;
}

export class RecordCache {
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, { recordLength: number; reply: Promise<ShardReply> }>();
  private sizeBytes = 0;
  private hits = 0;
  private shared = 0;
  private replays = 0;

  constructor(
    private readonly maxBytes: number = DEFAULT_RECORD_CACHE_BYTES,
    private readonly minRecordLength: number = DEFAULT_RECORD_CACHE_MIN_LENGTH,
  ) {
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) throw new RangeError(`record cache bytes must be a non-negative integer, not ${maxBytes}`);
    if (!(Number.isSafeInteger(minRecordLength) && minRecordLength >= 0)) throw new RangeError(`record cache minimum length must be a non-negative integer, not ${minRecordLength}`);
  }

  /** The record `work` describes: kept, being replayed for another reader, or replayed now by `replay`. */
  answer(work: RecordWork, replay: (work: RecordWork) => Promise<ShardReply>): Promise<ShardReply> {
    const entry = this.entries.get(work.marketId);
    if (entry !== undefined && entry.recordLength === work.recordLength) {
      this.hits += 1;
      this.entries.delete(work.marketId);
      this.entries.set(work.marketId, entry);
      return Promise.resolve(entry.reply);
    }
    const running = this.inFlight.get(work.marketId);
    if (running !== undefined && running.recordLength === work.recordLength) {
      this.shared += 1;
      return running.reply;
    }
    this.replays += 1;
    const reply = replay(work);
    const flight = { recordLength: work.recordLength, reply };
    this.inFlight.set(work.marketId, flight);
    const settle = () => {
      if (this.inFlight.get(work.marketId) === flight) this.inFlight.delete(work.marketId);
    };
    reply.then((answer) => {
      settle();
      if (answer.ok && work.recordLength >= this.minRecordLength) this.keep(work.marketId, work.recordLength, answer);
    }, settle);
    return reply;
  }

  private keep(marketId: string, recordLength: number, reply: ShardReply & { ok: true }): void {
    const current = this.entries.get(marketId);
    // A longer record may already be kept (a later read finished first): records only grow.
    if (current !== undefined && current.recordLength > recordLength) return;
    this.drop(marketId);
    const sizeBytes = sizeOf(reply.json);
    if (sizeBytes > this.maxBytes) return;
    this.entries.set(marketId, { recordLength, reply, sizeBytes });
    this.sizeBytes += sizeBytes;
    for (const [oldest] of this.entries) {
      if (this.sizeBytes <= this.maxBytes) break;
      this.drop(oldest);
    }
  }

  private drop(marketId: string): void {
    const entry = this.entries.get(marketId);
    if (entry === undefined) return;
    this.entries.delete(marketId);
    this.sizeBytes -= entry.sizeBytes;
  }

  get stats(): RecordCacheStats {
    return { hits: this.hits, shared: this.shared, replays: this.replays, entries: this.entries.size, sizeBytes: this.sizeBytes };
  }
}
