/**
 * One shard, without threads: it owns its markets in memory, logs every command to its own segment
 * log, group-commits each batch with one fdatasync before any reply of the batch is released, fires
 * auction closes and hold expiries from its timer wheel, answers reads from memory, reproduces past
 * replies for idempotent retries, and snapshots. The worker (shard-worker.ts) is a thin message loop
 * around this class, so tests drive it directly with a manual clock and real files.
 *
 * The log is the truth: the in-memory state is always a fold of the log through the engine.
 */
import { handleCommand, marketIdOfCommand, replyOf, type CommandReply } from "../rules/handle-command.js";
import { isDeadlinePending, pendingDeadlines, systemCommandFor, type Deadline } from "../rules/deadlines.js";
import { commitmentAt, snapshotMarket } from "../rules/state/state.js";
import type { Commitment, Event, SealedBidReceipt } from "@market-service/client/wire";
import { isoFromMs } from "../rules/common/time.js";
import type { Command } from "../rules/types/command.js";
import { FileJournal } from "../journal/file-journal.js";
import type { Journal, JournalPosition, WrittenSnapshot } from "../journal/journal.js";
import type { SnapshotMark } from "../journal/jetstream-snapshots.js";
import type { Clock } from "../clock.js";
import { decodeLoggedCommand, encodeLoggedCommand, loggedCommand } from "../log/logged-command.js";
import { decodeLogEntry } from "../log/logged-head.js";
import { LogHeads, type LogHeadsOptions, type LogTreeAnchor } from "../audit/heads/log-heads.js";
import { headJson, receiptJson, sameHash, type SignedHead } from "@market-service/client/audit";
import { recordedHeadProblem } from "../audit/heads/recorded-head.js";
import { ACCEPT_UNSIGNED_TAIL_SETTING, UnsignedTail } from "../audit/heads/unsigned-tail.js";
import type { HeadKeys } from "../audit/signing/head-keys.js";
import { CompactRange } from "../audit/merkle/compact-range.js";
import { NODE_TREE_HASHING } from "../audit/node-tree-hashing.js";
import { LogFold, type ShardMarket } from "../log-fold.js";
import { decodeShardSnapshot, encodeMarketImage, encodeShardSnapshot } from "./shard-snapshot.js";
import { float64Bytes } from "./float64-bytes.js";
import { firstPayloads, readPayloads, readPayloadsAfter, unpackPayload, type PackedPayloads } from "./entry-payloads.js";
import { requestProblem, type LogProofRequest } from "../audit/log-proofs.js";
import type { TreeAnchor } from "../audit/cached-log-proofs.js";
import { shardLogId } from "./shard-routing.js";
import {
  commandResponse,
  errorReply,
  logSource,
  okReply,
  payloadSource,
  proofWork,
  readResponse,
  recordWork,
  replayResponse,
  replyWork,
  type BatchStats,
  type CommandRequest,
  type CommandResponse,
  type IdempotencyEntries,
  type ReadRequest,
  type ReplaySource,
  type ReplayWork,
  type ShardRecoveryReport,
  type ShardReply,
  type ShardRequest,
  type ShardResponse,
} from "../shard-protocol/shard-protocol.js";
import { TimerWheel } from "./timer-wheel.js";
import { tableStorage } from "../store/market-storage.js";
import { renderedEvent } from "../events/public-event.js";
import { RecentReplies } from "./recent-replies.js";
import { RecoveredReplies } from "./recovered-replies.js";
import type { EmittedEvent, WatchAnswer } from "../shard-protocol/shard-protocol.js";

export interface ShardCoreOptions {
  /** This shard's journal, opened (FileJournal over DATA_DIR/shards/NN by default). */
  journal: Journal;
  shardIndex: number;
  clock: Clock;
  /** Report idempotency entries of entries after this sequence (the gateway index snapshot's watermark). */
  reportIdempotencyAfterLsn?: number;
  /**
   * Append only after the last entry this shard knows of (cluster mode): when another owner has
   * appended (or claimed the journal), the append is refused with JournalFencedError and nothing of
   * the batch is acknowledged. A file journal has one writer (the data directory's lock) and needs none.
   */
  fenced?: boolean;
  /**
   * Sign the log's heads (engine/audit/heads/log-heads.ts): a head recorded in the log at the configured interval, and
   * a receipt on every accepted command's reply. Without it the shard signs nothing (tests of other
   * concerns); head entries already in the log are still read past.
   */
  heads?: LogHeadsOptions;
  /**
   * How recovery checks the heads it reads (docs/storage.md, "Recovery and signed heads"): `keys`, the
   * service's key history (every head's signature; without them only roots, for tests of other
   * concerns), and the unsigned tails an operator accepted (`<logId>:<first entry>`,
   * AUDIT_ACCEPT_UNSIGNED_TAIL). Used only with `heads`.
   */
  headChecks?: { keys: HeadKeys | undefined; acceptedTails: readonly string[] };
  /** Replies kept for fast idempotent replays, a non-negative integer (older ones are recomputed from the log) ... */
  replyCacheEntries?: number;
  /** ... and at most this many characters of their JSON and messages in all (recent-replies.ts). */
  replyCacheChars?: number;
}

