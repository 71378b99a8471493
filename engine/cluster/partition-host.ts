/**
 * The partitions this node owns, each in a shard worker of its own (ShardChannel) on the
 * partition's JetStream stream, fenced by the owner's lease epoch. Opened when the node acquires a
 * partition's lease, closed when it gives the lease up or loses it.
 *
 * One shard thread is kept started and idle, its modules loaded, for the next partition this node
 * takes: a takeover after an owner's death opens on it instead of waiting for a thread to start
 * (decision I56); another is started once no open is in flight (its start costs CPU the opens need).
 */
import type { SnapshotMark } from "../journal/jetstream-snapshots.js";
import type { Clock } from "../clock.js";
import type { Timers } from "../timers.js";
import { ShardChannel } from "../runtime/shard-channel.js";
import { defaultShardWorkerSource, type ShardWorkerSource } from "../runtime/shard-host.js";
import { workerThreads, type ShardThread, type ShardThreadStarter } from "../runtime/shard-thread.js";
import type { BatchStats, EmittedEvent, IdempotencyEntries, ShardRecoveryReport, ShardRequest, ShardResponse } from "../shard-protocol/shard-protocol.js";
import { UnavailableError } from "../runtime/unavailable.js";
import type { ShardHeadsSpec, ShardWorkerData } from "../runtime/worker-messages.js";

export function partitionStream(partition: number): string {
  return `partition-${partition}`;
}

export interface PartitionHostOptions {
  natsUrls: readonly string[];
  nodeId: string;
  clock: Clock;
  /** What the shard channels' per-turn batching runs by. */
  timers: Timers;
  /** true: workers take their time from `clock` via messages (tests). */
  controlledClock: boolean;
  tickIntervalMs?: number;
  workerSource?: ShardWorkerSource;
  /** How a partition's shard thread is started (default: a worker thread running `workerSource`). */
  startThread?: ShardThreadStarter;
  /** Sign each partition log's heads (log id `partition-<p>`, valid across owners); undefined: none. */
  heads?: ShardHeadsSpec;
  /** A partition stopped on its own: fenced by a newer owner, or its journal failed. */
  onStopped: (partition: number, reason: string) => void;
  onBatch?: (partition: number, stats: BatchStats) => void;
  /** Each partition's shard snapshots itself once this many commands are in no snapshot (CLUSTER_SNAPSHOT_EVERY_COMMANDS, decision I57). */
  snapshotEveryCommands?: number;
  /** After a batch of at least two commands, a partition's next batch waits up to this long for more (CLUSTER_BATCH_LINGER_MS, decision I69); 0 or unset: never. */
  batchLingerMs?: number;
  /** Committed events of watched markets (live streams, docs/events.md). */
  onEvents?: (partition: number, events: readonly EmittedEvent[]) => void;
  /** A partition's shard took a snapshot, after the replies of every batch it holds: its mark (decision I58); the shard stores it once the promise settles (decision I60). */
  onSnapshotting?: (partition: number, mark: SnapshotMark) => Promise<void>;
}

interface OwnedPartition {
  readonly epoch: number;
  readonly channel: ShardChannel;
}

/** The idle thread, and what drops it should it end before a partition is opened on it. */
interface SpareThread {
  readonly thread: ShardThread;
  readonly ended: () => void;
}

function stopping(partition: number): UnavailableError {
  return new UnavailableError(`partition ${partition} cannot be opened: this node is stopping`);
}

export class PartitionHost {
  private readonly owned = new Map<number, OwnedPartition>();
  private readonly startThread: ShardThreadStarter;
  private spare: SpareThread | undefined;
  /** Opens in flight: the next idle thread starts once there are none. */
  private opening = 0;
  private closed = false;

  constructor(private readonly options: PartitionHostOptions) {
    this.startThread = options.startThread ?? workerThreads(options.workerSource ?? defaultShardWorkerSource());
    this.keepSpare();
  }

  /** Starts the idle thread if there is none (a thread that cannot start leaves the next open to start its own). */
  private keepSpare(): void {
    if (this.spare !== undefined || this.closed || this.opening > 0) return;
    let thread: ShardThread;
    try {
      thread = this.startThread();
    } catch {
      return;
    }
    const ended = (): void => {
      if (this.spare?.thread === thread) this.spare = undefined;
    };
    thread.once("exit", ended);
    thread.once("error", ended);
    this.spare = { thread, ended };
  }

