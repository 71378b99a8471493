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
 * - Owners and epochs (cluster mode): every batch records its writer's epoch (0 outside cluster
 *   mode). A partition's new owner first `claim`s the stream with its lease's epoch: a batch of zero
 *   entries, published with the expected last message like any batch, so the stream's last message
 *   moves and the previous owner's next publish is refused even though the last entry did not
 *   change. A journal never writes after a message of a greater epoch than its own: once it learns
 *   of one (at open, or from a refusal) every append is refused with JournalEpochFencedError (a
 *   JournalFencedError), with or without `expectedLastSequence`, so a succeeded owner cannot append
 *   by learning the new tail; nor can it write a snapshot. A claim must raise the stream's epoch; one that does not is refused
 *   the same way (an old owner cannot claim back). Claim before reading the entries to serve from:
 *   everything before the claim is then final. (Open reads the newest snapshot before it: a snapshot
 *   holds entries up to a message already in the stream, and those after it are read after the claim.)
 * - The hash chain (jetstream-batch.ts) runs over every entry of the stream; a writer takes the
 *   value before its batch from the last message it knows of, so a new owner continues the previous
 *   owner's chain.
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
 * sequence and are contiguous, so a binary search over stream sequences finds it) and hands over
 * the batches from there that are in the cache, then streams the rest with an ordered consumer up to
 * the stream's last message at the time of the call.
 * `readAt` answers from a bounded cache of the batches recently appended or read, and reads the
 * batch from the stream on a miss (readers of entries of one batch share that one request).
 * `readView` is undefined: a stream has no files a replay thread could read, so a shard reads the
 * entries it replays through `readAt` and hands their payloads over (engine/runtime/entry-payloads.ts).
 *
 * Following (a stream several writers share, the identity stream): `follow` hands over every entry
 * as the stream delivers it, and a batch it sees that extends the known tail becomes the tail; an
 * append whose expected sequence is beyond the tail this journal knows learns the stream's tail
 * first (the caller saw newer entries than this journal did), then is judged as any other.
 *
 * The connection is the caller's: the journal never closes it, so a node's partitions share one.
 */
import type { Messaging } from "../messaging/messaging.js";
import { MessagingError, isMessagingFailure } from "../messaging/messaging-error.js";
import type { StreamInfo, Streams } from "../messaging/streams.js";
import { pauseFor, type Timers } from "../timers.js";
import { BatchCache, type CachedBatch } from "./batch-cache.js";
import { MAX_BATCH_ENTRIES, MAX_STREAM_SEQUENCE, decodeBatch, encodeBatch, lastSequenceOf, locate, positionOf } from "./jetstream-batch.js";
import { errorText, backoffMs, retryable, withRetries } from "./jetstream-retry.js";
import { readStreamMessages } from "./jetstream-stream-reader.js";
import { StreamContinuity } from "./stream-continuity.js";
import { genesisChainHash } from "../../storage/hash-chain.js";
import { followStream } from "./jetstream-follow.js";
import { JetStreamSnapshots, startingSnapshot, type SnapshotMark, type StoredSnapshot, type UnreadableSnapshot } from "./jetstream-snapshots.js";
import type { FollowingJournal, JournalFollower } from "./following-journal.js";
import {
  JournalFencedError,
  type AppendOptions,
  type Journal,
  type JournalEntry,
  type JournalPosition,
  type JournalRecovery,
  type JournalSnapshot,
  type ReadsResumed,
  type WrittenSnapshot,
} from "./journal.js";

/** Room for a batch message's headers (its id and expected last sequence) within max_payload. */
const HEADER_ALLOWANCE_BYTES = 512;

export const DEFAULT_SNAPSHOT_BUCKET = "journal-snapshots";
export const DEFAULT_REQUEST_TIMEOUT_MS = 2_000;
/** Longer than a stream's leader election after its leader's death (docs/decisions.md I26, "Fencing and retries"). */
const DEFAULT_RETRY_DEADLINE_MS = 15_000;

export interface JetStreamJournalOptions {
  /** An open connection, the caller's (the journal does not close it); its timers run the journal's deadlines and pauses. */
  readonly messaging: Messaging;
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
  /**
   * How long `open` keeps retrying (default: `retryDeadlineMs`). A writer that must answer its
   * clients quickly (a short append deadline) may still wait longer for a stream that is being
   * created or is electing its first leader while the cluster starts.
   */
  readonly openDeadlineMs?: number;
  /** Bytes of recent batches kept for `readAt` (default 8 MiB). */
  readonly cacheBytes?: number;
  /**
   * The epoch this journal writes its batches with until a `claim` sets another (a non-negative
   * safe integer; default 0: not in cluster mode, or no owner). A journal whose epoch is below the
   * stream's last recorded one opens (it can read) but cannot append.
   */
  readonly epoch?: number;
  /** Called before each retried publish (metrics, and tests that need to see the retry happen). */
  readonly onRetry?: (retry: PublishRetry) => void;
  /**
   * Names of snapshots kept beside the journal's own in its bucket (a partition's idempotency
   * entries, decision I58): their newest are read at open, with the journal's own, and checked
   * against the stream (`takeSnapshotBeside`).
   */
  readonly snapshotsBeside?: readonly string[];
}

