/**
 * The gateway thread's side of the shards: starts one worker per shard, batches requests per shard
 * per event-loop turn into one message, correlates replies, forwards a controlled clock in tests,
 * and shuts workers down in order (toolchain.md: never terminate a worker mid-write).
 */
import * as path from "node:path";
import type { Worker } from "node:worker_threads";
import type { Clock } from "../clock.js";
import type { BatchStats, IdempotencyEntries, ShardRecoveryReport, ShardRequest, ShardResponse } from "./shard-protocol.js";
import { envelope, type FromShard, type ShardWorkerData, type ToShard, type Envelope } from "./worker-messages.js";
import { packRequests, unpackResponses } from "./wire.js";
import { SHARD_WORKER_ASSET } from "../../gateway/sea/assets.js";
import { startWorker, workerSource, type WorkerSource } from "../../gateway/sea/embedded-worker.js";

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
  /** Called when a shard can no longer guarantee durability; the service must stop. */
  onFatal: (shardIndex: number, message: string) => void;
  /** Called after every batch a shard processed (metrics). */
  onBatch?: (shardIndex: number, stats: BatchStats) => void;
}

export interface StartedShards {
  host: ShardHost;
  reports: ShardRecoveryReport[];
  idempotency: IdempotencyEntries[];
}

interface ShardChannel {
  worker: Worker;
  outbox: Array<Envelope<ShardRequest>>;
  flushScheduled: boolean;
  waiting: Map<number, (response: ShardResponse) => void>;
  snapshotWaiters: Map<number, (lsn: number) => void>;
  closed?: (lsn: number) => void;
  exited: Promise<number>;
}

export function shardDirectory(dataDir: string, shardIndex: number): string {
  return path.join(dataDir, "shards", String(shardIndex).padStart(2, "0"));
}

export class ShardHost {
  private nextId = 1;
  private closing = false;
  /** Shards that reported a fatal error or whose worker died: they take no more commands. */
  private readonly failed = new Set<number>();

  private constructor(
    private readonly options: ShardHostOptions,
    private readonly channels: ShardChannel[],
  ) {}