  /** The idle thread, else one started now. */
  private takeThread(): ShardThread {
    const spare = this.spare;
    if (spare === undefined) return this.startThread();
    this.spare = undefined;
    spare.thread.off("exit", spare.ended);
    spare.thread.off("error", spare.ended);
    return spare.thread;
  }

  /** Opens `partition` at lease `epoch`: recovers it from its stream; resolves once it serves. */
  async open(partition: number, epoch: number): Promise<{ report: ShardRecoveryReport; idempotency: IdempotencyEntries }> {
    if (this.owned.has(partition)) throw new Error(`partition ${partition} is already open`);
    if (this.closed) throw stopping(partition);
    const { options } = this;
    const data: ShardWorkerData = {
      journal: {
        kind: "jetstream",
        natsUrls: [...options.natsUrls],
        stream: partitionStream(partition),
        epoch,
        connectionName: `market-service ${options.nodeId} partition ${partition}`,
      },
      shardIndex: partition,
      clockMode: options.controlledClock ? "controlled" : "system",
      startMs: options.clock.nowMs(),
      tickIntervalMs: options.tickIntervalMs ?? 100,
      ...(options.snapshotEveryCommands === undefined ? {} : { snapshotEveryCommands: options.snapshotEveryCommands }),
      ...(options.batchLingerMs === undefined || options.batchLingerMs === 0 ? {} : { batchLingerMs: options.batchLingerMs }),
      ...(options.heads === undefined ? {} : { heads: options.heads }),
    };
    const thread = this.takeThread();
    this.opening += 1;
    const started = await ShardChannel.start(thread, data, options.clock, {
      onFatal: (message) => this.stopped(partition, `its journal failed: ${message}`),
      onFenced: (message) => this.stopped(partition, `another owner took it: ${message}`),
      ...(options.onBatch === undefined ? {} : { onBatch: (stats: BatchStats) => options.onBatch?.(partition, stats) }),
      ...(options.onEvents === undefined ? {} : { onEvents: (events: readonly EmittedEvent[]) => options.onEvents?.(partition, events) }),
      ...(options.onSnapshotting === undefined ? {} : { onSnapshotting: (mark: SnapshotMark) => options.onSnapshotting?.(partition, mark) ?? Promise.resolve() }),
    }, options.timers).finally(() => {
      this.opening -= 1;
      this.keepSpare();
    });
    if (this.closed) {
      // The host closed while this partition opened: nothing will close it later.
      await started.channel.close();
      throw stopping(partition);
    }
    this.owned.set(partition, { epoch, channel: started.channel });
    return { report: started.report, idempotency: started.idempotency };
  }

  private stopped(partition: number, reason: string): void {
    this.owned.delete(partition);
    this.options.onStopped(partition, reason);
  }

  /** The epoch `partition` is open at, if it is open and taking requests. */
  epochOf(partition: number): number | undefined {
    const owned = this.owned.get(partition);
    return owned !== undefined && owned.channel.accepting ? owned.epoch : undefined;
  }

  request(partition: number, body: ShardRequest): Promise<ShardResponse> {
    const owned = this.owned.get(partition);
    if (owned === undefined) return Promise.reject(new UnavailableError(`partition ${partition} is not open on this node; retry shortly`));
    return owned.channel.request(body);
  }

  /** Drains, snapshots and closes `partition` (the node gives it up). */
  async close(partition: number): Promise<void> {
    const owned = this.owned.get(partition);
    if (owned === undefined) return;
    this.owned.delete(partition);
    await owned.channel.close();
  }

  openPartitions(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  pendingByPartition(): Array<{ partition: number; pending: number }> {
    return this.openPartitions().map((partition) => ({ partition, pending: this.owned.get(partition)?.channel.pending ?? 0 }));
  }

  publishTime(): void {
    for (const { channel } of this.owned.values()) channel.publishTime();
  }

  async snapshotAll(): Promise<void> {
    await Promise.all([...this.owned.values()].map(({ channel }) => channel.snapshot()));
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    const spare = this.spare?.thread;
    this.spare = undefined;
    await Promise.all([...this.openPartitions().map((partition) => this.close(partition)), spare?.terminate()]);
  }
}