/**
 * A snapshot kept beside a journal's own, checked against its stream: `ignored` says why it does not
 * match, or, beside a snapshot, why the newer one that could not be read was passed over; undefined: none.
 */
export type SnapshotBeside = { readonly snapshot: JournalSnapshot; readonly ignored?: string } | { readonly ignored: string } | undefined;

export interface PublishRetry {
  /** The attempt about to be made: 2 for the first retry. */
  readonly attempt: number;
  /** Whether an earlier attempt of this batch may have been stored (it timed out). */
  readonly outcomeUnknown: boolean;
  readonly reason: string;
}

/**
 * An append, claim or snapshot refused because the stream records a later owner than this writer:
 * a message of a greater epoch (a successor's claim) is in the stream, or a claim would not raise
 * the epoch.
 */
export class JournalEpochFencedError extends JournalFencedError {
  override name = "JournalEpochFencedError";
  constructor(
    readonly stream: string,
    /** The epoch this writer appends (or claims) with. */
    readonly epoch: number,
    /** The greatest epoch the stream records. */
    readonly streamEpoch: number,
    expectedLastSequence: number,
    lastSequence: number,
  ) {
    super(expectedLastSequence, lastSequence);
    this.message = `refused: stream ${stream} records epoch ${streamEpoch}, and this writer's epoch is ${epoch}: after an owner's claim only a greater epoch may write (the journal's last sequence is ${lastSequence})`;
  }
}

/** The last message a journal knows of: its stream sequence, id, last entry, epoch and chain. */
interface Tail {
  readonly streamSequence: number;
  readonly lastSequence: number;
  readonly batchId: string;
  readonly epoch: number;
  /** The chain after the stream's last entry (32 bytes). */
  readonly chain: Uint8Array;
}

const EMPTY_TAIL: Tail = { streamSequence: 0, lastSequence: 0, batchId: "", epoch: 0, chain: genesisChainHash() };

function tailOf(batch: CachedBatch): Tail {
  return { streamSequence: batch.streamSequence, lastSequence: lastSequenceOf(batch), batchId: batch.batchId, epoch: batch.epoch, chain: batch.chain };
}

function checkEpoch(epoch: number, what: string): void {
  if (!(Number.isSafeInteger(epoch) && epoch >= 0)) throw new RangeError(`${what} must be a non-negative safe integer, not ${epoch}`);
}

/** Counters for metrics (and for tests that must see a retry or a duplicate happen). */
export interface JetStreamJournalFigures {
  readonly cachedBatches: number;
  readonly cachedBytes: number;
  readonly publishRetries: number;
  /** Retries JetStream answered as a duplicate of a batch an earlier attempt had stored. */
  readonly duplicatesAcknowledged: number;
}

/** A stream message as the journal keeps it: its batch decoded, where it is, and its id. */
function cachedBatch(data: Uint8Array, streamSequence: number, batchId: string): CachedBatch {
  return { ...decodeBatch(data, streamSequence), streamSequence, batchId };
}

/** Message `streamSequence` of stream `name` as a batch, or null if the stream has no such message. */
async function messageBatch(streams: Streams, name: string, streamSequence: number): Promise<CachedBatch | null> {
  const message = await streams.getMessage(name, streamSequence);
  return message === null ? null : cachedBatch(message.data, streamSequence, message.msgId);
}

/**
 * Why a snapshot's mark does not match the stream, or undefined if it does. The marked message may
 * be a claim (a snapshot taken right after one): it ends where the entries before it end.
 */
async function checkMark(mark: SnapshotMark, batchAt: (streamSequence: number) => Promise<CachedBatch | null>): Promise<string | undefined> {
  if (mark.streamSequence === 0) return mark.sequence === 0 ? undefined : `snapshot of sequence ${mark.sequence} names no message`;
  const batch = await batchAt(mark.streamSequence);
  if (batch === null) return `snapshot at sequence ${mark.sequence}: the stream has no message ${mark.streamSequence}`;
  if (batch.batchId !== mark.batchId) return `snapshot at sequence ${mark.sequence}: message ${mark.streamSequence} is another batch than the one it was taken after`;
  if (lastSequenceOf(batch) !== mark.sequence) return `snapshot at sequence ${mark.sequence}: message ${mark.streamSequence} ends at sequence ${lastSequenceOf(batch)}`;
  return undefined;
}