/** A batch whose commands are durable (ShardCore.commitBatch). */
export interface CommittedBatch {
  /** Each command's and each read from memory's response at its request's index; a read of the log's stays undefined (see `reads`). */
  readonly responses: Array<ShardResponse | undefined>;
  /** The batch's reads of the log, by request index, each answered when it is read. */
  readonly reads: ReadonlyArray<{ readonly index: number; readonly answered: Promise<ShardResponse> }> | undefined;
}

/** A read of a market's first `count` commands' payloads (ShardCore.marketPayloads). */
interface PayloadRead {
  readonly marketId: string;
  readonly count: number;
  readonly read: Promise<PackedPayloads>;
}

/** Whether a read is answered from the log (a record, an old reply, a proof), which may have to be read first; the others come from memory. */
function readsTheLog(request: ReadRequest): boolean {
  return request.kind === "record" || request.kind === "reply-at" || request.kind === "log-proof";
}

/** A command's reply as a shard gives it: the result as JSON text, or the rejection's code and message. */
function shardReplyOf(reply: CommandReply): ShardReply {
  return reply.ok ? okReply(JSON.stringify(reply.result)) : errorReply(reply.rejection.code, reply.rejection.message);
}

function shardResponse(answer: ShardReply | ReplayWork): ShardResponse {
  return "ok" in answer ? readResponse(answer) : replayResponse(answer);
}

export interface OpenedShard {
  core: ShardCore;
  report: ShardRecoveryReport;
  idempotency: IdempotencyEntries;
}

/** A snapshot taken (ShardCore.takeSnapshot): the last entry it holds, and its storing. */
export interface TakenSnapshot {
  readonly lsn: number;
  readonly stored: Promise<WrittenSnapshot>;
}

const DEFAULT_REPLY_CACHE_ENTRIES = 4096;
/** Snapshots kept: the newest, and one before it in case the newest turns out damaged. */
const SNAPSHOTS_KEPT = 2;
/** A staged command's position until its batch is appended. */
const UNKNOWN_POSITION = -1;

interface StagedCommand {
  payload: Uint8Array;
  /** Completed with the position once the batch is durable. */
  response: CommandResponse;
  /** The market whose record holds the command, if one does. */
  record: ShardMarket | undefined;
  /** The command's events when its market is watched (live streams), emitted once the batch is durable. */
  watchedEvents: Event[] | undefined;
}

/**
 * 8 Mi characters: 4096 replies of claims on markets with ordinary subjects fit, so the entry count
 * stays the bound that usually applies; replies that carry a large subject are bounded by their
 * size (decision I21).
 */
export const DEFAULT_REPLY_CACHE_CHARS = 8 * 1024 * 1024;

