/**
 * The market side of the service as the transports (HTTP, MCP) see it: submit a command, read a
 * market, its record, or a principal's outcome. Behind it: idempotency (gateway thread), routing to
 * the owning shard, shard workers that decide and log durably, periodic checkpoints (shard
 * snapshots + the idempotency index snapshot), and an orderly shutdown.
 */
import { marketIdOfCommand } from "../rules/handle-command.js";
import type { Command } from "../rules/types/command.js";
import type { Clock } from "../clock.js";
import { IdempotencyIndex, type CommandLocation } from "../idempotency/index.js";
import { IndexSnapshotWriter, indexSnapshotStore, openIndexSnapshot, peekIndexWatermarks } from "../idempotency/index-snapshot.js";
import { ensureClusterMeta } from "../../storage/data-dir-layout.js";
import { ShardHost, type ShardWorkerSource } from "./shard-host.js";
import type { ShardHeadsSpec } from "./worker-messages.js";
import type { RecordCacheStats } from "./record-cache.js";
import { ShardAnswers, type ShardAnswersOptions } from "./shard-answers.js";
import type { ProofCacheStats } from "../audit/proof-tree-cache.js";
import {
  commandRequest,
  logProofRead,
  marketRead,
  okReply,
  outcomeRead,
  recordRead,
  replyAtRead,
  type BatchStats,
  type ReadRequest,
  type ShardRecoveryReport,
  type ShardReply,
  watchRead,
} from "../shard-protocol/shard-protocol.js";
import { fnv1a32, logIndexOf, shardOfMarket } from "./shard-routing.js";
import type { MarketEventListener, Markets } from "./markets.js";
import { submitOnce, type Executor, type SubmitResult } from "./submit-once.js";
import { WatchCounts } from "./watch-counts.js";

export type { SubmitResult } from "./submit-once.js";

export interface MarketRuntimeOptions extends ShardAnswersOptions {
  dataDir: string;
  shardCount: number;
  clock: Clock;
  /** Tests: shards take their time from `clock` (advance it, then call `publishTime`). */
  controlledClock?: boolean;
  /** Checkpoint after this many commands (default 100,000) ... */
  checkpointEveryCommands?: number;
  /** ... or this often when anything changed (default 60 s; 0 disables the timer). */
  checkpointEverySeconds?: number;
  segmentSizeBytes?: number;
  workerSource?: ShardWorkerSource;
  /** The index to use (shared with the identity store); a new one by default. */
  idempotency?: IdempotencyIndex;
  /** A shard lost durability: the service must stop accepting and exit non-zero. */
  onFatal: (message: string) => void;
  /** After every shard batch (metrics). */
  onBatch?: (shardIndex: number, stats: BatchStats) => void;
  /** Sign each shard log's heads and give accepted commands receipts (engine/audit/heads/log-heads.ts); undefined: none. */
  heads?: ShardHeadsSpec;
}

export interface RuntimeRecovery {
  shards: ShardRecoveryReport[];
  idempotencyEntries: number;
  elapsedMs: number;
}

export class MarketRuntime implements Markets {
  private commandsSinceCheckpoint = 0;
  private checkpointing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly answers: ShardAnswers;
  /** The event hub's listener; set once the gateway is composed (events before it have no subscriber). */
  private eventListener: MarketEventListener | undefined;
  private readonly watches = new WatchCounts();

  private constructor(
    private readonly options: MarketRuntimeOptions,
    private readonly host: ShardHost,
    readonly idempotency: IdempotencyIndex,
    /** Writes the idempotency index's snapshots, kept while this runs (each checkpoint writes and prunes them). */
    private readonly indexSnapshotWriter: IndexSnapshotWriter,
  ) {
    this.answers = new ShardAnswers(options);
  }