/**
 * A newest snapshot as open judges it once the stream's end is known: usable, or ignored and why
 * (a mark the stream has not reached, an object that cannot be read, a mark the stream does not
 * hold), or none. When the newest object cannot be read, the older one that can (`markProblem` is
 * its mark's) is judged in its place, and why the newest was passed over goes with it. (The
 * journal's own snapshot beyond the stream's end refuses the open before.)
 */
function judged(found: StoredSnapshot | UnreadableSnapshot | undefined, markProblem: string | undefined, tail: Tail, name: string): { usable: StoredSnapshot; ignored?: string } | { ignored: string } | undefined {
  if (found === undefined) return undefined;
  if (!("unreadable" in found)) {
    const ignored = newerThanStream(found.mark, tail, name) ?? markProblem;
    return ignored === undefined ? { usable: found } : { ignored };
  }
  const newer = newerThanStream({ sequence: found.sequence }, tail, name);
  if (newer !== undefined) return { ignored: newer };
  const older = judged(found.older, markProblem, tail, name);
  if (older === undefined) return { ignored: found.unreadable };
  if ("usable" in older) return { usable: older.usable, ignored: `${found.unreadable}; the snapshot at sequence ${older.usable.mark.sequence} was tried instead` };
  return { ignored: `${found.unreadable}; the one before it: ${older.ignored}` };
}

/** Why a snapshot's mark (of an object that cannot be read: the sequence its name gives) lies beyond the stream's end as open read it, or undefined. */
function newerThanStream(mark: { readonly sequence: number; readonly streamSequence?: number }, tail: Tail, name: string): string | undefined {
  if ((mark.streamSequence ?? 0) <= tail.streamSequence && mark.sequence <= tail.lastSequence) return undefined;
  const message = mark.streamSequence === undefined ? "" : ` (message ${mark.streamSequence})`;
  return `snapshot of sequence ${mark.sequence}${message} is newer than stream ${name} (last sequence ${tail.lastSequence}, message ${tail.streamSequence})`;
}

type PublishOutcome = { readonly stored: true; readonly streamSequence: number } | { readonly stored: false; readonly lastStreamSequence: number };

export class JetStreamJournal implements FollowingJournal {
  private readonly subject: string;
  private readonly cache: BatchCache;
  /** Unique to this journal object: the first half of every batch id it publishes. */
  private readonly writerId: string;
  private readonly timers: Timers;
  private batchCounter = 0;
  private appendQueue: Promise<unknown> = Promise.resolve();
  private appendsPending = 0;
  private closed = false;
  private failure: Error | undefined;
  private retries = 0;
  private duplicates = 0;
  /** Reads that went on with a new consumer since the journal opened (Journal.readsResumed). */
  private resumedReads: ReadsResumed | undefined;
  /** The epoch this journal writes with (the option, then the last claim's). */
  private writerEpoch: number;
  /** The names of `snapshotsBeside`, and those taken (takeSnapshotBeside). */
  private readonly besideNames: ReadonlySet<string>;
  private readonly besidesTaken = new Set<string>();

  private constructor(
    private readonly options: JetStreamJournalOptions,
    private readonly streams: Streams,
    private readonly snapshots: JetStreamSnapshots,
    /** The last message this journal knows of. */
    private tail: Tail,
    private bytes: number,
    readonly snapshot: JournalSnapshot | undefined,
    /** Where the snapshot's entries end in the stream (a read after them starts at the next message). */
    private readonly snapshotMark: SnapshotMark | undefined,
    readonly recovery: JournalRecovery,
    cache: BatchCache,
    /** The snapshots kept beside this journal's that open found, by name, until taken. */
    private readonly besides: Map<string, SnapshotBeside>,
  ) {
    this.besideNames = new Set(options.snapshotsBeside);
    this.subject = `journal.${options.name}`;
    this.cache = cache;
    this.writerEpoch = options.epoch ?? 0;
    this.writerId = options.messaging.uniqueId();
    this.timers = options.messaging.timers;
  }

  /**
   * Opens the journal on stream `name`, creating the stream (R`replicas`, file storage, no
   * deletes or purges) if it does not exist; reads its last batch to learn the last sequence, and
   * the newest snapshot (and those of `snapshotsBeside`), checked against the stream.
   */
  static async open(options: JetStreamJournalOptions): Promise<JetStreamJournal> {
    if (!/^[A-Za-z0-9_-]+$/.test(options.name)) throw new Error(`journal name ${JSON.stringify(options.name)} must be letters, digits, "-" or "_" (it names a stream and a subject)`);
    if (options.epoch !== undefined) checkEpoch(options.epoch, "a journal's epoch");
    // Every step is a read or an idempotent create: an open that met an election starts over.
    const deadlineMs = options.openDeadlineMs ?? options.retryDeadlineMs ?? DEFAULT_RETRY_DEADLINE_MS;
    return withRetries(options.messaging.timers, `opening the JetStream journal ${options.name}`, deadlineMs, () => JetStreamJournal.openOnce(options));
  }

