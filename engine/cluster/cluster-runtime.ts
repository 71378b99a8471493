/**
 * The markets on a cluster node (docs/cluster.md). Partitions are owned through leases
 * (leases.ts); the partitions this node owns run in shard workers on their JetStream streams
 * (partition-host.ts); a request for any other partition goes to its owner over NATS
 * (forwarding.ts). Idempotency is decided where the command executes: by the partition's owner,
 * whose index of the partition holds every command logged in its stream (partition-indexes.ts:
 * from the newest snapshot of them and the stream after it when the partition is opened), exactly
 * as a shard's entries are on one node (submit-once.ts).
 *
 * An owner serves a partition only while its lease is valid by its own clock: a node resumed
 * from a pause past its lease stops answering before it could read stale state, and its appends
 * are refused by the stream in any case (fencing), so it never acknowledges anything.
 *
 * A request for a partition this node does not serve goes to the owner its lease names, and
 * follows the lease: if the lease moves while the owner has not answered (the owner paused or cut
 * off, its successor took over), the request is sent again to the new owner (`routed`).
 */
import type { Clock } from "../clock.js";
import type { Messaging } from "../messaging/messaging.js";
import type { TimerHandle, Timers } from "../timers.js";
import type { IdempotencyIndex, CommandLocation } from "../idempotency/index.js";
import { marketIdOfCommand } from "../rules/handle-command.js";
import type { Command } from "../rules/types/command.js";
import type { MarketEventListener, Markets } from "../runtime/markets.js";
import { ShardAnswers, type ShardAnswersOptions } from "../runtime/shard-answers.js";
import type { ShardWorkerSource } from "../runtime/shard-host.js";
import type { ShardThreadStarter } from "../runtime/shard-thread.js";
import type { ShardHeadsSpec } from "../runtime/worker-messages.js";
import type { ProofCacheStats } from "../audit/proof-tree-cache.js";
import {
  commandRequest,
  logProofRead,
  marketRead,
  outcomeRead,
  recordRead,
  okReply,
  watchRead,
  replyAtRead,
  type BatchStats,
  type ReadRequest,
  type ShardReply,
  type ShardRequest,
} from "../shard-protocol/shard-protocol.js";
import { fnv1a32, logIndexOf, shardOfMarket } from "../runtime/shard-routing.js";
import { IDEMPOTENCY_CONFLICT, submitOnce, type Executor, type SubmitResult } from "../runtime/submit-once.js";
import { UnavailableError } from "../runtime/unavailable.js";
import type { RecordCacheStats } from "../runtime/record-cache.js";
import type { ClusterSettings } from "./cluster-settings.js";
import { Forwarder, OWNER_MOVED, type BindRequest, type ForwardingCounts, type OwnerMoved } from "./forwarding.js";
import { homeOf, KeyBindings, type BindVerdict } from "./key-bindings.js";
import { PartitionHost } from "./partition-host.js";
import { PartitionIndexes } from "./partition-indexes.js";
import { EventRelay } from "./event-relay.js";
import { WatchCounts } from "../runtime/watch-counts.js";

/** No partition a node could name as refusing (ClusterRuntime.notAcceptingShards). */
const NONE_REFUSING: readonly number[] = Object.freeze([]);

/** What the runtime needs from the leases (leases.ts). */
export interface Ownership {
  /** Whether this node holds `partition` at `epoch`, valid now by its clock (reads need this). */
  holds(partition: number, epoch: number): boolean;
  /** Whether this node may go on appending to `partition`'s stream at `epoch` (commands need this; fenced in any case). */
  mayAppend(partition: number, epoch: number): boolean;
  owned(): ReadonlyArray<{ readonly partition: number; readonly epoch: number }>;
  /** The partition's lease as this node last read it (metrics). */
  ownerOf(partition: number): { readonly node: string | null; readonly epoch: number } | undefined;
  /** Gives up every lease (calling the runtime's `lost` for each first). */
  close(): Promise<void>;
}

export type ClusterLog = (level: "info" | "warn" | "error", message: string, fields: Record<string, unknown>) => void;