  static async open(options: MarketRuntimeOptions): Promise<{ runtime: MarketRuntime; recovery: RuntimeRecovery }> {
    const startedMs = performance.now();
    ensureClusterMeta(options.dataDir, options.shardCount, options.clock.nowMs());
    const index = options.idempotency ?? new IdempotencyIndex();
    let runtime: MarketRuntime | undefined;
    const start = (watermarks: number[]) =>
      ShardHost.start({
        dataDir: options.dataDir,
        shardCount: options.shardCount,
        clock: options.clock,
        controlledClock: options.controlledClock ?? false,
        reportIdempotencyAfterLsn: watermarks,
        ...(options.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: options.segmentSizeBytes }),
        ...(options.workerSource === undefined ? {} : { workerSource: options.workerSource }),
        onFatal: (shardIndex, message) => options.onFatal(`shard ${shardIndex}: ${message}`),
        ...(options.onBatch === undefined ? {} : { onBatch: options.onBatch }),
        ...(options.heads === undefined ? {} : { heads: options.heads }),
        onEvents: (events) => runtime?.eventListener?.events(events),
      });
    // Each shard needs its watermark from the index snapshot to open. They are read first from the
    // file's first bytes, so the shards open while this thread reads, checks and decodes the whole
    // file (a start takes the longer of the two, not the sum); if the checked snapshot disagrees
    // (the newest file was damaged, say), the shards are started again with its watermarks.
    const indexSnapshots = indexSnapshotStore(options.dataDir);
    const hinted = peekIndexWatermarks(indexSnapshots, options.shardCount);
    let starting = hinted === undefined ? undefined : start(hinted);
    const stopStarted = async () => {
      const started = await starting?.catch(() => undefined);
      await started?.host.close();
    };
    let fullLsn: number | undefined;
    try {
      const indexSnapshot = openIndexSnapshot(indexSnapshots, options.shardCount);
      fullLsn = indexSnapshot.fullLsn;
      if (hinted === undefined || !sameNumbers(hinted, indexSnapshot.watermarks)) {
        await stopStarted();
        starting = start(indexSnapshot.watermarks);
      }
      indexSnapshot.restoreInto(index);
    } catch (error) {
      await stopStarted();
      throw error;
    }
    if (starting === undefined) throw new Error("shards were not started");
    const { host, reports, idempotency } = await starting;
    idempotency.forEach((entries, shardIndex) => {
      for (let i = 0; i < entries.actorIds.length; i += 1) {
        index.restore(entries.actorIds[i] as string, entries.commandIds[i] as string, entries.fingerprints[i] as string, {
          owner: shardIndex,
          position: entries.positions[i] as number,
        });
      }
    });
    runtime = new MarketRuntime(options, host, index, new IndexSnapshotWriter(indexSnapshots, fullLsn));
    const everySeconds = options.checkpointEverySeconds ?? 60;
    if (everySeconds > 0) {
      runtime.timer = setInterval(() => {
        if (runtime.commandsSinceCheckpoint > 0) void runtime.checkpoint().catch((error: unknown) => options.onFatal(`checkpoint failed: ${String(error)}`));
      }, everySeconds * 1000);
      runtime.timer.unref();
    }
    return {
      runtime: runtime as MarketRuntime,
      recovery: { shards: reports, idempotencyEntries: index.size, elapsedMs: Math.round(performance.now() - startedMs) },
    };
  }

  get shardCount(): number {
    return this.host.shardCount;
  }

  /** Shards that cannot take commands now (the runtime is closing, or a shard failed). */
  notAcceptingShards(): readonly number[] {
    return this.closed ? Array.from({ length: this.host.shardCount }, (_, shardIndex) => shardIndex) : this.host.notAccepting();
  }

  /** Requests queued for or in flight to each shard. */
  pendingByShard(): number[] {
    return this.host.pendingByShard();
  }

  /** The shard a command goes to: its market's; a malformed commitment id still lands somewhere fixed. */
  shardOfCommand(command: Command): number {
    const marketId = marketIdOfCommand(command);
    if (marketId !== undefined) return shardOfMarket(marketId, this.host.shardCount);
    return fnv1a32("commitmentId" in command ? command.commitmentId : "") % this.host.shardCount;
  }

  /**
   * Run a command once per (actor, commandId): an identical retry gets the original reply (also
   * while the first is still in flight, and after a restart); other content is a conflict.
   */
  submit(command: Command, fingerprint: string): Promise<SubmitResult> {
    if (this.closed) return Promise.reject(new Error("the market runtime is closed"));
    return submitOnce(this.idempotency, this.executor, command, fingerprint).then(this.counted);
  }

  /** Counts an executed command towards the next checkpoint, once its idempotency entry is complete. */
  private readonly counted = (result: SubmitResult): SubmitResult => {
    if (result.disposition === "executed") this.countCommand();
    return result;
  };

  /** How this runtime executes a command and finds an old reply (submit-once.ts). */
  private readonly executor: Executor = {
    execute: async (command, fingerprint) => {
      const shardIndex = this.shardOfCommand(command);
      const response = await this.host.request(shardIndex, commandRequest(command, fingerprint));
      if (response.kind !== "command") throw new Error("shard answered a command with a read response");
      return { owner: shardIndex, response };
    },
    replyAt: (location) => this.replyAt(location),
  };

  /** The reply of an already executed market command. */
  async replyAt(location: CommandLocation): Promise<ShardReply> {
    if (location.owner === "identity") throw new Error("identity-owned command replayed through the market runtime");
    return this.answers.answer(await this.host.request(location.owner, replyAtRead(location.position)));
  }

  private async read(marketId: string, request: ReadRequest): Promise<ShardReply> {
    if (this.closed) throw new Error("the market runtime is closed");
    return this.answers.answer(await this.host.request(shardOfMarket(marketId, this.host.shardCount), request));
  }

  readMarket(marketId: string): Promise<ShardReply> {
    return this.read(marketId, marketRead(marketId));
  }

  readRecord(marketId: string, actorId: string): Promise<ShardReply> {
    return this.read(marketId, recordRead(marketId, actorId));
  }

  readOutcome(marketId: string, principalId: string): Promise<ShardReply> {
    return this.read(marketId, outcomeRead(marketId, principalId));
  }

  /** A read of the log `shard-<n>` by its shard; undefined for any other log id. */
  readLog(logId: string, request: Extract<ReadRequest, { kind: "log-head" | "log-proof" }>): Promise<ShardReply> | undefined {
    const shardIndex = logIndexOf(logId, "shard", this.host.shardCount);
    if (shardIndex === undefined) return undefined;
    if (this.closed) return Promise.reject(new Error("the market runtime is closed"));
    // A proof's shard may be asked again for more entries (a journal without a view: shard-answers.ts).
    const reask = request.kind === "log-proof" ? (after: number) => this.host.request(shardIndex, logProofRead(request.proof, after)) : undefined;
    return this.host.request(shardIndex, request).then((response) => this.answers.answer(response, reask));
  }

  /** The proof cache counters of the worker pool's threads (tests, metrics). */
  get proofCacheStats(): ProofCacheStats {
    return this.answers.proofCacheStats;
  }

  async watchMarket(marketId: string, watching: boolean): Promise<ShardReply> {
    if (!watching) return this.watches.removed(marketId) ? this.read(marketId, watchRead(marketId, false)) : okReply("{}");
    const reply = await this.read(marketId, watchRead(marketId, true));
    if (reply.ok) this.watches.added(marketId);
    return reply;
  }

  listenForEvents(listener: MarketEventListener): void {
    this.eventListener = listener;
  }

  /** Record reads answered from kept records, shared replays and replays run (tests, metrics). */
  get recordCacheStats(): RecordCacheStats {
    return this.answers.recordCacheStats;
  }

  /** Controlled-clock mode: make the shards see the clock's current time (and fire deadlines). */
  publishTime(): void {
    this.host.publishTime();
  }

  private countCommand(): void {
    this.commandsSinceCheckpoint += 1;
    if (this.commandsSinceCheckpoint >= (this.options.checkpointEveryCommands ?? 100_000) && this.checkpointing === undefined) {
      void this.checkpoint().catch((error: unknown) => this.options.onFatal(`checkpoint failed: ${String(error)}`));
    }
  }

  /** Snapshot every shard, then the idempotency index with the shards' lsns as its watermarks. */
  checkpoint(): Promise<void> {
    if (this.checkpointing !== undefined) return this.checkpointing;
    this.commandsSinceCheckpoint = 0;
    this.checkpointing = (async () => {
      try {
        const lsns = await this.host.snapshotAll();
        await this.indexSnapshotWriter.write(this.idempotency, lsns);
      } finally {
        this.checkpointing = undefined;
      }
    })();
    return this.checkpointing;
  }

  /** Drain the shards, snapshot everything, stop the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.checkpointing !== undefined) await this.checkpointing.catch(() => undefined);
    const lsns = await this.host.close();
    await this.answers.close();
    // A shard that died reports no final position: the previous index snapshot stays, and the next
    // start rebuilds what is newer from the shards' logs.
    if (lsns.every((lsn) => lsn !== undefined)) await this.indexSnapshotWriter.write(this.idempotency, lsns as number[]);
  }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