/** Index of `position` in an ascending list, or -1. */
function indexOfPosition(positions: readonly number[], position: number): number {
  let low = 0;
  let high = positions.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = positions[mid] as number;
    if (at === position) return mid;
    if (at < position) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/** Opens a shard on its file journal in `dir` (the embedded default). */
export function openFileShard(options: Omit<ShardCoreOptions, "journal"> & { dir: string; segmentSizeBytes?: number }): Promise<OpenedShard> {
  const { dir, segmentSizeBytes, ...rest } = options;
  const journal = FileJournal.open({
    dir,
    // The shard reads entries from here on (for its idempotency report), so the journal only trusts what lies before.
    readFromSequence: rest.reportIdempotencyAfterLsn ?? 0,
    ...(segmentSizeBytes === undefined ? {} : { segmentSizeBytes }),
  });
  return ShardCore.open({ ...rest, journal }).catch(async (error: unknown) => {
    await journal.close();
    throw error;
  });
}

export class ShardCore {
  /** The shard's markets: the fold of its journal, then of every command it executes. */
  private readonly fold = new LogFold();
  private readonly markets = this.fold.markets;
  private readonly timers = new TimerWheel<Deadline>();
  private readonly replyCache: RecentReplies;
  /** marketPayloads's reads (a journal without a view only): those in flight, by market, and the one settled last until the next snapshot. */
  private readonly payloadReads = new Map<string, PayloadRead>();
  private keptPayloads: PayloadRead | undefined;
  /** The commands of the batch being decided, in order, until `commit` appends them. */
  private staged: StagedCommand[] = [];
  /** Entries of this log sent to the worker pool for proofs, as payloads (a journal without a view). */
  private proofEntriesSent = 0;
  private commandsSinceSnapshot = 0;
  private commitmentCount = 0;
  /**
   * Markets with live subscribers (docs/events.md): only their events are rendered and emitted, so a
   * market nobody watches costs one lookup in an empty set per command.
   */
  private readonly watched = new Set<string>();
  /** Events of watched markets whose batch is durable, until the worker takes them (`takeEvents`). */
  private emitted: EmittedEvent[] = [];
  /** Statistics of the last processed batch (or tick). */
  lastBatch: BatchStats = { commands: 0, commitMs: 0, logBytes: 0, markets: 0, commitments: 0, replyCacheEntries: 0, replyCacheChars: 0 };
  private closed = false;

  private constructor(
    private readonly options: ShardCoreOptions,
    private readonly journal: Journal,
    /** The log's Merkle tree and signed heads, when the shard signs them. */
    private readonly heads: LogHeads | undefined,
  ) {
    this.replyCache = new RecentReplies(options.replyCacheEntries ?? DEFAULT_REPLY_CACHE_ENTRIES, options.replyCacheChars ?? DEFAULT_REPLY_CACHE_CHARS);
  }

  /** Recover: the journal's newest snapshot, then every entry after it; rebuild the timer wheel. */
  static async open(options: ShardCoreOptions): Promise<OpenedShard> {
    const startedMs = performance.now();
    const journal = options.journal;
    const stored = journal.snapshot === undefined ? undefined : decodeShardSnapshot(journal.snapshot.payload);
    // A snapshot in a format this build does not read only costs time: the whole log is folded.
    const decoded = stored === undefined || "unreadableVersion" in stored ? undefined : stored;
    if (decoded !== undefined && decoded.shardIndex !== options.shardIndex) {
      throw new Error(`snapshot belongs to shard ${decoded.shardIndex}, not ${options.shardIndex}`);
    }
    const snapshotLsn = decoded === undefined ? 0 : (journal.snapshot?.sequence ?? 0);
    // The tree as of the snapshot's last head, if that head is the service's; else it is rebuilt from the first entry.
    const anchor = options.heads === undefined ? undefined : trustedAnchor(decoded?.headAnchor, options.heads.logId, options.headChecks?.keys);
    const treeFrom = anchor?.head.treeSize ?? 0;
    const heads = options.heads === undefined ? undefined : new LogHeads(options.heads, anchor);
    const tail = new UnsignedTail();
    const reportAfter = Math.min(options.reportIdempotencyAfterLsn ?? 0, snapshotLsn, heads === undefined ? snapshotLsn : treeFrom);
    const core = new ShardCore(options, journal, heads);
    core.fold.lastStampMs = decoded?.lastStampMs ?? 0;
    for (const market of decoded?.markets ?? []) core.markets.set(market.agg.market.id, market);

    const idempotency: IdempotencyEntries = { actorIds: [], commandIds: [], fingerprints: [], positions: [] };
    let framesReplayed = 0;
    let framesScannedForIdempotency = 0;
    // The replies of the last client commands replayed are kept again (recovered-replies.ts).
    const recovered = new RecoveredReplies(core.replyCache, journal.lastSequence);
    let headsChecked = 0;
    await journal.read(reportAfter, (entry) => {
      const decodedEntry = decodeLogEntry(entry.payload);
      if (heads !== undefined && entry.sequence > treeFrom) {
        if (decodedEntry.kind === "head") {
          core.checkRecordedHead(entry.sequence, decodedEntry.head);
          heads.recordedAt(decodedEntry.head);
          tail.head(entry.sequence);
          headsChecked += 1;
        } else {
          tail.entry(decodedEntry.logged.c.occurredAtMs);
        }
        heads.append(entry.payload);
      }
      if (decodedEntry.kind === "head") return;
      const logged = decodedEntry.logged;
      if (logged.f !== undefined) {
        idempotency.actorIds.push(logged.c.identity.actorId);
        idempotency.commandIds.push(logged.c.commandId);
        idempotency.fingerprints.push(logged.f);
        idempotency.positions.push(entry.position);
      }
      if (entry.sequence <= snapshotLsn) {
        framesScannedForIdempotency += 1;
        return;
      }
      const { applied, market } = core.fold.apply(logged.c, entry.position);
      framesReplayed += 1;
      // The market the fold just found (none for a command no record holds: its reply is a short rejection).
      const marketId = market?.agg.market.id;
      if (logged.f !== undefined && recovered.wanted(entry.sequence, marketId)) {
        recovered.keep(entry.position, entry.sequence, marketId, shardReplyOf(replyOf(logged.c, applied)));
      }
    });
    const accepted = heads === undefined ? undefined : core.acceptedTail(tail);
    if (accepted !== undefined) await core.commit(core.stamp(), true, accepted.from);
    if (heads !== undefined && recovered.acceptances > 0) recovered.addReceipts(headJson(heads.sign(core.stamp())));
    for (const { agg } of core.markets.values()) {
      for (const deadline of pendingDeadlines(agg)) core.timers.schedule(deadline.atMs, deadline);
      core.commitmentCount += agg.commitments.count;
    }
    // The replayed tail is not in any snapshot yet.
    core.commandsSinceSnapshot = framesReplayed;
    const report: ShardRecoveryReport = {
      shardIndex: options.shardIndex,
      snapshotLsn,
      snapshotIgnored:
        stored !== undefined && "unreadableVersion" in stored
          ? `snapshot of format version ${String(stored.unreadableVersion)}, which this build does not read`
          : journal.recovery.snapshotIgnored,
      marketsFromSnapshot: decoded?.markets.length ?? 0,
      framesReplayed,
      framesScannedForIdempotency,
      framesTrustedByCheckpoint: journal.recovery.entriesTrusted,
      lastLsn: journal.lastSequence,
      markets: core.markets.size,
      truncatedBytes: journal.recovery.truncatedBytes,
      headsChecked,
      ...(accepted === undefined ? {} : { acceptedUnsignedTail: accepted }),
      ...(journal.readsResumed === undefined ? {} : { readsResumed: { ...journal.readsResumed } }),
      elapsedMs: Math.round(performance.now() - startedMs),
    };
    return { core, report, idempotency };
  }

  get marketCount(): number {
    return this.markets.size;
  }

  get lastLsn(): number {
    return this.journal.lastSequence;
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Server time for the next batch: the clock, never earlier than an already stamped command. */
  private stamp(): number {
    const nowMs = this.options.clock.nowMs();
    if (nowMs > this.fold.lastStampMs) this.fold.lastStampMs = nowMs;
    return this.fold.lastStampMs;
  }

  /** Decide and account one command, and stage its entry; `commit` appends the batch and learns its position. */
  private execute(command: Command, fingerprint: string | undefined): CommandResponse {
    const marketId = marketIdOfCommand(command);
    const entry = marketId === undefined ? undefined : this.markets.get(marketId);
    const commitmentsBefore = entry?.agg.commitments.count ?? 0;
    const outcome = handleCommand(entry?.agg, command, tableStorage);
    this.commitmentCount += (outcome.aggregate?.commitments.count ?? 0) - commitmentsBefore;
    const recorded = outcome.recordSequence !== undefined;
    const rejection = !recorded && !outcome.reply.ok ? outcome.reply.rejection : undefined;
    for (const deadline of outcome.deadlines) this.timers.schedule(deadline.atMs, deadline);
    this.commandsSinceSnapshot += 1;
    const reply = shardReplyOf(outcome.reply);
    const response = commandResponse(outcome.status, reply, UNKNOWN_POSITION);
    this.staged.push({
      payload: encodeLoggedCommand(loggedCommand(command, fingerprint, rejection)),
      response,
      record: recorded ? (entry ?? this.fold.adopt(outcome.aggregate)) : undefined,
      watchedEvents: this.watched.size > 0 && marketId !== undefined && outcome.events.length > 0 && this.watched.has(marketId) ? outcome.events : undefined,
    });
    return response;
  }

  /** Replies kept for retries and their size in characters (tests, metrics). */
  get replyCacheStats(): { entries: number; chars: number } {
    return { entries: this.replyCache.size, chars: this.replyCache.chars };
  }

  /** Submit the system commands of every deadline that has passed (staged; the caller commits). */
  private fireDue(nowMs: number): number {
    let fired = 0;
    for (const deadline of this.timers.takeDue(nowMs)) {
      const entry = this.markets.get(deadline.marketId);
      if (!isDeadlinePending(entry?.agg, deadline)) continue; // overtaken (confirmed, declined, resolved)
      this.execute(systemCommandFor(deadline, nowMs), undefined);
      fired += 1;
    }
    return fired;
  }

  /**
   * Process one batch: due deadlines first, then the commands in arrival order, one group commit,
   * then the reads (which therefore see the whole batch). Nothing is returned before the commit.
   * A failed write or fdatasync throws: the shard must stop, nothing of the batch was acknowledged.
   * Reads that must read the journal (an old reply, a record on a journal without a view) read it
   * together: each takes what it needs of the shard's state before its first read.
   */
  async processBatch(requests: readonly ShardRequest[]): Promise<ShardResponse[]> {
    const batch = await this.commitBatch(requests);
    for (const read of batch.reads ?? []) batch.responses[read.index] = await read.answered;
    return batch.responses as ShardResponse[];
  }

  /**
   * `processBatch` for the shard's loop: resolves once the commands are decided and durable, with
   * the reads answered from memory, and the reads of the log still being read. Those take their
   * state as of this batch, but the next batch does not wait for them: on a partition's stream such
   * a read can take long (an old reply is replayed from its market's first command, read from the
   * stream), and meanwhile the partition's commands would stall behind it.
   */
  async commitBatch(requests: readonly ShardRequest[]): Promise<CommittedBatch> {
    if (this.closed) throw new Error("shard is closed");
    const nowMs = this.stamp();
    this.fireDue(nowMs);
    const responses: Array<ShardResponse | undefined> = new Array(requests.length);
    let reads: number[] | undefined;
    requests.forEach((request, index) => {
      if (request.kind === "command") responses[index] = this.execute(this.stamped(request, nowMs), request.fingerprint);
      else (reads ??= []).push(index);
    });
    await this.commit(nowMs);
    // A batch of commands only (a claim storm's) has no reads to start.
    if (reads === undefined) return { responses, reads: undefined };
    // Every read takes its state as it starts, before anything is awaited (the next batch may run meanwhile).
    const later: Array<{ index: number; answered: Promise<ShardResponse> }> = [];
    const now: Array<Promise<void>> = [];
    for (const index of reads) {
      const request = requests[index] as ReadRequest;
      const answered = this.read(request).then(shardResponse);
      // Answers from memory go with the batch: a watch's must reach the node before the events of
      // the batches after it (docs/events.md), and they cost no wait.
      if (readsTheLog(request)) later.push({ index, answered });
      else now.push(answered.then((response) => void (responses[index] = response)));
    }
    await Promise.all(now);
    return { responses, reads: later.length === 0 ? undefined : later };
  }

  /**
   * Appends everything staged as one batch (one write + one fdatasync for the file journal) and, once
   * it is durable, gives each command its position: in its market's record, in its response, in the
   * reply cache, and an accepted one its receipt. A batch ends with a head entry when one is due
   * (engine/audit/heads/log-heads.ts); a head alone is appended when one is due and nothing else is staged.
   */
  private async commit(nowMs: number, headNow = false, acceptedFrom?: number): Promise<void> {
    const staged = this.staged;
    this.staged = [];
    let commitMs = 0;
    let payloads = staged.map((item) => item.payload);
    /** Where each staged command's entry is among the batch's entries (heads inside a long batch shift them). */
    let entryOf: number[] | undefined;
    let recorded: SignedHead | undefined;
    if (this.heads !== undefined) {
      const heads = this.heads;
      let framed: Uint8Array[] | undefined;
      payloads.forEach((payload, i) => {
        heads.append(payload, nowMs);
        framed?.push(payload);
        // No prefix of the log may hold more than everyCommands entries after its last head, so that
        // recovery can tell what a crash leaves from removed heads (engine/audit/heads/unsigned-tail.ts).
        if (heads.full && i < payloads.length - 1) {
          framed ??= payloads.slice(0, i + 1);
          entryOf ??= staged.map((_, k) => k);
          framed.push(heads.recordHead(nowMs).payload);
          for (let k = i + 1; k < entryOf.length; k += 1) entryOf[k] = (entryOf[k] as number) + 1;
        }
      });
      if (framed !== undefined) payloads = framed;
      if (heads.due(nowMs) || (headNow && heads.uncovered > 0)) {
        const head = heads.recordHead(nowMs, acceptedFrom);
        payloads.push(head.payload);
        recorded = head.head;
      }
    }
    if (payloads.length > 0) {
      const startedMs = performance.now();
      const firstSequence = this.journal.lastSequence + 1;
      const positions = await this.journal.append(payloads, this.options.fenced === true ? { expectedLastSequence: this.journal.lastSequence } : {});
      commitMs = performance.now() - startedMs;
      // Every accepted command of the batch is in the recorded head's tree, or in one signed for the
      // batch now; a batch of refusals only (most of a storm past capacity) needs no signature.
      const accepted = staged.some((item) => item.response.reply.ok);
      const receiptHead = this.heads === undefined || !accepted ? undefined : headJson(recorded ?? this.heads.sign(nowMs));
      staged.forEach((item, i) => {
        const at = entryOf === undefined ? i : (entryOf[i] as number);
        const position = positions[at] as JournalPosition;
        const reply = item.response.reply;
        if (receiptHead !== undefined && reply.ok) reply.receipt = receiptJson(firstSequence - 1 + at, receiptHead);
        item.response.position = position;
        item.record?.positions.push(position);
        this.replyCache.remember(position, reply);
        if (item.watchedEvents !== undefined) this.emit(item.watchedEvents);
      });
    }
    this.lastBatch = {
      commands: staged.length,
      commitMs,
      logBytes: this.journal.sizeBytes,
      markets: this.markets.size,
      commitments: this.commitmentCount,
      replyCacheEntries: this.replyCache.size,
      replyCacheChars: this.replyCache.chars,
    };
  }

  /** Renders a durable command's events for live streams: the record's envelope and the public view. */
  private emit(events: readonly Event[]): void {
    for (const event of events) this.emitted.push(renderedEvent(event));
  }

  /** The events emitted since the last call, in commit order (all of them durable). */
  takeEvents(): readonly EmittedEvent[] {
    if (this.emitted.length === 0) return NO_EVENTS;
    const events = this.emitted;
    this.emitted = [];
    return events;
  }

  /**
   * Starts or stops emitting a market's events. Answered after the batch's commit: the events of
   * this batch are in `lastSequence`, and every later one is emitted.
   */
  private watch(marketId: string, watching: boolean): ShardReply {
    if (!watching) {
      this.watched.delete(marketId);
      return okReply("{}");
    }
    const entry = this.markets.get(marketId);
    if (entry === undefined) return marketNotFound(marketId);
    this.watched.add(marketId);
    const creator = entry.agg.market.creator;
    const answer: WatchAnswer = { lastSequence: entry.agg.eventCount, creator: { principalId: creator.principalId, actorId: creator.actorId } };
    return okReply(JSON.stringify(answer));
  }

  /** Fire due deadlines outside a client batch (the worker's periodic tick). Durable on return. */
  async tick(): Promise<number> {
    if (this.closed) return 0;
    const nowMs = this.stamp();
    const fired = this.fireDue(nowMs);
    await this.commit(nowMs);
    return fired;
  }

  /** The command with the server time: the spread keeps every member where its declared layout put it. */
  private stamped(request: CommandRequest, nowMs: number): Command {
    return { ...request.command, occurredAtMs: nowMs };
  }

  private async read(request: ReadRequest): Promise<ShardReply | ReplayWork> {
    switch (request.kind) {
      case "market": {
        const entry = this.markets.get(request.marketId);
        return entry === undefined ? marketNotFound(request.marketId) : okReply(JSON.stringify(snapshotMarket(entry.agg.market)));
      }
      case "record":
        return this.readRecord(request.marketId, request.actorId);
      case "outcome":
        return this.readOutcome(request.marketId, request.principalId);
      case "reply-at":
        return this.replyAt(request.position);
      case "log-head":
        return this.headNow();
      case "log-proof":
        return this.logProof(request.proof, request.after);
      case "watch":
        return this.watch(request.marketId, request.watching);
    }
  }

  /** The log's id as its heads name it (`shard-<n>`, or the partition's in a cluster). */
  private get logId(): string {
    return this.heads?.logId ?? shardLogId(this.options.shardIndex);
  }

  /** A head signed now over every entry of the log (nothing is recorded: a client keeps it). */
  private headNow(): ShardReply {
    if (this.heads === undefined) return errorReply("not_found", `log ${this.logId} has no signed heads: the service runs with AUDIT_HEADS=off`);
    return okReply(headJson(this.heads.sign(this.stamp())));
  }

  /**
   * A proof of this log, built off this thread (ReplayWork "proof"): only the sizes are checked here,
   * against the entries durable now, and a view of the log is handed over; on a journal without one
   * (a partition's stream), the payloads the pool thread's kept tree lacks, read here: those after the
   * entries last sent (`after` −1), or after the first `after` when the pool asks again from there
   * (engine/audit/cached-log-proofs.ts). So a proof reads the whole log here only the first time.
   */
  private async logProof(proof: LogProofRequest, after: number): Promise<ShardReply | ReplayWork> {
    const durable = this.journal.lastSequence;
    const problem = requestProblem(proof, this.logId, durable);
    if (problem !== undefined) return errorReply("invalid_request", problem.message);
    const anchor = this.proofAnchor(durable);
    const view = this.journal.readView();
    if (view !== undefined) return proofWork(logSource(view), this.logId, proof, anchor);
    const from = Math.min(after >= 0 ? after : this.proofEntriesSent, durable);
    const packed = await readPayloadsAfter(this.journal, from, durable - from);
    this.proofEntriesSent = Math.max(this.proofEntriesSent, durable);
    let entry: Uint8Array | null = null;
    if (proof.type === "inclusion" && proof.leafIndex < from) entry = unpackPayload(await readPayloadsAfter(this.journal, proof.leafIndex, 1), 0);
    return proofWork(payloadSource(packed.payloads, packed.ends), this.logId, proof, anchor, from, entry);
  }

  /** The shard's own root over the log's `durable` entries, when its tree is at that size (not mid-batch). */
  private proofAnchor(durable: number): TreeAnchor | null {
    if (this.heads === undefined || this.heads.size !== durable) return null;
    return { size: durable, root: this.heads.root() };
  }

  /**
   * The record is replayed off this thread (ReplayWork): only the market image and the log view are
   * taken here, or, on a journal without a view, the payloads of the record's commands, read after
   * the image is taken (so a batch processed meanwhile changes neither).
   */
  private async readRecord(marketId: string, actorId: string): Promise<ShardReply | ReplayWork> {
    const entry = this.markets.get(marketId);
    if (entry === undefined) return marketNotFound(marketId);
    const creator = entry.agg.market.creator;
    if (actorId !== creator.principalId && actorId !== creator.actorId) {
      return errorReply("forbidden", "only the creator principal or the creating actor can read the market record");
    }
    const market = encodeMarketImage(entry);
    const recordLength = entry.positions.length;
    return recordWork(await this.replaySource(marketId, entry.positions, recordLength), market, marketId, recordLength);
  }

  /**
   * Where a replay of the first `count` commands of a market (at `positions`) reads them: the
   * journal's view when it has one (the file journal: nothing is read or copied here), else their
   * payloads, read here through the journal (marketPayloads).
   */
  private async replaySource(marketId: string, positions: readonly JournalPosition[], count: number): Promise<ReplaySource> {
    const view = this.journal.readView();
    if (view !== undefined) return logSource(view);
    const packed = firstPayloads(await this.marketPayloads(marketId, positions, count), count);
    return payloadSource(packed.payloads, packed.ends);
  }

  /**
   * The payloads of at least the first `count` of a market's commands, read through the journal
   * once for every replay they serve. A failover's clients retry many commands of one hot market at
   * once, each old reply replayed from the market's first command, and each reading that prefix
   * again cost the partition more than the replays did. So a read is shared while in flight, and
   * the one settled last is kept until the shard's next snapshot (taken every so many commands, or
   * at a checkpoint after traffic), which bounds how long its payloads stay in memory. A read takes
   * every command the market has, not only the prefix asked for: the retries of its later commands
   * come with those of the earlier ones.
   */
  private marketPayloads(marketId: string, positions: readonly JournalPosition[], count: number): Promise<PackedPayloads> {
    const inFlight = this.payloadReads.get(marketId);
    if (inFlight !== undefined && inFlight.count >= count) return inFlight.read;
    const kept = this.keptPayloads;
    if (kept !== undefined && kept.marketId === marketId && kept.count >= count) return kept.read;
    // Every position known now, copied before the first read: a batch processed meanwhile may
    // append to the market's positions.
    const reading: PayloadRead = { marketId, count: positions.length, read: readPayloads(this.journal, positions.slice()) };
    this.payloadReads.set(marketId, reading);
    const settled = (): void => {
      if (this.payloadReads.get(marketId) === reading) this.payloadReads.delete(marketId);
    };
    reading.read.then(
      () => {
        settled();
        const last = this.keptPayloads;
        if (last === undefined || last.marketId !== marketId || last.count <= reading.count) this.keptPayloads = reading;
      },
      settled, // a failed read is not kept (its callers get the failure)
    );
    return reading.read;
  }

  private readOutcome(marketId: string, principalId: string): ShardReply {
    const entry = this.markets.get(marketId);
    if (entry === undefined) return marketNotFound(marketId);
    const agg = entry.agg;
    const bidReceipts: SealedBidReceipt[] = agg.bids
      .filter((bid) => bid.principalId === principalId)
      .map((bid) => ({ bidId: bid.bidId, marketId, marketVersion: bid.marketVersion, state: "active", submittedAt: isoFromMs(bid.submittedAtMs) }));
    // The creator is a party to every commitment of its market; anyone else to its own.
    const isCreator = agg.market.creator.principalId === principalId;
    const commitments: Commitment[] = [];
    for (let index = 0; index < agg.commitments.count; index += 1) {
      if (isCreator || agg.commitments.isParticipant(index, principalId)) commitments.push(commitmentAt(agg, index));
    }
    return okReply(JSON.stringify({ marketId, principalId, bidReceipts, commitments }));
  }

  /**
   * The reply the command logged at `position` got. Recent replies are cached and rejections no
   * market holds are stored in the frame; anything else is recomputed off this thread by replaying
   * the market's record up to that command (ReplayWork): the engine is deterministic, so it is the
   * same reply, byte for byte.
   */
  private async replyAt(position: number): Promise<ShardReply | ReplayWork> {
    const cached = this.replyCache.get(position);
    if (cached !== undefined) return cached;
    // Signed before anything is awaited: the next batch may be appended meanwhile (commitBatch), and
    // a head must cover only durable entries. The entry is committed, so this tree holds it.
    const head = this.heads === undefined ? undefined : headJson(this.heads.sign(this.stamp()));
    const entry = await this.journal.readAt(position);
    const logged = decodeLoggedCommand(entry.payload);
    if (logged.r !== undefined) return errorReply(logged.r.code, logged.r.message);
    const marketId = marketIdOfCommand(logged.c);
    const market = marketId === undefined ? undefined : this.markets.get(marketId);
    const index = market === undefined ? -1 : indexOfPosition(market.positions, position);
    if (marketId === undefined || market === undefined || index < 0) throw new Error(`no market record holds the command logged at ${position}`);
    const positions = market.positions.slice(0, index + 1);
    const receipt = head === undefined ? "" : receiptJson(entry.sequence - 1, head);
    return replyWork(await this.replaySource(marketId, market.positions, index + 1), float64Bytes(positions), receipt);
  }

  /**
   * A head recorded in the log at `sequence` covers exactly the entries before it, its root is
   * theirs, and its signature verifies under the key history: otherwise the log was changed after the
   * head was signed (or the head was made by someone without the key), and the shard refuses it.
   */
  private checkRecordedHead(sequence: number, head: SignedHead): void {
    const heads = this.heads as LogHeads;
    const problem = recordedHeadProblem(heads.logId, sequence, head, heads, this.options.headChecks?.keys);
    if (problem !== undefined) throw new Error(problem);
  }

  /**
   * The entries after the last verified head, if an operator accepted them (one line of theirs names
   * this tail), or nothing when a crash can have left them; otherwise the shard refuses the log in one
   * line naming it, its first uncovered entry and the setting that would accept it.
   */
  private acceptedTail(tail: UnsignedTail): { logId: string; from: number; to: number } | undefined {
    const heads = this.heads as LogHeads;
    const problem = tail.problem(heads.logId, this.options.heads as LogHeadsOptions);
    if (problem === undefined) return undefined;
    const name = tail.acceptanceName(heads.logId);
    if (this.options.headChecks?.acceptedTails.includes(name) !== true) {
      throw new Error(`${problem}; to start on it anyway set ${ACCEPT_UNSIGNED_TAIL_SETTING}=${name} (the acceptance is logged and recorded in the log)`);
    }
    return { logId: heads.logId, from: tail.firstEntry, to: tail.firstEntry + tail.entries - 1 };
  }

  /** Commands applied since the last snapshot (the runtime decides when to checkpoint). */
  get commandsSinceLastSnapshot(): number {
    return this.commandsSinceSnapshot;
  }

  /** Writes a snapshot of the committed state (call between batches); `besideFirst`: the journal's (Journal.writeSnapshot). */
  async snapshot(besideFirst?: (mark: SnapshotMark) => Promise<void>): Promise<{ lsn: number; sizeBytes: number }> {
    const taken = await this.takeSnapshot(besideFirst);
    return { lsn: taken.lsn, sizeBytes: (await taken.stored).sizeBytes };
  }

  /**
   * Takes a snapshot of the committed state (call between batches) and starts storing it: resolves
   * once the state is taken, and `stored` once it is stored. Later batches may be committed
   * meanwhile: they are not in it.
   */
  async takeSnapshot(besideFirst?: (mark: SnapshotMark) => Promise<void>): Promise<TakenSnapshot> {
    if (this.staged.length !== 0) throw new Error("snapshot with uncommitted commands");
    // The snapshot's tree anchor is then the head at its own last entry, and a recovery from it
    // reads the log from there, not back to the last head before it only to rebuild the tree.
    await this.coverWithHead();
    const header = { shardIndex: this.options.shardIndex, lastStampMs: this.fold.lastStampMs, headAnchor: this.heads?.state() };
    const payload = encodeShardSnapshot(header, this.markets.values());
    const lsn = this.lastLsn;
    const stored = this.journal.writeSnapshot(payload, SNAPSHOTS_KEPT, besideFirst);
    this.commandsSinceSnapshot = 0;
    this.keptPayloads = undefined;
    return { lsn, stored };
  }

  /** Appends a head over every entry, if an entry follows the last head (nothing staged). */
  private async coverWithHead(): Promise<void> {
    if (this.heads !== undefined && this.heads.uncovered > 0) await this.commit(this.stamp(), true);
  }

  /**
   * Stops taking batches and closes the journal once what was appended before is done. A shard that
   * signs heads first records one over whatever no head covers yet, so a log stopped cleanly is
   * signed to its last entry (after a crash, the entries since the last head are not: an audit
   * reports them).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.staged.length === 0) {
      // Best effort: a shard closed because its journal failed (or was fenced) cannot append, and
      // leaves its last entries unsigned, as a crash would.
      await this.coverWithHead().catch(() => undefined);
    }
    this.closed = true;
    await this.journal.close();
  }
}

const NO_EVENTS: readonly EmittedEvent[] = Object.freeze([]);

/**
 * A snapshot's anchor if its head is this log's, signed by a key of the history, and its right edge
 * has that head's root; else undefined (the tree is then rebuilt from the log's first entry, whose
 * heads are all checked). Without keys (tests of other concerns) the signature is not checked.
 */
function trustedAnchor(anchor: LogTreeAnchor | undefined, logId: string, keys: HeadKeys | undefined): LogTreeAnchor | undefined {
  if (anchor === undefined || anchor.head.logId !== logId) return undefined;
  if (keys?.signatureProblem(anchor.head) !== undefined) return undefined;
  let root: Uint8Array;
  try {
    root = CompactRange.of(anchor.head.treeSize, anchor.roots, NODE_TREE_HASHING).root();
  } catch {
    return undefined; // as many roots as the size calls for, or it is not an edge of any tree
  }
  return sameHash(root, anchor.head.rootHash) ? anchor : undefined;
}

function marketNotFound(marketId: string): ShardReply {
  return errorReply("market_not_found", `market ${JSON.stringify(marketId)} was not found`);
}