export interface ClusterRuntimeOptions extends ShardAnswersOptions {
  settings: ClusterSettings;
  /** The node's NATS connection (forwarding, key bindings, live events); the caller's, closed by the caller. Its timers run the runtime's. */
  messaging: Messaging;
  /** The cluster's recorded partition count (cluster-layout.ts). */
  partitions: number;
  /** The cluster's recorded key homes: partitions 0..keyHomes-1 bind keys (cluster-layout.ts). */
  keyHomes: number;
  clock: Clock;
  controlledClock?: boolean;
  workerSource?: ShardWorkerSource;
  /** How an owned partition's shard thread is started (default: a worker thread; the simulation's run in-process). */
  startThread?: ShardThreadStarter;
  tickIntervalMs?: number;
  /** The node's index of identity commands (the identity store's); each owned partition has its own (partition-indexes.ts). */
  idempotency: IdempotencyIndex;
  /** Snapshot the owned partitions this often when anything changed (0: only on close or hand-over). */
  checkpointEverySeconds?: number;
  log: ClusterLog;
  onBatch?: (partition: number, stats: BatchStats) => void;
  /** Sign each partition log's heads and give accepted commands receipts; undefined: none. */
  heads?: ShardHeadsSpec;
}

/** How long a failed partition waits before this node opens it again (it still holds the lease). */
const REOPEN_DELAY_MS = 250;

/**
 * Whether the owner may answer `request` while it may append (`mayAppend`), as for a command:
 * a command (fenced by the stream), and the reply a logged command got (`reply-at`: an entry of
 * the stream never changes, so reading it needs no lease valid now). Every other read is of the
 * current state, which another owner may have changed once the lease lapsed: it needs `holds`.
 * So a retry of a command that did execute is answered as soon as a new command would be.
 */
function answeredWhileAppending(request: ShardRequest): boolean {
  return request.kind === "command" || request.kind === "reply-at";
}

export class ClusterRuntime implements Markets {
  private ownership: Ownership | undefined;
  private readonly host: PartitionHost;
  private readonly forwarder: Forwarder;
  private readonly answers: ShardAnswers;
  private readonly keys: KeyBindings;
  /** The idempotency entries of the partitions this node has open, one index each (decision I58). */
  private readonly indexes: PartitionIndexes;
  private readonly checkpointTimer: TimerHandle | undefined;
  private readonly timers: Timers;
  private commandsSinceCheckpoint = 0;
  /** The epoch each partition was last acquired at (a reopen after a failure keeps it). */
  private readonly lastEpoch = new Map<number, number>();
  /** Partitions whose recovery is complete (shard open, idempotency entries restored, bindings read): only these are served. */
  private readonly recovered = new Set<number>();
  /** Partitions being opened here (`acquired` running): a request for one waits for it rather than being refused. */
  private readonly opening = new Map<number, Promise<void>>();
  private closed = false;
  /** Why the node's NATS connection is down, or undefined while it is up. */
  private natsProblem: string | undefined;
  /** The event hub's listener (live streams, docs/events.md). */
  private eventListener: MarketEventListener | undefined;
  /** Watches of the markets of owned partitions: this node's hub's and other nodes'. */
  private readonly watches = new WatchCounts();
  /** Events of owned partitions out to other nodes, and of followed ones in (event-relay.ts). */
  private readonly relay: EventRelay;

  constructor(private readonly options: ClusterRuntimeOptions) {
    this.timers = options.messaging.timers;
    this.watchConnection();
    this.relay = new EventRelay(
      options.messaging.transport,
      { events: (events) => this.eventListener?.events(events), moved: (partition) => this.moved(partition) },
      (error) => options.log("warn", "relaying live events failed", { error: error instanceof Error ? error.message : String(error) }),
    );
    this.answers = new ShardAnswers(options);
    this.indexes = new PartitionIndexes(options.messaging, (partition, error) =>
      options.log("warn", "snapshot of a partition's idempotency entries failed", { partition, error: error instanceof Error ? error.message : String(error) }),
    );
    this.keys = new KeyBindings(options.messaging, (partition) => this.indexes.get(partition), {
      failed: (partition, error) => this.keysFailed(partition, error),
      snapshotFailed: (partition, error) => options.log("warn", "snapshot of key bindings failed", { partition, error: error instanceof Error ? error.message : String(error) }),
    });
    this.forwarder = new Forwarder(
      options.messaging.transport,
      this.timers,
      options.settings.forwardTimeoutMs,
      (partition, error) => options.log("error", "answering a forwarded request failed", { partition, error: error instanceof Error ? error.message : String(error) }),
      { bindLingerMs: options.settings.batchLingerMs },
    );
    this.host = new PartitionHost({
      natsUrls: options.settings.natsUrls,
      nodeId: options.settings.nodeId,
      clock: options.clock,
      timers: this.timers,
      controlledClock: options.controlledClock ?? false,
      ...(options.tickIntervalMs === undefined ? {} : { tickIntervalMs: options.tickIntervalMs }),
      ...(options.workerSource === undefined ? {} : { workerSource: options.workerSource }),
      ...(options.startThread === undefined ? {} : { startThread: options.startThread }),
      onStopped: (partition, reason) => this.stopped(partition, reason),
      onEvents: (partition, events) => {
        this.eventListener?.events(events);
        this.relay.publishEvents(partition, events);
      },
      ...(options.onBatch === undefined ? {} : { onBatch: options.onBatch }),
      ...(options.heads === undefined ? {} : { heads: options.heads }),
      snapshotEveryCommands: options.settings.snapshotEveryCommands,
      batchLingerMs: options.settings.batchLingerMs,
      onSnapshotting: (partition, mark) => this.indexes.snapshotting(partition, mark),
    });
    const everySeconds = options.checkpointEverySeconds ?? 60;
    if (everySeconds > 0) {
      this.checkpointTimer = this.timers.every(everySeconds * 1000, () => void this.checkpoint()).unref();
    }
  }