  private static async openOnce(options: JetStreamJournalOptions): Promise<JetStreamJournal> {
    const replicas = options.replicas ?? 3;
    const { streams, objects } = options.messaging.jetStream(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
    const cache = new BatchCache(options.cacheBytes ?? 8 * 1024 * 1024);
    // Each batch read once, however many ask (a partition's snapshot and its idempotency entries'
    // are taken under one mark, which is often the tail), and cached: a read after a snapshot starts
    // with the chain it records.
    const batchAt = (streamSequence: number): Promise<CachedBatch | null> => cache.readThrough(streamSequence, () => messageBatch(streams, options.name, streamSequence));
    // The stream's last batch, and the newest snapshots with the batches their marks name, are
    // independent reads of several round trips each, which a takeover waits for: they go at once,
    // and each mark is compared with the stream's end once both are in. A mark's batch is read once
    // the stream is known to exist and to reach it.
    const besideNames = options.snapshotsBeside ?? [];
    const ensured = JetStreamJournal.ensureStream(streams, options.name, replicas);
    const [{ bytes, tail, lastBatchCount }, newest] = await Promise.all([
      JetStreamJournal.readTail(ensured, options.name, batchAt),
      JetStreamSnapshots.open(objects, options.snapshotBucket ?? DEFAULT_SNAPSHOT_BUCKET, replicas).then(async (snapshots) => {
        const found = await snapshots.newestOf([options.name, ...besideNames]);
        const { state } = await ensured;
        const markProblems = await Promise.all(
          found.map(startingSnapshot).map((each) => (each === undefined || each.mark.streamSequence > state.lastSequence ? undefined : checkMark(each.mark, batchAt))),
        );
        return { snapshots, found, markProblems };
      }),
    ]);
    const [ownFound, ...besidesFound] = newest.found;
    const [ownProblem, ...besideProblems] = newest.markProblems;
    // A snapshot of entries the stream does not hold (readable or not): entries were lost, or the stream was made again.
    if (ownFound !== undefined) {
      const newer = newerThanStream("unreadable" in ownFound ? { sequence: ownFound.sequence } : ownFound.mark, tail, options.name);
      if (newer !== undefined) throw new Error(newer);
    }
    const own = judged(ownFound, ownProblem, tail, options.name);
    const snapshot = own !== undefined && "usable" in own ? own.usable : undefined;
    const besides = new Map<string, SnapshotBeside>();
    besideNames.forEach((name, i) => {
      const beside = judged(besidesFound[i], besideProblems[i], tail, options.name);
      if (beside === undefined) return;
      if (!("usable" in beside)) besides.set(name, beside);
      else besides.set(name, { snapshot: { sequence: beside.usable.mark.sequence, payload: beside.usable.payload }, ...(beside.ignored === undefined ? {} : { ignored: beside.ignored }) });
    });
    // Open reads only the last batch: the entries before it are taken on the replicated stream's word.
    const recovery: JournalRecovery = { truncatedBytes: 0, entriesTrusted: tail.lastSequence - lastBatchCount, snapshotIgnored: own?.ignored ?? null };
    const journalSnapshot = snapshot === undefined ? undefined : { sequence: snapshot.mark.sequence, payload: snapshot.payload };
    return new JetStreamJournal(options, streams, newest.snapshots, tail, bytes, journalSnapshot, snapshot?.mark, recovery, cache, besides);
  }

  /** The stream's size and its last batch, cached: the epoch and the chain continue from there. `ensured`: the stream, created if absent. */
  private static async readTail(ensured: Promise<StreamInfo>, name: string, batchAt: (streamSequence: number) => Promise<CachedBatch | null>): Promise<{ bytes: number; tail: Tail; lastBatchCount: number }> {
    const { state } = await ensured;
    if (state.messages > 0 && state.firstSequence !== 1) {
      throw new Error(`stream ${name} starts at message ${state.firstSequence}: messages were removed from it, so its journal is not whole`);
    }
    if (state.lastSequence === 0) return { bytes: state.bytes, tail: EMPTY_TAIL, lastBatchCount: 0 };
    const batch = await batchAt(state.lastSequence);
    if (batch === null) throw new Error(`stream ${name} reports last message ${state.lastSequence} but does not return it`);
    // A new owner's batches chain onto the last owner's.
    return { bytes: state.bytes, tail: tailOf(batch), lastBatchCount: batch.count };
  }

  private static async ensureStream(streams: Streams, name: string, replicas: number): Promise<StreamInfo> {
    const subject = `journal.${name}`;
    let info: StreamInfo;
    try {
      info = await streams.info(name);
    } catch (error) {
      if (!isMessagingFailure(error, "not-found")) throw error;
      // Two openers may race here; adding a stream with the same configuration is idempotent. A
      // journal only grows: nobody deletes or purges its entries. (Reads go to the stream's leader.)
      info = await streams.add({ name, subjects: [subject], storage: "file", replicas, denyDelete: true, denyPurge: true });
    }
    const config = info.config;
    if (!config.subjects.includes(subject) || config.replicas !== replicas || config.storage !== "file") {
      throw new Error(`stream ${name} exists with another configuration (subjects ${JSON.stringify(config.subjects)}, ${config.replicas} replicas, ${config.storage} storage) than a journal's (${subject}, ${replicas}, file)`);
    }
    return info;
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

  /** The epoch this journal writes its batches with (the `epoch` option, then its last claim's). */
  get epoch(): number {
    return this.writerEpoch;
  }

  /** The epoch of the last message this journal knows of (0 for an empty stream). */
  get lastEpoch(): number {
    return this.tail.epoch;
  }

  append(payloads: readonly Uint8Array[], options: AppendOptions = {}): Promise<JournalPosition[]> {
    return this.enqueue(() => this.appendNow(payloads, options));
  }

  /**
   * Claims the stream for `epoch` (a new owner's first act): publishes a batch of zero entries in
   * that epoch after the stream's last message, and from then on writes its batches in it. If another
   * writer's message is there first the claim goes after it, as long as `epoch` is still greater than
   * every epoch the stream records; otherwise it is refused with JournalEpochFencedError and nothing
   * is stored. A publish that fails for good fails the journal, as an append's does.
   */
  claim(epoch: number): Promise<void> {
    try {
      checkEpoch(epoch, "a claim's epoch");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async () => {
      if (this.failure !== undefined) throw this.failure;
      const refuseStale = (): void => {
        if (epoch <= this.tail.epoch) throw new JournalEpochFencedError(this.options.name, epoch, this.tail.epoch, this.tail.lastSequence, this.tail.lastSequence);
      };
      refuseStale();
      await this.publishBatch(epoch, [], refuseStale);
      this.writerEpoch = epoch;
    });
  }

  /** Runs `write` after the appends and claims before it (each needs the tail the previous one made). */
  private enqueue<T>(write: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`the JetStream journal ${this.options.name} is closed`));
    this.appendsPending += 1;
    const run = this.appendQueue.then(write);
    this.appendQueue = run.then(
      () => (this.appendsPending -= 1),
      () => (this.appendsPending -= 1),
    );
    return run;
  }