  static async start(options: ShardHostOptions): Promise<StartedShards> {
    const source = options.workerSource ?? defaultShardWorkerSource();
    const channels: ShardChannel[] = [];
    const ready: Array<Promise<{ report: ShardRecoveryReport; idempotency: IdempotencyEntries }>> = [];
    for (let shardIndex = 0; shardIndex < options.shardCount; shardIndex += 1) {
      const data: ShardWorkerData = {
        dir: shardDirectory(options.dataDir, shardIndex),
        shardIndex,
        clockMode: options.controlledClock ? "controlled" : "system",
        startMs: options.clock.nowMs(),
        reportIdempotencyAfterLsn: options.reportIdempotencyAfterLsn[shardIndex] ?? 0,
        tickIntervalMs: options.tickIntervalMs ?? 100,
        ...(options.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: options.segmentSizeBytes }),
      };
      const worker = startWorker(source, { workerData: data });
      const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
      const channel: ShardChannel = { worker, outbox: [], flushScheduled: false, waiting: new Map(), snapshotWaiters: new Map(), exited };
      channels.push(channel);
      ready.push(
        new Promise((resolve, reject) => {
          const onEarlyExit = (code: number) => reject(new Error(`shard ${shardIndex} exited during start-up (code ${code})`));
          worker.once("exit", onEarlyExit);
          worker.once("error", reject);
          worker.on("message", function first(message: FromShard) {
            if (message.t === "ready") {
              worker.off("message", first);
              worker.off("exit", onEarlyExit);
              resolve({ report: message.report, idempotency: message.idempotency });
            } else if (message.t === "fatal") {
              worker.off("message", first);
              reject(new Error(`shard ${shardIndex} could not start: ${message.message}`));
            }
          });
        }),
      );
    }
    let started: Array<{ report: ShardRecoveryReport; idempotency: IdempotencyEntries }>;
    try {
      started = await Promise.all(ready);
    } catch (error) {
      await Promise.all(channels.map((c) => c.worker.terminate()));
      throw error;
    }
    const host = new ShardHost(options, channels);
    channels.forEach((channel, shardIndex) => host.attach(channel, shardIndex));
    return { host, reports: started.map((s) => s.report), idempotency: started.map((s) => s.idempotency) };
  }

  get shardCount(): number {
    return this.channels.length;
  }

  /** Requests queued for or in flight to each shard (the shard inbox depth, seen from here). */
  pendingByShard(): number[] {
    return this.channels.map((channel) => channel.outbox.length + channel.waiting.size);
  }

  /** Shards that cannot take commands now (closing, failed or exited), in index order. */
  notAccepting(): number[] {
    if (this.closing) return this.channels.map((_, shardIndex) => shardIndex);
    return [...this.failed].sort((a, b) => a - b);
  }

  private fail(shardIndex: number, message: string): void {
    this.failed.add(shardIndex);
    this.options.onFatal(shardIndex, message);
  }

  private attach(channel: ShardChannel, shardIndex: number): void {
    channel.worker.on("message", (message: FromShard) => {
      switch (message.t) {
        case "batch":
          for (const item of unpackResponses(message.items)) {
            const resolve = channel.waiting.get(item.id);
            channel.waiting.delete(item.id);
            resolve?.(item.body);
          }
          this.options.onBatch?.(shardIndex, message.stats);
          return;
        case "stats":
          this.options.onBatch?.(shardIndex, message.stats);
          return;
        case "snapshot": {
          const resolve = channel.snapshotWaiters.get(message.id);
          channel.snapshotWaiters.delete(message.id);
          resolve?.(message.lsn);
          return;
        }
        case "fatal":
          this.fail(shardIndex, message.message);
          return;
        case "closed":
          channel.closed?.(message.lsn);
          return;
        case "ready":
          return;
      }
    });
    channel.worker.on("error", (error) => this.fail(shardIndex, error.message));
    channel.worker.on("exit", (code) => {
      if (!this.closing) this.fail(shardIndex, `shard worker exited unexpectedly (code ${code})`);
    });
  }

  private channel(shardIndex: number): ShardChannel {
    const channel = this.channels[shardIndex];
    if (channel === undefined) throw new Error(`no shard ${shardIndex}`);
    return channel;
  }

  /** Queue a request; all requests to a shard in one event-loop turn travel as one message. */
  request(shardIndex: number, body: ShardRequest): Promise<ShardResponse> {
    if (this.closing) return Promise.reject(new Error("shards are shutting down"));
    const channel = this.channel(shardIndex);
    const id = this.nextId++;
    const reply = new Promise<ShardResponse>((resolve) => channel.waiting.set(id, resolve));
    channel.outbox.push(envelope(id, body));
    if (!channel.flushScheduled) {
      channel.flushScheduled = true;
      setImmediate(() => this.flush(channel));
    }
    return reply;
  }

  private flush(channel: ShardChannel): void {
    channel.flushScheduled = false;
    if (channel.outbox.length === 0) return;
    const items = packRequests(channel.outbox);
    channel.outbox = [];
    const message: ToShard = { t: "batch", nowMs: this.options.clock.nowMs(), items };
    channel.worker.postMessage(message, [items.buffer as ArrayBuffer]);
  }

  /** Controlled-clock mode: tell every shard the time (fires due deadlines). */
  publishTime(): void {
    const message: ToShard = { t: "time", nowMs: this.options.clock.nowMs() };
    for (const channel of this.channels) channel.worker.postMessage(message);
  }

  /** Snapshot every shard; resolves with each shard's snapshot lsn. */
  snapshotAll(): Promise<number[]> {
    return Promise.all(
      this.channels.map((channel) => {
        this.flush(channel);
        const id = this.nextId++;
        const done = new Promise<number>((resolve) => channel.snapshotWaiters.set(id, resolve));
        channel.worker.postMessage({ t: "snapshot", id } satisfies ToShard);
        return done;
      }),
    );
  }

  /**
   * Drain, snapshot and stop every shard; resolves with each shard's final lsn, or undefined for a
   * shard whose worker had already died (it cannot answer; its log is recovered at the next start).
   */
  async close(): Promise<Array<number | undefined>> {
    if (this.closing) throw new Error("already closing");
    for (const channel of this.channels) this.flush(channel);
    this.closing = true;
    const lsns = await Promise.all(
      this.channels.map((channel, shardIndex) => {
        if (this.failed.has(shardIndex)) return channel.exited.then(() => undefined);
        const closed = new Promise<number | undefined>((resolve) => {
          channel.closed = resolve;
          void channel.exited.then(() => resolve(undefined));
        });
        channel.worker.postMessage({ t: "close" } satisfies ToShard);
        return closed;
      }),
    );
    await Promise.all(this.channels.map((channel) => channel.exited));
    return lsns;
  }
}