  /** Connects the leases (created after the runtime, since their callbacks are its `acquired` and `lost`). */
  attach(ownership: Ownership): void {
    this.ownership = ownership;
  }

  /** The cluster's partition count (a cluster node's shards are its partitions). */
  get shardCount(): number {
    return this.options.partitions;
  }

  /** The partition a command goes to: its market's; a malformed commitment id still lands somewhere fixed. */
  partitionOf(command: Command): number {
    const marketId = marketIdOfCommand(command);
    if (marketId !== undefined) return shardOfMarket(marketId, this.options.partitions);
    return fnv1a32("commitmentId" in command ? command.commitmentId : "") % this.options.partitions;
  }

  /**
   * The epoch this node serves `partition` at, if it owns it and has it open: for reads, with a
   * lease valid now by its clock; for commands, also with a lease that lapsed only because the
   * lease bucket is out of reach (leases.ts `mayAppend`; every append is fenced by the stream).
   */
  private serving(partition: number, forCommands = false): number | undefined {
    // Open is not enough: until `acquired` has restored the partition's idempotency entries and
    // bindings, a command would be claimed as fresh and executed a second time.
    if (!this.recovered.has(partition)) return undefined;
    const epoch = this.host.epochOf(partition);
    if (epoch === undefined || this.ownership === undefined) return undefined;
    if (this.ownership.holds(partition, epoch)) return epoch;
    return forCommands && this.ownership.mayAppend(partition, epoch) ? epoch : undefined;
  }

  /**
   * Why this node, which the lease of `partition` names, does not serve it now: in the client's
   * words (docs/errors.md), for a request it must refuse.
   */
  private notServedHere(partition: number): string {
    if (this.closed) return "this node is stopping";
    if (!this.recovered.has(partition) || this.host.epochOf(partition) === undefined) return `partition ${partition} is not open on this node now (it is being opened or has moved); retry shortly`;
    return `this node's lease on partition ${partition} lapsed (its renewal is late); retry shortly`;
  }

  /** Idempotency entries of the partitions this node has open (metrics; the identity commands' are the node's index). */
  get partitionIdempotencyEntries(): number {
    return this.indexes.size;
  }

  /** Partitions this node serves now (metrics, readiness). */
  servedPartitions(): number[] {
    return this.host.openPartitions().filter((partition) => this.serving(partition) !== undefined);
  }

  /** Every partition's owner as this node last saw it, and whether this node serves it (metrics). */
  partitionViews(): Array<{ partition: number; ownerNode: string | null; epoch: number; servedHere: boolean }> {
    return Array.from({ length: this.options.partitions }, (_, partition) => {
      const seen = this.ownership?.ownerOf(partition);
      return { partition, ownerNode: seen?.node ?? null, epoch: seen?.epoch ?? 0, servedHere: this.serving(partition) !== undefined };
    });
  }

  /** NATS messages this node sent to partitions' owners, and the requests they carried (metrics). */
  forwardingCounts(): ForwardingCounts {
    return this.forwarder.sent;
  }

  /** Requests queued for or in flight to each partition this node has open (0 for the others). */
  pendingByShard(): number[] {
    const pending = new Array<number>(this.options.partitions).fill(0);
    for (const { partition, pending: count } of this.host.pendingByPartition()) pending[partition] = count;
    return pending;
  }

