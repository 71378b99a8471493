/**
 * The live market events of this node (docs/events.md): one feed per market that has subscribers
 * here, fed by the owning shard once it was told to watch the market, and fanned out to each
 * subscriber's open stream.
 *
 * - A shard renders events only for watched markets (shard-core.ts), so a market nobody watches
 *   costs nothing on the claim path. The first subscriber of a market here starts the watch, the
 *   last one to leave stops it.
 * - Events arrive after their batch is durable (the shard emits them after its commit, with the
 *   batch's replies). The watch's answer names the market's last event sequence at that commit;
 *   everything after it arrives live, everything up to it is in the record.
 * - A subscriber resuming from an earlier sequence gets its backlog from the record (the record
 *   read path, replayed on the worker pool), while live events are kept for it; then the live
 *   ones the backlog did not hold. Each event goes out once: by sequence.
 * - Events that arrive within DEFAULT_FLUSH_INTERVAL_MS are rendered once per view and written
 *   to each subscriber in one write.
 */
import type { Markets } from "../../engine/runtime/markets.js";
import { jsonText, type EmittedEvent, type WatchAnswer } from "../../engine/shard-protocol/shard-protocol.js";
import { renderedEvent } from "../../engine/events/public-event.js";
import type { Event } from "@market-service/client/wire";
import { errorReply } from "../http/replies.js";
import { serviceUnavailableReply } from "../http/readiness.js";
import type { HttpReply } from "../http/route.js";
import type { LogFn } from "../http/log.js";
import { EventSubscriber } from "./event-subscriber.js";
import { feedBatch } from "./feed-batch.js";
import type { StreamEndCode } from "./sse-frames.js";

export const EVENT_STREAM_CONTENT_TYPE = "text/event-stream";

/**
 * Live events are written to the subscribers at most this often: each write to a subscriber is a
 * send() on the gateway thread, and with many subscribers on a hot market writing every turn's
 * events at once cost the claims more than it gained subscribers in latency (docs/events.md, "Cost").
 */
export const DEFAULT_FLUSH_INTERVAL_MS = 20;

export interface EventHubOptions {
  /** Characters of events one subscriber may leave unread before its stream ends with an overflow. */
  subscriberBufferBytes: number;
  /** A comment on every stream that carried nothing for this long (and the check for clients that left). */
  keepAliveMs: number;
  /** Events are written to subscribers at most this often (default DEFAULT_FLUSH_INTERVAL_MS). */
  flushIntervalMs?: number;
  log: LogFn;
}

/** One market's subscribers on this node and the state of its watch. */
class MarketFeed {
  readonly subscribers = new Set<EventSubscriber>();
  /** Subscribers waiting for the watch's answer. */
  joining = 0;
  answer: WatchAnswer | undefined;
  /** The last sequence received (or, before any, the watch's `lastSequence`). */
  lastSeen = 0;
  /** Events were lost on the way (a gap), or the market moved: the feed ends, its subscribers resume. */
  broken = false;
  /** Its watch was ended (each answered watch is ended exactly once). */
  dropped = false;
  /** Events received in this turn, rendered at its end. */
  arrived: EmittedEvent[] = [];
  /** The watch's answer, or the error reply of a market that cannot be watched. */
  watch: Promise<WatchAnswer | HttpReply> = Promise.resolve(errorReply("internal_error", "not watched yet"));

  constructor(readonly marketId: string) {}
}

