/**
 * A journal on a NATS JetStream stream, for the cluster mode (issue 27): one stream per journal (a
 * partition), replicated on `replicas` NATS nodes (3), file storage; the servers run with
 * `jetstream { sync_interval: always }`, so an acknowledged publish is fsynced on a quorum.
 *
 * - One appended batch is ONE message (jetstream-batch.ts): the group commit's cost, a quorum's
 *   fsync, is paid once per batch, and a batch is stored whole or not at all.
 * - Every publish expects the stream's last message to be the last batch this journal knows of
 *   (`Nats-Expected-Last-Sequence`): if another writer appended meanwhile, the stream refuses
 *   (API error 10071) and nothing is stored. With `expectedLastSequence` that refusal is the
 *   journal's JournalFencedError; without it the journal learns the new tail and appends after it.
 *   Either way batches stay contiguous, which is what lets entry sequences be derived from them.
 * - Every batch has an id of its own (`Nats-Msg-Id`: this journal's random id and a counter). A
 *   publish that timed out may still have been stored ("outcome unknown"); it is retried with the
 *   same id and the same expected sequence, and JetStream answers the retry of a stored message as
 *   a duplicate with its original sequence instead of storing it twice. Should the retry meet the
 *   fence instead, the message after the expected one is read: if it carries the batch's id, the
 *   batch was stored. An id is never shared between batches, so one writer's retry can never be
 *   taken for another writer's batch.
 * - Retries (timeouts, no responders while a stream leader is elected, 503s) go on until the
 *   append deadline; past it, or on any other error, the journal fails for good: the append is
 *   rejected with a plain Error, so nothing of the batch is acknowledged and the writer stops.
 * - Appends run one at a time, in call order (each needs the tail the previous one made).
 *
 * Reading: `read` finds the batch holding the first wanted entry (batches carry their first
 * sequence and are contiguous, so a binary search over stream sequences finds it) and streams from
 * there with an ordered consumer up to the stream's last message at the time of the call.
 * `readAt` is synchronous in the Journal interface and a NATS read is not: it answers from a
 * bounded cache of the batches recently appended or read, and throws JournalPositionNotCachedError
 * for anything else; `fetchAt` is its asynchronous form that reads the stream on a miss.
 * `readView` (segment files for replay threads) has no JetStream form yet and throws.
 *
 * Following (a stream several writers share, the identity stream): `follow` hands over every entry
 * as the stream delivers it, and a batch it sees that extends the known tail becomes the tail; an
 * append whose expected sequence is beyond the tail this journal knows learns the stream's tail
 * first (the caller saw newer entries than this journal did), then is judged as any other.
 *
 * The connection is the caller's: the journal never closes it, so a node's partitions share one.
 */