  /** Partitions that cannot take commands: none a node could name; an unowned one answers 503 per request. */
  notAcceptingShards(): readonly number[] {
    return NONE_REFUSING;
  }

  // ---------------------------------------------------------------------------------------------
  // Markets: served here when this node owns the partition, else by its owner.
  // ---------------------------------------------------------------------------------------------

  submit(command: Command, fingerprint: string): Promise<SubmitResult> {
    return this.answerWithin(this.submitAnywhere(command, fingerprint));
  }

  private async submitAnywhere(command: Command, fingerprint: string): Promise<SubmitResult> {
    this.refuseIfClosed();
    const partition = this.partitionOf(command);
    if (this.serving(partition, true) !== undefined) return this.submitHere(command, fingerprint);
    // The owner binds the key and decides idempotency; what it answers is the reply, whether it
    // executed or replayed.
    return { disposition: "executed", reply: await this.routed(partition, commandRequest(command, fingerprint)) };
  }

  readMarket(marketId: string): Promise<ShardReply> {
    return this.read(this.partitionOfMarket(marketId), marketRead(marketId));
  }

  readRecord(marketId: string, actorId: string): Promise<ShardReply> {
    return this.read(this.partitionOfMarket(marketId), recordRead(marketId, actorId));
  }

  readOutcome(marketId: string, principalId: string): Promise<ShardReply> {
    return this.read(this.partitionOfMarket(marketId), outcomeRead(marketId, principalId));
  }

  /**
   * A watch of a market's live events: at its shard when this node owns its partition, else at the
   * owner (forwarded), with the partition's events followed from here before the watch is sent.
   */
  async watchMarket(marketId: string, watching: boolean): Promise<ShardReply> {
    const partition = this.partitionOfMarket(marketId);
    if (this.serving(partition) !== undefined) return this.answerWithin(this.watchHere(partition, marketId, watching));
    if (!watching) {
      this.relay.unfollow(partition);
      return this.read(partition, watchRead(marketId, false)).catch(() => okReply("{}"));
    }
    this.relay.follow(partition);
    try {
      const reply = await this.read(partition, watchRead(marketId, true));
      if (!reply.ok) this.relay.unfollow(partition);
      return reply;
    } catch (error) {
      this.relay.unfollow(partition);
      throw error;
    }
  }

  /** A watch at an owned partition's shard, counted: the shard stops only when the last one ends. */
  private async watchHere(partition: number, marketId: string, watching: boolean): Promise<ShardReply> {
    if (!watching) return this.watches.removed(marketId) ? this.readHere(partition, watchRead(marketId, false)) : okReply("{}");
    const reply = await this.readHere(partition, watchRead(marketId, true));
    if (reply.ok) this.watches.added(marketId);
    return reply;
  }

  /** `partition` changed owner: its watches are gone here, and streams on its markets end everywhere. */
  private moved(partition: number): void {
    const inPartition = (marketId: string) => this.partitionOfMarket(marketId) === partition;
    this.watches.forget(inPartition);
    this.eventListener?.moved(inPartition);
  }

  listenForEvents(listener: MarketEventListener): void {
    this.eventListener = listener;
  }

  /** A read of the log `partition-<p>`, by the partition's owner (here, or forwarded like market reads). */
  readLog(logId: string, request: Extract<ReadRequest, { kind: "log-head" | "log-proof" }>): Promise<ShardReply> | undefined {
    const partition = logIndexOf(logId, "partition", this.options.partitions);
    return partition === undefined ? undefined : this.read(partition, request);
  }

  get recordCacheStats(): RecordCacheStats {
    return this.answers.recordCacheStats;
  }

  private partitionOfMarket(marketId: string): number {
    return shardOfMarket(marketId, this.options.partitions);
  }