  /**
   * A message read or followed that comes right after the tail becomes the tail, whoever wrote it:
   * what this journal's caller has folded must never be ahead of what a snapshot is marked with,
   * nor may a successor's claim seen in a read go unnoticed (its epoch refuses this writer's
   * appends and snapshots from then on). An owner that stalled between its claim and its recovery
   * read folded its successor's entries and then stored them in a snapshot marked with its own,
   * older tail: the next owner folded them twice (simulation seed 2081866).
   */
  private extendTail(batch: CachedBatch): void {
    if (batch.streamSequence === this.tail.streamSequence + 1 && batch.firstSequence === this.tail.lastSequence + 1) this.tail = tailOf(batch);
  }

  /** Refuses to write once the stream records a later owner (a greater epoch) than this journal. */
  private refuseIfSucceeded(expected: number | undefined): void {
    if (this.tail.epoch > this.writerEpoch) {
      throw new JournalEpochFencedError(this.options.name, this.writerEpoch, this.tail.epoch, expected ?? this.tail.lastSequence, this.tail.lastSequence);
    }
  }

  private async appendNow(payloads: readonly Uint8Array[], options: AppendOptions): Promise<JournalPosition[]> {
    if (this.failure !== undefined) throw this.failure;
    const expected = options.expectedLastSequence;
    // A caller that follows the stream may know of entries this journal has not seen (appended by
    // other writers): the stream's tail is learnt, then judged like any other.
    if (expected !== undefined && expected > this.tail.lastSequence) await this.refreshTail();
    if (expected !== undefined && expected !== this.tail.lastSequence) throw new JournalFencedError(expected, this.tail.lastSequence);
    this.refuseIfSucceeded(expected);
    if (payloads.length === 0) return [];
    if (payloads.length > MAX_BATCH_ENTRIES) throw new RangeError(`a batch holds at most ${MAX_BATCH_ENTRIES} entries, not ${payloads.length}`);
    const streamSequence = await this.publishBatch(this.writerEpoch, payloads, () => {
      // Another writer's message is in the stream now. A successor's claim fences this journal for
      // good; any other message fences a caller that expected the old last entry (even if that
      // message added no entry: the stream, not the entry count, moved).
      this.refuseIfSucceeded(expected);
      if (expected !== undefined) throw new JournalFencedError(expected, this.tail.lastSequence);
    });
    return payloads.map((_, index) => positionOf(streamSequence, index));
  }