export class EventHub {
  private readonly feeds = new Map<string, MarketFeed>();
  private readonly arrivedIn: MarketFeed[] = [];
  private flushScheduled = false;
  private lastFlushMs = 0;
  private readonly keepAlive: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly markets: Pick<Markets, "listenForEvents" | "watchMarket" | "readRecord">,
    private readonly options: EventHubOptions,
  ) {
    markets.listenForEvents({
      events: (events) => this.receive(events),
      moved: (moved) => this.endStreams(moved, "owner_changed", "the market's partition moved to another node; resume after resumeAfter"),
    });
    this.keepAlive = setInterval(() => this.tick(), options.keepAliveMs);
    this.keepAlive.unref();
  }

  /** Subscribers on this node, over all markets (metrics, tests). */
  get subscriberCount(): number {
    let count = 0;
    for (const feed of this.feeds.values()) count += feed.subscribers.size;
    return count;
  }

  /**
   * The reply to `GET /v1/markets/{id}/events` of an authenticated actor: the open stream, or the
   * error the market's `GET` would give (404) before anything is streamed. `after`: the sequence
   * to resume after; undefined starts after the market's last event now (live only).
   */
  async subscribe(marketId: string, actorId: string, after: number | undefined): Promise<HttpReply> {
    if (this.closed) return serviceUnavailableReply("the service is stopping");
    const joined = await this.join(marketId);
    if (!(joined instanceof MarketFeed)) return joined;
    const feed = joined;
    const answer = feed.answer as WatchAnswer;
    const creator = actorId === answer.creator.principalId || actorId === answer.creator.actorId;
    const liveFrom = feed.lastSeen;
    const start = after ?? liveFrom;
    const subscriber = new EventSubscriber(creator, start, this.options.subscriberBufferBytes, (ended) => this.leave(feed, ended));
    feed.subscribers.add(subscriber);
    return {
      status: 200,
      contentType: EVENT_STREAM_CONTENT_TYPE,
      openStream: (stream) => {
        subscriber.attach(stream);
        void this.catchUp(feed, subscriber, start, liveFrom);
      },
      cancel: () => this.leave(feed, subscriber),
    };
  }

  /** The feed of `marketId` once its watch is answered, or the error reply (no such market, 503). */
  private async join(marketId: string): Promise<MarketFeed | HttpReply> {
    for (;;) {
      let feed = this.feeds.get(marketId);
      if (feed === undefined) {
        feed = new MarketFeed(marketId);
        feed.watch = this.startWatch(feed);
        this.feeds.set(marketId, feed);
      }
      feed.joining += 1;
      let answer: WatchAnswer | HttpReply;
      try {
        answer = await feed.watch;
      } catch (error) {
        // No longer joining before the drop: a feed whose watch failed (the owner not reachable
        // yet) must not stay, or every later subscriber would get the same failure.
        feed.joining -= 1;
        this.dropIfIdle(feed);
        throw error;
      }
      feed.joining -= 1;
      if (!("lastSequence" in answer)) {
        this.dropIfIdle(feed);
        return answer;
      }
      // A feed dropped meanwhile (its last subscriber left, or it broke) is watched afresh.
      if (this.feeds.get(marketId) === feed && !feed.broken) return feed;
      this.dropIfIdle(feed);
    }
  }

  private async startWatch(feed: MarketFeed): Promise<WatchAnswer | HttpReply> {
    const reply = await this.markets.watchMarket(feed.marketId, true);
    if (!reply.ok) return errorReply(reply.code, reply.message);
    const answer = JSON.parse(jsonText(reply.json)) as WatchAnswer;
    feed.answer = answer;
    feed.lastSeen = answer.lastSequence;
    return answer;
  }

  /** The backlog from the record when the subscriber starts before the live events, then live. */
  private async catchUp(feed: MarketFeed, subscriber: EventSubscriber, start: number, liveFrom: number): Promise<void> {
    try {
      if (start < liveFrom) {
        const creator = (feed.answer as WatchAnswer).creator;
        // The service reads the record on the subscriber's behalf (as its creator may), and sends
        // each subscriber only what it may see of each event.
        const reply = await this.markets.readRecord(feed.marketId, creator.actorId);
        if (!reply.ok) {
          subscriber.end("service_unavailable", `the market's events could not be read now (${reply.message}); resume later`);
          return;
        }
        const record = JSON.parse(jsonText(reply.json)) as { events: Event[] };
        const backlog = record.events
          .filter((event) => (event.sequence ?? 0) > start)
          .map((event) => renderedEvent(event, { record: subscriber.creator, public: !subscriber.creator }));
        await subscriber.writeBacklog(backlog);
      }
      subscriber.goLive();
    } catch (error) {
      this.options.log("warn", "reading a subscriber's backlog failed", { marketId: feed.marketId, error: error instanceof Error ? error.message : String(error) });
      subscriber.end("service_unavailable", "the market's events could not be read now; resume later");
    }
  }

  private leave(feed: MarketFeed, subscriber: EventSubscriber): void {
    feed.subscribers.delete(subscriber);
    this.dropIfIdle(feed);
  }

  /** A feed nobody uses any more is dropped; a watched one is unwatched at its shard. */
  private dropIfIdle(feed: MarketFeed): void {
    if (feed.subscribers.size > 0 || feed.joining > 0 || feed.dropped) return;
    feed.dropped = true;
    if (this.feeds.get(feed.marketId) === feed) this.feeds.delete(feed.marketId);
    if (feed.answer === undefined || this.closed) return;
    this.markets.watchMarket(feed.marketId, false).catch((error: unknown) => {
      // The shard then renders this market's events for nobody until a later watch and unwatch: a cost, not a leak of data.
      this.options.log("warn", "unwatching a market failed", { marketId: feed.marketId, error: error instanceof Error ? error.message : String(error) });
    });
  }

  /** Committed events from the shards (after their batch is durable). */
  private receive(events: readonly EmittedEvent[]): void {
    for (const event of events) {
      const feed = this.feeds.get(event.marketId);
      // Before the watch's answer every event is in the record up to its `lastSequence`.
      if (feed === undefined || feed.answer === undefined || feed.broken || event.sequence <= feed.lastSeen) continue;
      if (event.sequence !== feed.lastSeen + 1) {
        // A watched market's every event is emitted, so a jump means some never arrived (a cluster
        // message lost): resuming from the record is the only way to send them.
        this.breakFeed(feed);
        continue;
      }
      feed.lastSeen = event.sequence;
      if (feed.arrived.length === 0) this.arrivedIn.push(feed);
      feed.arrived.push(event);
    }
    if (this.arrivedIn.length > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      // At the end of this turn, or once the interval since the last write has passed.
      const waitMs = this.lastFlushMs + (this.options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS) - performance.now();
      if (waitMs <= 0) setImmediate(() => this.flush());
      else setTimeout(() => this.flush(), waitMs);
    }
  }

  private breakFeed(feed: MarketFeed): void {
    feed.broken = true;
    // The next subscriber watches afresh; this feed's watch ends when its subscribers have left.
    if (this.feeds.get(feed.marketId) === feed) this.feeds.delete(feed.marketId);
    feed.arrived = [];
    this.options.log("warn", "live events of a market arrived with a gap; its streams end and resume from the record", { marketId: feed.marketId, lastSeen: feed.lastSeen });
    for (const subscriber of [...feed.subscribers]) subscriber.end("resume_required", "some events did not arrive live; resume after resumeAfter");
  }

  private flush(): void {
    this.flushScheduled = false;
    this.lastFlushMs = performance.now();
    const feeds = this.arrivedIn.splice(0);
    for (const feed of feeds) {
      if (feed.broken) continue;
      const batch = feedBatch(feed.arrived);
      feed.arrived = [];
      for (const subscriber of feed.subscribers) subscriber.deliver(batch);
    }
  }

  private tick(): void {
    for (const feed of this.feeds.values()) for (const subscriber of feed.subscribers) subscriber.tick();
  }

  /**
   * Ends the streams of the markets `which` selects with `event: end` (a cluster node that no longer
   * owns a market's partition: the client resumes at the new owner).
   */
  endStreams(which: (marketId: string) => boolean, code: StreamEndCode, message: string): void {
    for (const feed of [...this.feeds.values()]) {
      if (!which(feed.marketId)) continue;
      // The next subscriber watches afresh (at the new owner, after a move).
      if (this.feeds.get(feed.marketId) === feed) this.feeds.delete(feed.marketId);
      feed.broken = true;
      for (const subscriber of [...feed.subscribers]) subscriber.end(code, message);
    }
  }

  /** The service stops: every stream ends with `event: end` (`shutting_down`); nothing new is accepted. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.endStreams(() => true, "shutting_down", "the service is stopping; resume after resumeAfter");
    this.feeds.clear();
  }
}
