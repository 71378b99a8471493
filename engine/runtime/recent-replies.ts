/**
 * The replies a shard keeps for fast retries (shard-core.ts `replyAt`): the newest ones, at most
 * `maxEntries` of them and `maxChars` characters of their text in all. A count alone bounded
 * nothing: every reply repeats its market's subject (in the market and in each commitment's
 * terms), which a client may make up to the body limit, so a few thousand kept replies could hold
 * gigabytes. Older replies are recomputed from the log, byte for byte the same; one larger than the
 * whole bound is not kept.
 *
 * A ring in log order. Replies are kept as their commands are logged, so their positions ascend:
 * the oldest leaves from the front at no cost, and a retry finds its reply by binary search. (A Map
 * in insertion order did the same job at a cost per kept reply that grew with the bound: reaching
 * its oldest entry walks over every entry deleted before it until the table is rebuilt.)
 */
import type { ShardReply } from "../shard-protocol/shard-protocol.js";

/** What a kept reply costs, in characters of its text (O(1): no encoding is measured). */
export function charsOf(reply: ShardReply): number {
  if (!reply.ok) return reply.code.length + reply.message.length;
  return typeof reply.json === "string" ? reply.json.length : reply.json.byteLength;
}

export class RecentReplies {
  /** Slot `(first + i) % maxEntries` holds the i-th oldest kept reply, for i below `count`. */
  private readonly positions: number[];
  private readonly replies: Array<ShardReply | undefined>;
  private first = 0;
  private count = 0;
  private charsKept = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {
    if (!(Number.isSafeInteger(maxEntries) && maxEntries >= 0)) throw new RangeError(`kept replies must be a non-negative integer, not ${maxEntries}`);
    if (!(Number.isSafeInteger(maxChars) && maxChars >= 0)) throw new RangeError(`kept replies' characters must be a non-negative integer, not ${maxChars}`);
    this.positions = new Array<number>(maxEntries).fill(0);
    this.replies = new Array<ShardReply | undefined>(maxEntries).fill(undefined);
  }

  /** The most replies kept at once. */
  get capacity(): number {
    return this.maxEntries;
  }

  /** The most characters the kept replies hold at once. */
  get capacityChars(): number {
    return this.maxChars;
  }

  /** Replies kept. */
  get size(): number {
    return this.count;
  }

  /** Characters of the replies kept. */
  get chars(): number {
    return this.charsKept;
  }

  /** Keeps the reply of the command logged at `position`, after every one kept so far; the oldest leave to stay within the bounds. */
  remember(position: number, reply: ShardReply): void {
    const chars = charsOf(reply);
    if (this.maxEntries === 0 || chars > this.maxChars) return;
    if (this.count > 0 && position <= this.positionAt(this.count - 1)) {
      throw new Error(`a reply is kept at log position ${position}, not after the newest kept one's (${this.positionAt(this.count - 1)})`);
    }
    while (this.count > 0 && (this.count === this.maxEntries || this.charsKept + chars > this.maxChars)) this.dropOldest();
    const slot = (this.first + this.count) % this.maxEntries;
    this.positions[slot] = position;
    this.replies[slot] = reply;
    this.count += 1;
    this.charsKept += chars;
  }

  /** The reply kept for the command logged at `position`, if it still is. */
  get(position: number): ShardReply | undefined {
    let low = 0;
    let high = this.count - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.positionAt(mid);
      if (at === position) return this.replies[(this.first + mid) % this.maxEntries];
      if (at < position) low = mid + 1;
      else high = mid - 1;
    }
    return undefined;
  }

  private positionAt(index: number): number {
    return this.positions[(this.first + index) % this.maxEntries] as number;
  }

  private dropOldest(): void {
    this.charsKept -= charsOf(this.replies[this.first] as ShardReply);
    this.replies[this.first] = undefined;
    this.first = (this.first + 1) % this.maxEntries;
    this.count -= 1;
  }
}