  private read(partition: number, request: ReadRequest): Promise<ShardReply> {
    try {
      this.refuseIfClosed();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.answerWithin(this.routed(partition, request));
  }

  /**
   * `request` answered where `partition` is served: here, or by the owner its lease names (as this
   * node last read the lease bucket), at the lease's epoch. If the lease moves on before that owner
   * answers, the same request goes to the new owner (whose idempotency, restored from the stream
   * before it serves, answers a command its predecessor executed with the original reply); the
   * reply deadline (`answerWithin`) bounds the whole.
   */
  private async routed(partition: number, request: ShardRequest): Promise<ShardReply> {
    for (;;) {
      if (this.serving(partition, answeredWhileAppending(request)) !== undefined) return this.answerHere(partition, request);
      const target = await this.ownerToAsk(partition);
      if (target === undefined) continue; // opened here meanwhile
      const reply = await this.forwarder.send(partition, target, request);
      if (reply !== OWNER_MOVED) return reply;
    }
  }

  /**
   * The epoch of the other node to send a request for `partition` to, or undefined once this node
   * finished opening it (the caller looks again). Refuses when no node holds the lease, or when
   * the lease names this node and it does not serve the partition now.
   */
  private async ownerToAsk(partition: number): Promise<number | undefined> {
    const owner = this.ownership?.ownerOf(partition);
    if (owner === undefined || owner.node === null) throw new UnavailableError(`partition ${partition} has no owner right now; retry shortly`);
    if (owner.node !== this.options.settings.nodeId) return owner.epoch;
    const opening = this.opening.get(partition);
    if (opening === undefined) throw new UnavailableError(this.notServedHere(partition));
    await opening.catch(() => undefined);
    if (this.recovered.has(partition)) return undefined;
    throw new UnavailableError(this.notServedHere(partition));
  }

  /**
   * The client's answer within the reply deadline (CLUSTER_FORWARD_TIMEOUT_MS), or a 503 with
   * Retry-After: never a hang while NATS is out of reach or a stream elects a leader. A command
   * that was still being appended may yet be logged: it was not acknowledged, and its retry (same
   * commandId) gets its reply through idempotency.
   */
  private answerWithin<T>(work: Promise<T>): Promise<T> {
    const deadlineMs = this.options.settings.forwardTimeoutMs;
    let timer: TimerHandle | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = this.timers.after(deadlineMs, () => reject(new UnavailableError(`no acknowledgement within ${deadlineMs} ms (NATS or a partition's owner is slow or out of reach); retry with the same commandId`)));
    });
    return Promise.race([work, late]).finally(() => timer?.cancel());
  }

  private async readHere(partition: number, request: ReadRequest): Promise<ShardReply> {
    // A proof's partition may be asked again for the entries the pool thread lacks (shard-answers.ts).
    const reask = request.kind === "log-proof" ? (after: number) => this.host.request(partition, logProofRead(request.proof, after)) : undefined;
    return this.answers.answer(await this.host.request(partition, request), reask);
  }

  /** The proof cache counters of this node's worker pool threads (tests, metrics). */
  get proofCacheStats(): ProofCacheStats {
    return this.answers.proofCacheStats;
  }

  /**
   * A command executed by this node, the owner of its partition, whether it came from a client here
   * or was forwarded. A key whose home is another partition is bound there first (key-bindings.ts),
   * by the owner rather than by the node the client reached: the owner's binds of one turn, from
   * every node's clients, travel to the home as one message, and a claim crosses NATS to its owner
   * and back once (docs/cluster.md, "Idempotency across the cluster").
   */
  private async submitHere(command: Command, fingerprint: string): Promise<SubmitResult> {
    const { actorId } = command.identity;
    const { commandId } = command;
    const home = homeOf(actorId, commandId, this.options.keyHomes);
    const partition = this.partitionOf(command);
    if (home !== partition) {
      if ((await this.bind(home, { actorId, commandId, fingerprint, marketPartition: partition })) === "conflict") return { disposition: "replayed", reply: IDEMPOTENCY_CONFLICT };
    } else {
      // A command executing in its key's home: no binding is made, but one made for another market
      // must win. One in flight decides first (abandoned: it wins nothing); the last check and the
      // claim below then run in one turn, so no bind passes between them.
      for (let binding = this.keys.bindingInFlightOtherwise(home, actorId, commandId, fingerprint); binding !== undefined; binding = this.keys.bindingInFlightOtherwise(home, actorId, commandId, fingerprint)) await binding;
      if (this.keys.boundOtherwise(home, actorId, commandId, fingerprint)) return { disposition: "replayed", reply: IDEMPOTENCY_CONFLICT };
    }
    // A key an identity command took (those are logged on the cluster's identity log, not in a partition).
    if (this.options.idempotency.usedOtherwise(actorId, commandId, fingerprint)) return { disposition: "replayed", reply: IDEMPOTENCY_CONFLICT };
    const index = this.indexes.get(partition);
    if (index === undefined) throw new UnavailableError(this.notServedHere(partition));
    return submitOnce(index, this.executor, command, fingerprint);
  }

  /** Binds a key at its home partition: here if this node serves it, else at the owner its lease names (followed as requests are: `routed`). */
  private async bind(home: number, request: BindRequest): Promise<BindVerdict> {
    for (;;) {
      if (this.serving(home, true) !== undefined) return this.keys.bind(home, request.actorId, request.commandId, request.fingerprint, request.marketPartition);
      const target = await this.ownerToAsk(home);
      if (target === undefined) continue;
      const verdict: BindVerdict | OwnerMoved = await this.forwarder.sendBind(home, target, request);
      if (verdict !== OWNER_MOVED) return verdict;
    }
  }

  /** A bind another node sent to this node as the owner of home partition `home`. */
  private answerBind(home: number, request: BindRequest): Promise<BindVerdict> {
    if (this.closed || this.serving(home, true) === undefined) return Promise.reject(new UnavailableError(this.notServedHere(home)));
    return this.keys.bind(home, request.actorId, request.commandId, request.fingerprint, request.marketPartition);
  }

  /** How an owned partition executes a command and finds an old reply (submit-once.ts). */
  private readonly executor: Executor = {
    execute: async (command, fingerprint) => {
      const partition = this.partitionOf(command);
      if (this.serving(partition, true) === undefined) throw new UnavailableError(`partition ${partition} changed owner; retry shortly`);
      const response = await this.host.request(partition, commandRequest(command, fingerprint));
      if (response.kind !== "command") throw new Error("partition answered a command with a read response");
      this.commandsSinceCheckpoint += 1;
      return { owner: partition, response };
    },
    // The reply a logged command got, where its partition is served: as a command is (a retry is
    // answered as soon as a new command would be), within the submission's reply deadline.
    replyAt: async (location: CommandLocation) => {
      if (location.owner === "identity") throw new Error("identity-owned command replayed through the market runtime");
      this.refuseIfClosed();
      return this.routed(location.owner, replyAtRead(location.position));
    },
  };

  /** What this node answers for a request another node forwarded to it as the owner of `partition`. */
  private answerForwarded(partition: number, request: ShardRequest): Promise<ShardReply> {
    if (this.closed || this.serving(partition, answeredWhileAppending(request)) === undefined) {
      return Promise.reject(new UnavailableError(this.notServedHere(partition)));
    }
    return this.answerHere(partition, request);
  }

  /** `request` answered by this node's shard of `partition`, which the caller found served here. */
  private answerHere(partition: number, request: ShardRequest): Promise<ShardReply> {
    if (request.kind === "command") return this.submitHere(request.command, request.fingerprint).then((result) => result.reply);
    if (request.kind === "watch") return this.watchHere(partition, request.marketId, request.watching);
    return this.readHere(partition, request);
  }

  // ---------------------------------------------------------------------------------------------
  // Ownership changes (called by the leases).
  // ---------------------------------------------------------------------------------------------

  /** This node acquired `partition`'s lease at `epoch`: recover the partition and serve it. */
  async acquired(partition: number, epoch: number): Promise<void> {
    if (this.closed) return;
    // One open of a partition at a time: a reopen's timer and the leases may both ask for it at
    // the same epoch, and of two opens at once one is refused (the stream's claim) and closes the
    // key bindings the other opened, leaving the partition served without them (simulation, seed 970).
    for (let earlier = this.opening.get(partition); earlier !== undefined; earlier = this.opening.get(partition)) {
      await earlier.catch(() => undefined);
      if (this.closed || (this.recovered.has(partition) && this.host.epochOf(partition) === epoch)) return;
    }
    const opening = this.open(partition, epoch);
    this.opening.set(partition, opening);
    try {
      await opening;
    } finally {
      if (this.opening.get(partition) === opening) this.opening.delete(partition);
    }
  }

  /**
   * The lease of `partition` was seen (read or written) at `epoch`: requests forwarded to an
   * earlier owner and not answered yet go to the new one.
   */
  ownerSeen(partition: number, epoch: number): void {
    this.forwarder.ownerMoved(partition, epoch);
  }

  private async open(partition: number, epoch: number): Promise<void> {
    this.lastEpoch.set(partition, epoch);
    const startedMs = this.timers.nowMs();
    const timed = async <T>(work: Promise<T>): Promise<{ value: T; ms: number }> => ({ value: await work, ms: Math.round(this.timers.nowMs() - startedMs) });
    // The partition's stream and, for a key home, its bindings' stream: each claimed at `epoch` and
    // read, independent of each other, so at once. The partition is served only once both are done.
    const keyHome = partition < this.options.keyHomes;
    // A snapshot the shard takes before the index is made waits for it (decision I60).
    this.indexes.expect(partition);
    const shardOpened = timed(this.host.open(partition, epoch));
    const keysOpened = timed(keyHome ? this.keys.open(partition, epoch) : Promise.resolve(undefined));
    const [shard, keys] = await Promise.allSettled([shardOpened, keysOpened]);
    if (shard.status === "rejected" || keys.status === "rejected") {
      // Dropped first: the shard's snapshot on closing then waits for no index.
      this.indexes.drop(partition);
      if (shard.status === "fulfilled") await this.host.close(partition);
      if (keys.status === "fulfilled") await this.keys.close(partition);
      throw shard.status === "rejected" ? shard.reason : (keys as PromiseRejectedResult).reason;
    }
    const opened = shard.value.value;
    const bindings = keys.value.value;
    let idempotencyFromSnapshot: number;
    try {
      idempotencyFromSnapshot = this.indexes.open(partition, opened.idempotency);
    } catch (error) {
      this.indexes.drop(partition);
      await this.host.close(partition);
      if (keyHome) await this.keys.close(partition);
      throw error;
    }
    this.recovered.add(partition);
    // Streams that followed the previous owner end (here and on every node): their watches were there.
    this.moved(partition);
    this.relay.publishMoved(partition);
    this.forwarder.serve(
      partition,
      epoch,
      (request) => this.answerForwarded(partition, request),
      (request) => this.answerBind(partition, request),
    );
    const accepted = opened.report.acceptedUnsignedTail;
    if (accepted !== undefined) {
      this.options.log("warn", "unsigned tail accepted (AUDIT_ACCEPT_UNSIGNED_TAIL): recorded in the log by a signed head", { partition, ...accepted });
    }
    this.options.log("info", "partition acquired", {
      partition,
      epoch,
      markets: opened.report.markets,
      commandsReplayed: opened.report.framesReplayed,
      // Entries read before the snapshot's, for their idempotency entries only (those after the newest snapshot of them, decision I58).
      commandsScanned: opened.report.framesScannedForIdempotency,
      idempotencyFromSnapshot,
      // Why the stream's newest snapshot was not used (its mark does not match, or it cannot be read): the stream was replayed from the older snapshot it names, or from its first entry.
      ...(opened.report.snapshotIgnored === null ? {} : { snapshotIgnored: opened.report.snapshotIgnored }),
      ...(opened.report.idempotencySnapshotIgnored === undefined ? {} : { idempotencySnapshotIgnored: opened.report.idempotencySnapshotIgnored }),
      lastSequence: opened.report.lastLsn,
      headsChecked: opened.report.headsChecked,
      ...(bindings === undefined ? {} : { keyBindings: bindings.bindings, keyBindingsFromSnapshot: bindings.fromSnapshot }),
      // The shard's open: its worker's start, NATS connection (shardConnectMs), the stream's open and claim (streamOpenMs), the check of the idempotency snapshot and the thread's messages (not timed apart), and its recovery proper (shardRecoveryMs).
      shardOpenMs: shard.value.ms,
      ...(opened.report.connectMs === undefined ? {} : { shardConnectMs: opened.report.connectMs }),
      ...(opened.report.streamOpenMs === undefined ? {} : { streamOpenMs: opened.report.streamOpenMs }),
      shardRecoveryMs: opened.report.elapsedMs,
      // A read of the stream that resumed on a new consumer (an election, or one that stalled): recovery waited there.
      ...(opened.report.readsResumed === undefined ? {} : { streamReadsResumed: opened.report.readsResumed.count, lastStreamReadResumed: opened.report.readsResumed.last }),
      ...(keyHome ? { keyBindingsOpenMs: keys.value.ms } : {}),
      elapsedMs: Math.round(this.timers.nowMs() - startedMs),
    });
  }

  /** This node gives `partition` up (its lease was lost or is handed to another node): stop serving it. */
  async lost(partition: number, reason: string): Promise<void> {
    const startedMs = this.timers.nowMs();
    this.lastEpoch.delete(partition);
    this.recovered.delete(partition);
    this.forwarder.stopServing(partition);
    this.moved(partition);
    this.relay.publishMoved(partition);
    await this.host.close(partition);
    // The shard's last snapshot on closing was stored after the entries' under its mark (decision
    // I60); a write of an earlier mark may still be ending, and a close that took no snapshot waits
    // on nothing else: settled before the index goes.
    await this.indexes.settled(partition);
    this.indexes.drop(partition);
    await this.keys.close(partition);
    // elapsedMs: from the moment it stopped serving (a hand-over's time without an owner starts there).
    this.options.log("info", "partition released", { partition, reason, elapsedMs: Math.round(this.timers.nowMs() - startedMs) });
  }

  /** A partition stopped on its own (fenced, or its journal failed): stop answering for it, and open it again while the lease lasts. */
  private stopped(partition: number, reason: string): void {
    this.recovered.delete(partition);
    this.indexes.drop(partition);
    this.forwarder.stopServing(partition);
    this.moved(partition);
    this.relay.publishMoved(partition);
    void this.keys.close(partition);
    this.options.log("warn", "partition stopped", { partition, reason });
    this.timers.after(REOPEN_DELAY_MS, () => void this.reopen(partition)).unref();
  }

  /**
   * Opens a partition that stopped on its own again, for as long as this node keeps its lease
   * (also a lapsed one: NATS may be out of reach, and then so is every other node's way to take
   * it); gives up when the lease is lost (the leases then call `lost`).
   */
  private async reopen(partition: number): Promise<void> {
    const lease = this.ownership?.owned().find((owned) => owned.partition === partition);
    const epoch = lease?.epoch ?? this.lastEpoch.get(partition);
    if (this.closed || epoch === undefined || this.ownership?.mayAppend(partition, epoch) !== true || this.host.epochOf(partition) !== undefined) return;
    try {
      await this.acquired(partition, epoch);
    } catch (error) {
      this.options.log("warn", "reopening a partition failed", { partition, error: error instanceof Error ? error.message : String(error) });
      this.timers.after(REOPEN_DELAY_MS, () => void this.reopen(partition)).unref();
    }
  }

  /**
   * A key home's stream failed while its partition is served: commands executing in their key's home
   * are answered 503 (a binding in doubt may be stored) until the bindings are opened again, at the
   * same epoch, while this node keeps serving the partition (its lease lost or the shard stopped:
   * `lost` and `stopped` handle it).
   */
  private keysFailed(partition: number, error: unknown): void {
    this.options.log("warn", "key bindings failed", { partition, error: error instanceof Error ? error.message : String(error) });
    const epoch = this.lastEpoch.get(partition);
    if (epoch === undefined) return;
    const wanted = (): boolean => !this.closed && this.lastEpoch.get(partition) === epoch && this.recovered.has(partition) && this.ownership?.mayAppend(partition, epoch) === true;
    const retry = (): void => {
      if (!wanted()) return;
      this.keys.reopen(partition, epoch, wanted).catch((reason: unknown) => {
        this.options.log("warn", "reopening key bindings failed", { partition, error: reason instanceof Error ? reason.message : String(reason) });
        this.timers.after(REOPEN_DELAY_MS, retry).unref();
      });
    };
    this.timers.after(REOPEN_DELAY_MS, retry).unref();
  }

  // ---------------------------------------------------------------------------------------------
  // Time, checkpoints, shutdown.
  // ---------------------------------------------------------------------------------------------

  publishTime(): void {
    this.host.publishTime();
  }

  /** Snapshots every owned partition and the bindings of every key home it serves (a new owner then reads only what came after). */
  async checkpoint(): Promise<void> {
    // Bindings first: a home binds keys for commands of other partitions, whose own count may be zero here.
    this.keys.snapshotAll();
    if (this.commandsSinceCheckpoint === 0) return;
    this.commandsSinceCheckpoint = 0;
    try {
      await this.host.snapshotAll();
    } catch (error) {
      this.options.log("warn", "checkpoint failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }

  private refuseIfClosed(): void {
    if (this.closed) throw new UnavailableError("this node is stopping");
    if (this.natsProblem !== undefined) throw new UnavailableError(`this node is cut off from NATS (${this.natsProblem}); retry shortly`);
  }

  /** Follows the node's NATS connection: while it is down, requests are answered 503 at once. */
  private watchConnection(): void {
    this.options.messaging.transport.watchStatus((status) => {
      this.natsProblem = status === "disconnected" ? "disconnected" : undefined;
    });
  }

  /** Gives up every lease (others take the partitions at once), drains and snapshots what it owned. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.checkpointTimer?.cancel();
    await this.ownership?.close();
    this.relay.close();
    this.forwarder.close();
    await this.host.closeAll();
    await this.indexes.settled();
    await this.answers.close();
  }
}
