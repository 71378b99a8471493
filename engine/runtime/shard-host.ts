/**
 * The embedded default's shards: one worker per shard, each on its file journal in
 * DATA_DIR/shards/NN, started together at boot and stopped together (each through its
 * ShardChannel: batching per event-loop turn, replies, orderly shutdown).
 */
import * as path from "node:path";
import type { Clock } from "../clock.js";
import type { BatchStats, EmittedEvent, IdempotencyEntries, ShardRecoveryReport, ShardRequest, ShardResponse } from "../shard-protocol/shard-protocol.js";
import type { ShardHeadsSpec, ShardWorkerData } from "./worker-messages.js";
import { ShardChannel, type StartedShard } from "./shard-channel.js";
import { workerThreads } from "./shard-thread.js";
import { SHARD_WORKER_ASSET } from "../binary/assets.js";
import { workerSource, type WorkerSource } from "../binary/embedded-worker.js";

/** No shard refusing commands (ShardHost.notAccepting). */
const ALL_ACCEPTING: readonly number[] = Object.freeze([]);

/** How a shard worker's code is loaded: a file (normal), or source to eval (single binary, tests). */
export type ShardWorkerSource = WorkerSource;

export function defaultShardWorkerSource(): ShardWorkerSource {
  return workerSource(SHARD_WORKER_ASSET, import.meta.url, "shard-worker");
}

export interface ShardHostOptions {
  dataDir: string;
  shardCount: number;
  clock: Clock;
  /** true: workers take their time from `clock` via messages (tests); false: workers read Date.now(). */
  controlledClock: boolean;
  /** Per shard: report idempotency entries of frames after this lsn (index snapshot watermark). */
  reportIdempotencyAfterLsn: readonly number[];
  segmentSizeBytes?: number;
  tickIntervalMs?: number;
  workerSource?: ShardWorkerSource;
  /** Sign each shard log's heads; undefined: none. */
  heads?: ShardHeadsSpec;
  /** Called when a shard can no longer guarantee durability; the service must stop. */
  onFatal: (shardIndex: number, message: string) => void;
  /** Called after every batch a shard processed (metrics). */
  onBatch?: (shardIndex: number, stats: BatchStats) => void;
  /** Committed events of watched markets (live streams, docs/events.md). */
  onEvents?: (events: readonly EmittedEvent[]) => void;
}

export interface StartedShards {
  host: ShardHost;
  reports: ShardRecoveryReport[];
  idempotency: IdempotencyEntries[];
}

export function shardDirectory(dataDir: string, shardIndex: number): string {
  return path.join(dataDir, "shards", String(shardIndex).padStart(2, "0"));
}

export class ShardHost {
  private closing = false;

  private constructor(private readonly channels: ShardChannel[]) {}

  static async start(options: ShardHostOptions): Promise<StartedShards> {
    const startThread = workerThreads(options.workerSource ?? defaultShardWorkerSource());
    const starts: Array<Promise<StartedShard>> = [];
    for (let shardIndex = 0; shardIndex < options.shardCount; shardIndex += 1) {
      const data: ShardWorkerData = {
        journal: {
          kind: "file",
          dir: shardDirectory(options.dataDir, shardIndex),
          reportIdempotencyAfterLsn: options.reportIdempotencyAfterLsn[shardIndex] ?? 0,
          ...(options.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: options.segmentSizeBytes }),
        },
        shardIndex,
        clockMode: options.controlledClock ? "controlled" : "system",
        startMs: options.clock.nowMs(),
        tickIntervalMs: options.tickIntervalMs ?? 100,
        ...(options.heads === undefined ? {} : { heads: options.heads }),
      };
      starts.push(
        ShardChannel.start(startThread(), data, options.clock, {
          onFatal: (message) => options.onFatal(shardIndex, message),
          // A file journal has one writer (the data directory's lock): it is never fenced.
          onFenced: (message) => options.onFatal(shardIndex, message),
          ...(options.onBatch === undefined ? {} : { onBatch: (stats: BatchStats) => options.onBatch?.(shardIndex, stats) }),
          ...(options.onEvents === undefined ? {} : { onEvents: options.onEvents }),
        }),
      );
    }
    const settled = await Promise.allSettled(starts);
    const failed = settled.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed !== undefined) {
      await Promise.all(settled.map((result) => (result.status === "fulfilled" ? result.value.channel.terminate() : undefined)));
      throw failed.reason;
    }
    const started = settled.map((result) => (result as PromiseFulfilledResult<StartedShard>).value);
    return {
      host: new ShardHost(started.map((s) => s.channel)),
      reports: started.map((s) => s.report),
      idempotency: started.map((s) => s.idempotency),
    };
  }

  get shardCount(): number {
    return this.channels.length;
  }

  /** Requests queued for or in flight to each shard (the shard inbox depth, seen from here). */
  pendingByShard(): number[] {
    return this.channels.map((channel) => channel.pending);
  }

  /**
   * Shards that cannot take commands now (closing, failed or exited), in index order. The readiness
   * gate asks before every request: when all accept, the answer is one shared empty list.
   */
  notAccepting(): readonly number[] {
    let refusing: number[] | undefined;
    for (let shardIndex = 0; shardIndex < this.channels.length; shardIndex += 1) {
      if (this.closing || !(this.channels[shardIndex] as ShardChannel).accepting) (refusing ??= []).push(shardIndex);
    }
    return refusing ?? ALL_ACCEPTING;
  }

  private channel(shardIndex: number): ShardChannel {
    const channel = this.channels[shardIndex];
    if (channel === undefined) throw new Error(`no shard ${shardIndex}`);
    return channel;
  }

  /** Queue a request; all requests to a shard in one event-loop turn travel as one message. */
  request(shardIndex: number, body: ShardRequest): Promise<ShardResponse> {
    if (this.closing) return Promise.reject(new Error("shards are shutting down"));
    return this.channel(shardIndex).request(body);
  }

  /** Controlled-clock mode: tell every shard the time (fires due deadlines). */
  publishTime(): void {
    for (const channel of this.channels) channel.publishTime();
  }

  /** Snapshot every shard; resolves with each shard's snapshot lsn. */
  snapshotAll(): Promise<number[]> {
    return Promise.all(this.channels.map((channel) => channel.snapshot()));
  }

  /**
   * Drain, snapshot and stop every shard; resolves with each shard's final lsn, or undefined for a
   * shard whose worker had already died (it cannot answer; its log is recovered at the next start).
   */
  async close(): Promise<Array<number | undefined>> {
    if (this.closing) throw new Error("already closing");
    this.closing = true;
    return Promise.all(this.channels.map((channel) => channel.close()));
  }
}