  /**
   * Publishes `payloads` (none: a claim) as one batch in `epoch` after the last message this journal
   * knows of, and makes it the tail; resolves with its stream sequence. When another writer's message
   * is there first, learns it as the tail and calls `afterOtherWriter`, which throws to give up or
   * returns to publish after it. Fails the journal for good when the publish or the read of the new
   * tail does.
   */
  private async publishBatch(epoch: number, payloads: readonly Uint8Array[], afterOtherWriter: () => void): Promise<number> {
    for (;;) {
      const streamSequence = this.tail.streamSequence + 1;
      if (streamSequence > MAX_STREAM_SEQUENCE) throw new RangeError(`stream ${this.options.name} is full: message ${streamSequence} would have positions past the safe integers`);
      const body = encodeBatch({ epoch, firstSequence: this.tail.lastSequence + 1, previousChain: this.tail.chain }, payloads);
      const maxPayload = this.options.messaging.maxPayload;
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
        const batch = cachedBatch(body, outcome.streamSequence, batchId);
        this.cache.put(batch);
        // A follower may have seen this batch, and later ones, before its acknowledgement came.
        if (outcome.streamSequence > this.tail.streamSequence) this.tail = tailOf(batch);
        this.bytes += body.length;
        return outcome.streamSequence;
      }
      // Another writer appended: learn the stream's tail (unless following it already brought it), then let the caller decide.
      try {
        if (this.tail.streamSequence < outcome.lastStreamSequence) {
          await withRetries(this.timers, `reading the tail of stream ${this.options.name}`, this.retryDeadlineMs, () => this.learnTail(outcome.lastStreamSequence));
        }
      } catch (error) {
        this.failure = new Error(`the JetStream journal ${this.options.name} failed: ${errorText(error)}`, { cause: error });
        throw this.failure;
      }
      afterOtherWriter();
    }
  }

  /**
   * Publishes one batch expecting `expectedStreamSequence` to be the stream's last message, retrying
   * until the append deadline; resolves with where it was stored, or with the stream's real last
   * message if another writer's batch is there.
   */
  private async publish(body: Uint8Array, batchId: string, expectedStreamSequence: number): Promise<PublishOutcome> {
    const deadline = this.timers.nowMs() + this.retryDeadlineMs;
    const timeout = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    let outcomeUnknown = false;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      try {
        const ack = await this.streams.publish(this.subject, body, { msgId: batchId, expectedLastSequence: expectedStreamSequence, timeoutMs: timeout });
        if (ack.sequence === 0) {
          // Seen from a stream without quorum: an acknowledgement naming no message. Nothing is
          // known of the batch; the next attempt (same id, same expectation) finds out safely.
          outcomeUnknown = true;
          reason = `batch ${batchId} acknowledged as message 0 of stream ${ack.stream} (no quorum?)`;
        } else if (ack.stream !== this.options.name || ack.sequence !== expectedStreamSequence + 1) {
          throw new Error(`JetStream acknowledged batch ${batchId} as message ${ack.sequence} of stream ${ack.stream}, not message ${expectedStreamSequence + 1} of ${this.options.name}`);
        } else {
          if (ack.duplicate) this.duplicates += 1;
          return { stored: true, streamSequence: ack.sequence };
        }
      } catch (error) {
        if (isMessagingFailure(error, "wrong-last-sequence")) {
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
      if (this.timers.nowMs() >= deadline) {
        throw new Error(`batch ${batchId} not acknowledged within the append deadline${outcomeUnknown ? " (it may have been stored)" : ""}; last error ${reason}`);
      }
      this.retries += 1;
      this.options.onRetry?.({ attempt: attempt + 1, outcomeUnknown, reason });
      // Back off a little: a stream without a leader answers at once, and an election takes seconds.
      await pauseFor(this.timers, backoffMs(attempt));
    }
  }

  /**
   * After the stream refused a publish (its last message is not the expected one): the batch was
   * stored after all if an earlier, timed-out attempt of it is the message after the expected one;
   * otherwise another writer's batch is there.
   */
  private async afterRefusal(refusal: MessagingError, batchId: string, expectedStreamSequence: number, outcomeUnknown: boolean): Promise<PublishOutcome> {
    const last = refusal.lastSequence ?? (await this.streams.info(this.options.name)).state.lastSequence;
    if (outcomeUnknown && last > expectedStreamSequence) {
      const next = await this.streams.getMessage(this.options.name, expectedStreamSequence + 1);
      if (next !== null && next.msgId === batchId) return { stored: true, streamSequence: expectedStreamSequence + 1 };
    }
    return { stored: false, lastStreamSequence: last };
  }

  /** Makes the batch at `streamSequence` this journal's tail (after another writer appended). */
  private async learnTail(streamSequence: number): Promise<void> {
    const message = await this.streams.getMessage(this.options.name, streamSequence);
    if (message === null) throw new Error(`stream ${this.options.name} has no message ${streamSequence}`);
    const batch = cachedBatch(message.data, streamSequence, message.msgId);
    this.cache.put(batch);
    this.tail = tailOf(batch);
  }

  /** Learns the stream's last batch as this journal's tail (a failure to, as in any append, fails the journal). */
  private async refreshTail(): Promise<void> {
    const name = this.options.name;
    try {
      await withRetries(this.timers, `reading the tail of stream ${name}`, this.retryDeadlineMs, async () => {
        const last = (await this.streams.info(name)).state.lastSequence;
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

  /**
   * The batch at `streamSequence`, from the cache or the stream (which then caches it). Reads of
   * the same batch made while one is under way share it: a shard reads a market's entries several
   * at a time (entry-payloads.ts), and neighbouring entries are mostly in one batch.
   */
  /** The batch at `streamSequence`, cached or read (retried through elections); the stream must have it. */
  private async batchAt(streamSequence: number): Promise<CachedBatch> {
    const batch = await this.cache.readThrough(streamSequence, () =>
      withRetries(this.timers, `reading message ${streamSequence} of stream ${this.options.name}`, this.retryDeadlineMs, () => messageBatch(this.streams, this.options.name, streamSequence)),
    );
    if (batch === null) throw new Error(`stream ${this.options.name} has no message ${streamSequence}`);
    return batch;
  }

  /**
   * The stream sequence of the message a read of entries from `sequence` on starts at, among
   * messages 1…`last`: the batch holding `sequence` (or, after a snapshot, the message after the
   * snapshot's), so that every message before it ends before `sequence`; undefined if the messages
   * end before it. Batches are contiguous, so known batches answer at once and otherwise a binary
   * search over the messages' first sequences does. Claims hold no entry and share their first
   * sequence with the message after them: the search lands on the last message whose first sequence
   * is at most `sequence`, which holds it, or is a claim (or a batch) it lies beyond, and then no
   * message holds it (a later message would start after that one's end, at most at `sequence`).
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
    // Invariant: the last message whose first sequence is at most `sequence` is among low…high.
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((await this.batchAt(middle)).firstSequence <= sequence) low = middle;
      else high = middle - 1;
    }
    const header = await this.batchAt(low);
    return header.firstSequence <= sequence && sequence < header.firstSequence + header.count ? low : undefined;
  }

  /**
   * Streams the entries after `afterSequence` up to the stream's last message when called, stepping
   * over claims. Every message read is checked against the one before it (stream-continuity.ts:
   * contiguous entries, epochs, the hash chain), and a break rejects the read naming its stream
   * sequence. A read from the first entry checks the chain from 32 zero bytes; a later one from
   * the chain the message before its first recorded, taken on its word (after a snapshot: the
   * message the snapshot's mark names, which open checked against the mark).
   */
  async read(afterSequence: number, onEntry: (entry: JournalEntry) => void): Promise<void> {
    if (this.closed) throw new Error(`the JetStream journal ${this.options.name} is closed`);
    const name = this.options.name;
    const last = (await withRetries(this.timers, `reading the state of stream ${name}`, this.retryDeadlineMs, () => this.streams.info(name))).state.lastSequence;
    const start = await this.batchHolding(afterSequence + 1, last);
    if (start === undefined) return;
    const continuity = start === 1 ? StreamContinuity.fromStart(name) : StreamContinuity.after(name, start - 1, await this.batchAt(start - 1));
    const emit = (batch: CachedBatch): void => {
      continuity.check(batch.streamSequence, batch);
      this.extendTail(batch);
      batch.payloads.forEach((payload, index) => {
        const sequence = batch.firstSequence + index;
        if (sequence > afterSequence) onEntry({ sequence, position: positionOf(batch.streamSequence, index), payload });
      });
    };
    // The batches this journal appended or read lately are at hand: only the rest of the range goes
    // through a consumer. A partition's record reads its own recent commands, so an owner's reads
    // mostly need none; an ordered consumer costs a round trip to create, and while a NATS node is
    // dead its creation can stall until heartbeats are missed (the read's caller waits meanwhile).
    let next = start;
    while (next <= last) {
      const cached = this.cache.get(next);
      if (cached === undefined) break;
      emit(cached);
      next += 1;
    }
    if (next > last) return;
    // One message left: no consumer needed.
    if (next === last) {
      emit(await this.batchAt(last));
      return;
    }
    await readStreamMessages(this.streams, this.timers, name, next, last, this.retryDeadlineMs, (message) => {
      const batch = cachedBatch(message.data, message.streamSequence, message.msgId);
      this.cache.put(batch);
      emit(batch);
    }, (problem) => {
      this.resumedReads = { count: (this.resumedReads?.count ?? 0) + 1, last: problem };
    });
  }

  get readsResumed(): ReadsResumed | undefined {
    return this.resumedReads;
  }

  /** The sequence of the stream's last entry now, whoever appended it (the last batch's, asked of the stream). */
  async latestSequence(): Promise<number> {
    if (this.closed) throw new Error(`the JetStream journal ${this.options.name} is closed`);
    const name = this.options.name;
    const last = (await withRetries(this.timers, `reading the state of stream ${name}`, this.retryDeadlineMs, () => this.streams.info(name))).state.lastSequence;
    return last === 0 ? 0 : lastSequenceOf(await this.batchAt(last));
  }

  /** The entry at `position`: from a cached batch, or from the stream (which then caches its batch). */
  async readAt(position: JournalPosition): Promise<JournalEntry> {
    if (this.closed) throw new Error(`the JetStream journal ${this.options.name} is closed`);
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
    const last = (await withRetries(this.timers, `reading the state of stream ${name}`, this.retryDeadlineMs, () => this.streams.info(name))).state.lastSequence;
    const from = (await this.batchHolding(afterSequence + 1, last)) ?? last + 1;
    let handedOver = afterSequence;
    return followStream({
      streams: this.streams,
      timers: this.timers,
      stream: name,
      fromStreamSequence: from,
      ...(onProblem === undefined ? {} : { onProblem }),
      onBatch: ({ streamSequence, batchId, batch }) => {
        if (batch.firstSequence > handedOver + 1) {
          throw new Error(`stream ${name}: message ${streamSequence} starts at sequence ${batch.firstSequence}, after ${handedOver + 1} (batches are not contiguous)`);
        }
        const cached: CachedBatch = { ...batch, streamSequence, batchId };
        this.cache.put(cached);
        this.extendTail(cached);
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

  /** None: a stream has no files another thread could read (the Journal interface's `readView`). */
  readView(): undefined {
    return undefined;
  }

  /**
   * Stores a snapshot of the state folded through `lastSequence` in the snapshot bucket, marked with
   * the batch that sequence ends (checked at the next open), and keeps the journal's newest `keep`.
   */
  async writeSnapshot(payload: Uint8Array, keep: number, besideFirst?: (mark: SnapshotMark) => Promise<void>): Promise<WrittenSnapshot> {
    if (this.closed) throw new Error(`the JetStream journal ${this.options.name} is closed`);
    if (this.failure !== undefined) throw this.failure;
    if (this.appendsPending !== 0) throw new Error("snapshot with an append in flight");
    // A succeeded owner's state does not hold its successor's entries that the tail now covers.
    this.refuseIfSucceeded(undefined);
    // Taken before the first await: later appends may go on while the snapshot is stored.
    const mark: SnapshotMark = { sequence: this.tail.lastSequence, streamSequence: this.tail.streamSequence, batchId: this.tail.batchId };
    if (besideFirst !== undefined) await besideFirst(mark);
    const sizeBytes = await withRetries(this.timers, `writing a snapshot of ${this.options.name}`, this.retryDeadlineMs, () => this.snapshots.write(this.options.name, mark, payload, keep));
    return { sequence: mark.sequence, sizeBytes, mark };
  }

  /**
   * The newest snapshot named `name` kept beside this journal's, as open read it and checked it
   * against the stream (`snapshotsBeside`; undefined: there is none), handed over once: the journal
   * keeps no payload its owner has taken.
   */
  takeSnapshotBeside(name: string): SnapshotBeside {
    if (!this.besideNames.has(name)) throw new Error(`the snapshot ${name} was not asked for when journal ${this.options.name} opened`);
    if (this.besidesTaken.has(name)) throw new Error(`the snapshot ${name} beside journal ${this.options.name} was taken already`);
    this.besidesTaken.add(name);
    const beside = this.besides.get(name);
    this.besides.delete(name);
    return beside;
  }

  /** Resolves once the appends made before have settled; later calls are refused. The connection stays open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.appendQueue;
  }
}