import { randomBytes } from "node:crypto";
import {
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type StreamInfo,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { BatchCache, type CachedBatch } from "./batch-cache.js";
import { MAX_BATCH_ENTRIES, MAX_STREAM_SEQUENCE, decodeBatch, decodeBatchHeader, encodeBatch, locate, positionOf } from "./jetstream-batch.js";
import { errorText, pause, backoffMs, retryable, withRetries } from "./jetstream-retry.js";
import { ORDERED_CONSUME_SETTINGS, closeWhenStuck } from "./jetstream-consumer.js";
import { followStream } from "./jetstream-follow.js";
import { JetStreamSnapshots, type SnapshotMark } from "./jetstream-snapshots.js";
import type { FollowingJournal, JournalFollower } from "./following-journal.js";
import {
  JournalFencedError,
  type AppendOptions,
  type Journal,
  type JournalEntry,
  type JournalPosition,
  type JournalReadView,
  type JournalRecovery,
  type JournalSnapshot,
} from "./journal.js";

/** JetStream's "wrong last sequence" API error: the publish's expected last sequence is not the stream's. */
const WRONG_LAST_SEQUENCE = 10071;
const MSG_ID_HEADER = "Nats-Msg-Id";
/** Room for a batch message's headers (its id and expected last sequence) within max_payload. */
const HEADER_ALLOWANCE_BYTES = 512;

export const DEFAULT_SNAPSHOT_BUCKET = "journal-snapshots";
const DEFAULT_REQUEST_TIMEOUT_MS = 2_000;
/** Longer than a stream's leader election after its leader's death (shared/notes/nats.md). */
const DEFAULT_RETRY_DEADLINE_MS = 15_000;

export interface JetStreamJournalOptions {
  /** An open connection, the caller's (the journal does not close it). */
  readonly connection: NatsConnection;
  /** The stream's name (letters, digits, `-`, `_`); its one subject is `journal.<name>`. */
  readonly name: string;
  /** Replicas of the stream and of the snapshot bucket when the journal creates them (default 3). */
  readonly replicas?: number;
  /** The object store bucket holding snapshots (shared by all journals; default "journal-snapshots"). */
  readonly snapshotBucket?: string;
  /** How long one request (a publish, a read) waits for its answer before it is retried (default 2000 ms). */
  readonly requestTimeoutMs?: number;
  /**
   * How long an open, an append or a read keeps retrying through timeouts and refusals (a stream
   * electing a leader) before it gives up (default 15000 ms); an append that gives up fails the
   * journal for good.
   */
  readonly retryDeadlineMs?: number;
  /** Bytes of recent batches kept for `readAt` (default 8 MiB). */
  readonly cacheBytes?: number;
  /** Called before each retried publish (metrics, and tests that need to see the retry happen). */
  readonly onRetry?: (retry: PublishRetry) => void;
}

export interface PublishRetry {
  /** The attempt about to be made: 2 for the first retry. */
  readonly attempt: number;
  /** Whether an earlier attempt of this batch may have been stored (it timed out). */
  readonly outcomeUnknown: boolean;
  readonly reason: string;
}

/** `readAt` of a position whose batch is not in the cache: a synchronous read cannot reach NATS. */
export class JournalPositionNotCachedError extends Error {
  override name = "JournalPositionNotCachedError";
  constructor(readonly position: JournalPosition) {
    super(`position ${position} is not among the JetStream journal's cached batches, and a synchronous read cannot reach NATS: use fetchAt`);
  }
}

/** Counters for metrics (and for tests that must see a retry or a duplicate happen). */
export interface JetStreamJournalFigures {
  readonly cachedBatches: number;
  readonly cachedBytes: number;
  readonly publishRetries: number;
  /** Retries JetStream answered as a duplicate of a batch an earlier attempt had stored. */
  readonly duplicatesAcknowledged: number;
}

type PublishOutcome = { readonly stored: true; readonly streamSequence: number } | { readonly stored: false; readonly lastStreamSequence: number };

export class JetStreamJournal implements FollowingJournal {
  private readonly subject: string;
  private readonly cache: BatchCache;
  /** Unique to this journal object: the first half of every batch id it publishes. */
  private readonly writerId = randomBytes(12).toString("base64url");
  private batchCounter = 0;
  private appendQueue: Promise<unknown> = Promise.resolve();
  private appendsPending = 0;
  private closed = false;
  private failure: Error | undefined;
  private retries = 0;
  private duplicates = 0;

  private constructor(
    private readonly options: JetStreamJournalOptions,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly snapshots: JetStreamSnapshots,
    /** The stream sequence of the last batch this journal knows of, and that batch's id and last entry. */
    private tail: { streamSequence: number; lastSequence: number; batchId: string },
    private bytes: number,
    readonly snapshot: JournalSnapshot | undefined,
    /** Where the snapshot's entries end in the stream (a read after them starts at the next message). */
    private readonly snapshotMark: SnapshotMark | undefined,
    readonly recovery: JournalRecovery,
    cache: BatchCache,
  ) {
    this.subject = `journal.${options.name}`;
    this.cache = cache;
  }

  /**
   * Opens the journal on stream `name`, creating the stream (R`replicas`, file storage, no
   * deletes or purges) if it does not exist; reads its last batch to learn the last sequence, and
   * the newest snapshot, checked against the stream.
   */
  static async open(options: JetStreamJournalOptions): Promise<JetStreamJournal> {
    if (!/^[A-Za-z0-9_-]+$/.test(options.name)) throw new Error(`journal name ${JSON.stringify(options.name)} must be letters, digits, "-" or "_" (it names a stream and a subject)`);
    // Every step is a read or an idempotent create: an open that met an election starts over.
    return withRetries(`opening the JetStream journal ${options.name}`, options.retryDeadlineMs ?? DEFAULT_RETRY_DEADLINE_MS, () => JetStreamJournal.openOnce(options));
  }

  private static async openOnce(options: JetStreamJournalOptions): Promise<JetStreamJournal> {
    const replicas = options.replicas ?? 3;
    const connection = options.connection;
    const clientOptions = { timeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS };
    const jsm = await jetstreamManager(connection, clientOptions);
    const js = jetstream(connection, clientOptions);
    const info = await JetStreamJournal.ensureStream(jsm, options.name, replicas);
    const cache = new BatchCache(options.cacheBytes ?? 8 * 1024 * 1024);
    const state = info.state;
    if (state.messages > 0 && state.first_seq !== 1) {
      throw new Error(`stream ${options.name} starts at message ${state.first_seq}: messages were removed from it, so its journal is not whole`);
    }
    let tail = { streamSequence: 0, lastSequence: 0, batchId: "" };
    let lastBatchCount = 0;
    if (state.last_seq > 0) {
      const message = await jsm.streams.getMessage(options.name, { seq: state.last_seq });
      if (message === null) throw new Error(`stream ${options.name} reports last message ${state.last_seq} but does not return it`);
      const batch = decodeBatch(message.data, state.last_seq);
      cache.put({ ...batch, streamSequence: state.last_seq });
      tail = { streamSequence: state.last_seq, lastSequence: batch.firstSequence + batch.count - 1, batchId: message.header.get(MSG_ID_HEADER) };
      lastBatchCount = batch.count;
    }

    const snapshots = await JetStreamSnapshots.open(js, options.snapshotBucket ?? DEFAULT_SNAPSHOT_BUCKET, replicas);
    const stored = await snapshots.newest(options.name);
    let snapshot: JournalSnapshot | undefined;
    let snapshotMark: SnapshotMark | undefined;
    let snapshotIgnored: string | null = null;
    if (stored !== undefined) {
      const mark = stored.mark;
      if (mark.streamSequence > tail.streamSequence || mark.sequence > tail.lastSequence) {
        throw new Error(`snapshot of sequence ${mark.sequence} (message ${mark.streamSequence}) is newer than stream ${options.name} (last sequence ${tail.lastSequence}, message ${tail.streamSequence})`);
      }
      const problem = await JetStreamJournal.checkMark(jsm, options.name, mark);
      if (problem === undefined) {
        snapshot = { sequence: mark.sequence, payload: stored.payload };
        snapshotMark = mark;
      } else {
        snapshotIgnored = problem;
      }
    }
    // Open reads only the last batch: the entries before it are taken on the replicated stream's word.
    const recovery: JournalRecovery = { truncatedBytes: 0, entriesTrusted: tail.lastSequence - lastBatchCount, snapshotIgnored };
    return new JetStreamJournal(options, js, jsm, snapshots, tail, state.bytes, snapshot, snapshotMark, recovery, cache);
  }

  private static async ensureStream(jsm: JetStreamManager, name: string, replicas: number): Promise<StreamInfo> {
    const subject = `journal.${name}`;
    let info: StreamInfo;
    try {
      info = await jsm.streams.info(name);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === 10059)) throw error;
      // Two openers may race here; adding a stream with the same configuration is idempotent.
      info = await jsm.streams.add({
        name,
        subjects: [subject],
        storage: StorageType.File,
        num_replicas: replicas,
        retention: RetentionPolicy.Limits,
        // A journal only grows: nobody deletes or purges its entries.
        deny_delete: true,
        deny_purge: true,
        // Reads go to the stream leader, which holds every acknowledged batch; a direct get may be
        // answered by a follower that has not stored the latest one yet.
        allow_direct: false,
      });
    }
    const config = info.config;
    if (!config.subjects?.includes(subject) || config.num_replicas !== replicas || config.storage !== StorageType.File) {
      throw new Error(`stream ${name} exists with another configuration (subjects ${JSON.stringify(config.subjects)}, ${config.num_replicas} replicas, ${config.storage} storage) than a journal's (${subject}, ${replicas}, file)`);
    }
    return info;
  }

  /** Why a snapshot's mark does not match the stream, or undefined if it does. */
  private static async checkMark(jsm: JetStreamManager, name: string, mark: SnapshotMark): Promise<string | undefined> {
    if (mark.streamSequence === 0) return mark.sequence === 0 ? undefined : `snapshot of sequence ${mark.sequence} names no message`;
    const message = await jsm.streams.getMessage(name, { seq: mark.streamSequence });
    if (message === null) return `snapshot at sequence ${mark.sequence}: the stream has no message ${mark.streamSequence}`;
    if (message.header.get(MSG_ID_HEADER) !== mark.batchId) return `snapshot at sequence ${mark.sequence}: message ${mark.streamSequence} is another batch than the one it was taken after`;
    const header = decodeBatchHeader(message.data, mark.streamSequence);
    if (header.firstSequence + header.count - 1 !== mark.sequence) return `snapshot at sequence ${mark.sequence}: message ${mark.streamSequence} ends at sequence ${header.firstSequence + header.count - 1}`;
    return undefined;
  }

  get lastSequence(): number {
    return this.tail.lastSequence;
  }

  /** The stream's bytes when the journal was opened plus the batch bodies appended since. */
  get sizeBytes(): number {
    return this.bytes;
  }

  get figures(): JetStreamJournalFigures {
    return { cachedBatches: this.cache.size, cachedBytes: this.cache.sizeBytes, publishRetries: this.retries, duplicatesAcknowledged: this.duplicates };
  }

  append(payloads: readonly Uint8Array[], options: AppendOptions = {}): Promise<JournalPosition[]> {
    if (this.closed) return Promise.reject(new Error(`the JetStream journal ${this.options.name} is closed`));
    this.appendsPending += 1;
    const run = this.appendQueue.then(() => this.appendNow(payloads, options));
    this.appendQueue = run.then(
      () => (this.appendsPending -= 1),
      () => (this.appendsPending -= 1),
    );
    return run;
  }

  private async appendNow(payloads: readonly Uint8Array[], options: AppendOptions): Promise<JournalPosition[]> {
    if (this.failure !== undefined) throw this.failure;
    const expected = options.expectedLastSequence;
    // A caller that follows the stream may know of entries this journal has not seen (appended by
    // other writers): the stream's tail is learnt, then judged like any other.
    if (expected !== undefined && expected > this.tail.lastSequence) await this.refreshTail();
    if (expected !== undefined && expected !== this.tail.lastSequence) throw new JournalFencedError(expected, this.tail.lastSequence);
    if (payloads.length === 0) return [];
    if (payloads.length > MAX_BATCH_ENTRIES) throw new RangeError(`a batch holds at most ${MAX_BATCH_ENTRIES} entries, not ${payloads.length}`);
    for (;;) {
      const streamSequence = this.tail.streamSequence + 1;
      if (streamSequence > MAX_STREAM_SEQUENCE) throw new RangeError(`stream ${this.options.name} is full: message ${streamSequence} would have positions past the safe integers`);
      const body = encodeBatch(this.tail.lastSequence + 1, payloads);
      const maxPayload = this.options.connection.info?.max_payload;
      if (maxPayload !== undefined && body.length + HEADER_ALLOWANCE_BYTES > maxPayload) {
        throw new RangeError(`a batch of ${body.length} bytes does not fit the NATS servers' max_payload (${maxPayload} bytes with its headers): nothing was appended`);
      }
      this.batchCounter += 1;
      const batchId = `${this.writerId}-${this.batchCounter}`;
      let outcome: PublishOutcome;
      try {
        outcome = await this.publish(body, batchId, this.tail.streamSequence);
      } catch (error) {
        this.failure = new Error(`the JetStream journal ${this.options.name} failed: ${errorText(error)}; nothing of the batch may be acknowledged`, { cause: error });
        throw this.failure;
      }
      if (outcome.stored) {
        const batch: CachedBatch = { ...decodeBatch(body, outcome.streamSequence), streamSequence: outcome.streamSequence };
        this.cache.put(batch);
        // A follower may have seen this batch, and later ones, before its acknowledgement came.
        if (outcome.streamSequence > this.tail.streamSequence) {
          this.tail = { streamSequence: outcome.streamSequence, lastSequence: batch.firstSequence + batch.count - 1, batchId };
        }
        this.bytes += body.length;
        return payloads.map((_, index) => positionOf(outcome.streamSequence, index));
      }
      // Another writer appended: learn the stream's tail (unless following it already brought it);
      // refuse if the caller expected the old one.
      try {
        if (this.tail.streamSequence < outcome.lastStreamSequence) {
          await withRetries(`reading the tail of stream ${this.options.name}`, this.retryDeadlineMs, () => this.learnTail(outcome.lastStreamSequence));
        }
      } catch (error) {
        this.failure = new Error(`the JetStream journal ${this.options.name} failed: ${errorText(error)}`, { cause: error });
        throw this.failure;
      }
      if (expected !== undefined) throw new JournalFencedError(expected, this.tail.lastSequence);
    }
  }

  /**
   * Publishes one batch expecting `expectedStreamSequence` to be the stream's last message, retrying
   * until the append deadline; resolves with where it was stored, or with the stream's real last
   * message if another writer's batch is there.
   */
  private async publish(body: Uint8Array, batchId: string, expectedStreamSequence: number): Promise<PublishOutcome> {
    const deadline = Date.now() + this.retryDeadlineMs;
    const timeout = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    let outcomeUnknown = false;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      try {
        const ack = await this.js.publish(this.subject, body, { msgID: batchId, expect: { lastSequence: expectedStreamSequence }, timeout });
        if (ack.stream !== this.options.name || ack.seq !== expectedStreamSequence + 1) {
          throw new Error(`JetStream acknowledged batch ${batchId} as message ${ack.seq} of stream ${ack.stream}, not message ${expectedStreamSequence + 1} of ${this.options.name}`);
        }
        if (ack.duplicate) this.duplicates += 1;
        return { stored: true, streamSequence: ack.seq };
      } catch (error) {
        if (error instanceof JetStreamApiError && error.code === WRONG_LAST_SEQUENCE) {
          try {
            return await this.afterRefusal(error, batchId, expectedStreamSequence, outcomeUnknown);
          } catch (checkError) {
            // The check itself met the outage: try the publish again (the dedup window answers it).
            if (!retryable(checkError).retry) throw checkError;
            reason = errorText(checkError);
          }
        } else {
          const verdict = retryable(error);
          if (!verdict.retry) throw error;
          outcomeUnknown ||= verdict.unknown;
          reason = errorText(error);
        }
      }
      if (Date.now() >= deadline) {
        throw new Error(`batch ${batchId} not acknowledged within the append deadline${outcomeUnknown ? " (it may have been stored)" : ""}; last error ${reason}`);
      }
      this.retries += 1;
      this.options.onRetry?.({ attempt: attempt + 1, outcomeUnknown, reason });
      // Back off a little: a stream without a leader answers at once, and an election takes seconds.
      await pause(backoffMs(attempt));
    }
  }

  /**
   * After the stream refused a publish (its last message is not the expected one): the batch was
   * stored after all if an earlier, timed-out attempt of it is the message after the expected one;
   * otherwise another writer's batch is there.
   */
  private async afterRefusal(refusal: JetStreamApiError, batchId: string, expectedStreamSequence: number, outcomeUnknown: boolean): Promise<PublishOutcome> {
    const stated = /wrong last sequence: (\d+)/.exec(refusal.message)?.[1];
    const last = stated !== undefined ? Number(stated) : (await this.jsm.streams.info(this.options.name)).state.last_seq;
    if (outcomeUnknown && last > expectedStreamSequence) {
      const next = await this.jsm.streams.getMessage(this.options.name, { seq: expectedStreamSequence + 1 });
      if (next !== null && next.header.get(MSG_ID_HEADER) === batchId) return { stored: true, streamSequence: expectedStreamSequence + 1 };
    }
    return { stored: false, lastStreamSequence: last };
  }

  /** Makes the batch at `streamSequence` this journal's tail (after another writer appended). */
  private async learnTail(streamSequence: number): Promise<void> {
    const message = await this.jsm.streams.getMessage(this.options.name, { seq: streamSequence });
    if (message === null) throw new Error(`stream ${this.options.name} has no message ${streamSequence}`);
    const batch: CachedBatch = { ...decodeBatch(message.data, streamSequence), streamSequence };
    this.cache.put(batch);
    this.tail = { streamSequence, lastSequence: batch.firstSequence + batch.count - 1, batchId: message.header.get(MSG_ID_HEADER) };
  }

  /** Learns the stream's last batch as this journal's tail (a failure to, as in any append, fails the journal). */
  private async refreshTail(): Promise<void> {
    const name = this.options.name;
    try {
      await withRetries(`reading the tail of stream ${name}`, this.retryDeadlineMs, async () => {
        const last = (await this.jsm.streams.info(name)).state.last_seq;
        if (last > this.tail.streamSequence) await this.learnTail(last);
      });
    } catch (error) {
      this.failure = new Error(`the JetStream journal ${name} failed: ${errorText(error)}`, { cause: error });
      throw this.failure;
    }
  }

  private get retryDeadlineMs(): number {
    return this.options.retryDeadlineMs ?? DEFAULT_RETRY_DEADLINE_MS;
  }

  /** The batch at `streamSequence`, from the cache or the stream (which then caches it). */
  private async batchAt(streamSequence: number): Promise<CachedBatch> {
    const cached = this.cache.get(streamSequence);
    if (cached !== undefined) return cached;
    const message = await withRetries(`reading message ${streamSequence} of stream ${this.options.name}`, this.retryDeadlineMs, () =>
      this.jsm.streams.getMessage(this.options.name, { seq: streamSequence }),
    );
    if (message === null) throw new Error(`stream ${this.options.name} has no message ${streamSequence}`);
    const batch: CachedBatch = { ...decodeBatch(message.data, streamSequence), streamSequence };
    this.cache.put(batch);
    return batch;
  }

  /**
   * The stream sequence of the batch holding entry `sequence`, among messages 1…`last`, or
   * undefined if they end before it. Batches are contiguous, so known batches answer at once and
   * otherwise a binary search over the messages' first sequences does.
   */
  private async batchHolding(sequence: number, last: number): Promise<number | undefined> {
    if (last === 0) return undefined;
    const cached = this.cache.holding(sequence);
    if (cached !== undefined && cached.streamSequence <= last) return cached.streamSequence;
    const mark = this.snapshotMark;
    if (mark !== undefined && mark.sequence + 1 === sequence) return mark.streamSequence < last ? mark.streamSequence + 1 : undefined;
    if (this.tail.lastSequence + 1 === sequence && this.tail.streamSequence === last) return undefined;
    let low = 1;
    let high = last;
    // Invariant: the batch holding `sequence`, if any, is among low…high.
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((await this.batchAt(middle)).firstSequence <= sequence) low = middle;
      else high = middle - 1;
    }
    const header = await this.batchAt(low);
    return header.firstSequence <= sequence && sequence < header.firstSequence + header.count ? low : undefined;
  }

  /**
   * Streams the entries after `afterSequence` up to the stream's last message when called. If the
   * ordered consumer fails on the way (a leader election), reading resumes at the next batch not
   * yet handed over; it gives up after the retry deadline without progress.
   */
  async read(afterSequence: number, onEntry: (entry: JournalEntry) => void): Promise<void> {
    if (this.closed) throw new Error(`the JetStream journal ${this.options.name} is closed`);
    const name = this.options.name;
    const last = (await withRetries(`reading the state of stream ${name}`, this.retryDeadlineMs, () => this.jsm.streams.info(name))).state.last_seq;
    const start = await this.batchHolding(afterSequence + 1, last);
    if (start === undefined) return;
    let next = start;
    let expectedFirst: number | undefined;
    const emit = (batch: CachedBatch): void => {
      if (expectedFirst !== undefined && batch.firstSequence !== expectedFirst) {
        throw new Error(`stream ${name}: message ${batch.streamSequence} starts at sequence ${batch.firstSequence}, not ${expectedFirst} (batches are not contiguous)`);
      }
      expectedFirst = batch.firstSequence + batch.count;
      next = batch.streamSequence + 1;
      batch.payloads.forEach((payload, index) => {
        const sequence = batch.firstSequence + index;
        if (sequence > afterSequence) onEntry({ sequence, position: positionOf(batch.streamSequence, index), payload });
      });
    };
    let progressDeadline = Date.now() + this.retryDeadlineMs;
    for (let attempt = 1; next <= last; attempt++) {
      if (next === last) {
        emit(await this.batchAt(next));
        return;
      }
      let problem = "the consumer stopped early";
      try {
        const consumer = await this.js.consumers.get(name, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: next });
        const messages = await consumer.consume({ max_messages: 256, ...ORDERED_CONSUME_SETTINGS });
        closeWhenStuck(messages, name, (reason) => (problem = reason.message));
        try {
          for await (const message of messages) {
            const batch: CachedBatch = { ...decodeBatch(message.data, message.seq), streamSequence: message.seq };
            this.cache.put(batch);
            emit(batch);
            progressDeadline = Date.now() + this.retryDeadlineMs;
            if (message.seq >= last) break;
          }
        } finally {
          await messages.close();
        }
      } catch (error) {
        if (!retryable(error).retry) throw error;
        problem = errorText(error);
      }
      if (next > last) return;
      if (Date.now() >= progressDeadline) throw new Error(`reading stream ${name}: no progress within ${this.retryDeadlineMs} ms at message ${next}; last: ${problem}`);
      await pause(backoffMs(attempt));
    }
  }

  readAt(position: JournalPosition): JournalEntry {
    const { streamSequence, index } = locate(position);
    const batch = this.cache.get(streamSequence);
    if (batch === undefined) throw new JournalPositionNotCachedError(position);
    return this.entryOf(batch, index, position);
  }

  /** `readAt` that reads the stream when the batch is not cached. */
  async fetchAt(position: JournalPosition): Promise<JournalEntry> {
    const { streamSequence, index } = locate(position);
    return this.entryOf(await this.batchAt(streamSequence), index, position);
  }

  /**
   * Hands every entry after `afterSequence` to `onEntry` as the stream delivers it, whoever appended
   * it (jetstream-follow.ts), until the follower is stopped. Followed batches are cached (so replies
   * logged by other writers are read back without a round trip while they are recent), and one
   * that extends this journal's tail becomes the tail, so this writer's next append expects it.
   */
  async follow(afterSequence: number, onEntry: (entry: JournalEntry) => void, onProblem?: (error: unknown) => void): Promise<JournalFollower> {
    if (this.closed) throw new Error(`the JetStream journal ${this.options.name} is closed`);
    const name = this.options.name;
    const last = (await withRetries(`reading the state of stream ${name}`, this.retryDeadlineMs, () => this.jsm.streams.info(name))).state.last_seq;
    const from = (await this.batchHolding(afterSequence + 1, last)) ?? last + 1;
    let handedOver = afterSequence;
    return followStream({
      js: this.js,
      stream: name,
      fromStreamSequence: from,
      ...(onProblem === undefined ? {} : { onProblem }),
      onBatch: ({ streamSequence, batchId, batch }) => {
        if (batch.firstSequence > handedOver + 1) {
          throw new Error(`stream ${name}: message ${streamSequence} starts at sequence ${batch.firstSequence}, after ${handedOver + 1} (batches are not contiguous)`);
        }
        const cached: CachedBatch = { ...batch, streamSequence };
        this.cache.put(cached);
        if (streamSequence === this.tail.streamSequence + 1 && batch.firstSequence === this.tail.lastSequence + 1) {
          this.tail = { streamSequence, lastSequence: batch.firstSequence + batch.count - 1, batchId };
        }
        batch.payloads.forEach((payload, index) => {
          const sequence = batch.firstSequence + index;
          if (sequence <= handedOver) return;
          handedOver = sequence;
          onEntry({ sequence, position: positionOf(streamSequence, index), payload });
        });
      },
    });
  }

  private entryOf(batch: CachedBatch, index: number, position: JournalPosition): JournalEntry {
    const payload = batch.payloads[index];
    if (payload === undefined) throw new RangeError(`position ${position}: message ${batch.streamSequence} holds ${batch.count} entries, not ${index + 1}`);
    return { sequence: batch.firstSequence + index, position, payload };
  }

  readView(): JournalReadView {
    throw new Error(`readView is not supported by the JetStream journal yet: replay threads read a journal's segment files, and a view of a stream is not built (journal ${this.options.name})`);
  }

  /**
   * Stores a snapshot of the state folded through `lastSequence` in the snapshot bucket, marked with
   * the batch that sequence ends (checked at the next open), and keeps the journal's newest `keep`.
   */
  async writeSnapshot(payload: Uint8Array, keep: number): Promise<{ sequence: number; sizeBytes: number }> {
    if (this.closed) throw new Error(`the JetStream journal ${this.options.name} is closed`);
    if (this.failure !== undefined) throw this.failure;
    if (this.appendsPending !== 0) throw new Error("snapshot with an append in flight");
    const mark: SnapshotMark = { sequence: this.tail.lastSequence, streamSequence: this.tail.streamSequence, batchId: this.tail.batchId };
    const sizeBytes = await withRetries(`writing a snapshot of ${this.options.name}`, this.retryDeadlineMs, () => this.snapshots.write(this.options.name, mark, payload, keep));
    return { sequence: mark.sequence, sizeBytes };
  }

  /** Resolves once the appends made before have settled; later calls are refused. The connection stays open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.appendQueue;
  }
}
