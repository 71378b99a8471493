/**
 * A partition's shard thread in the simulation: the same loop a worker thread runs (ShardLoop around
 * ShardCore on the partition's JetStream journal), in-process, its messages to and from the node's
 * side carried by the scheduler in order (a thread's message port), as the node's process. The
 * journal's connection is the shard's own, as a worker's is.
 */
import { openPartitionShard } from "../../../engine/runtime/partition-shard.js";
import { ShardLoop, shardThreadReceiver } from "../../../engine/runtime/shard-loop.js";
import type { ShardThread } from "../../../engine/runtime/shard-thread.js";
import type { FromShard, ShardWorkerData, ToShard } from "../../../engine/runtime/worker-messages.js";
import type { Clock } from "../../../engine/clock.js";
import type { Timers } from "../../../engine/timers.js";
import { Lane, type Actor, type Scheduler } from "../scheduler.js";
import type { SimConnection } from "../nats/sim-connection.js";

/** What a shard thread needs of its node. */
export interface ShardThreadHost {
  readonly scheduler: Scheduler;
  readonly actor: Actor;
  readonly clock: Clock;
  readonly timers: Timers;
  connect(label: string): SimConnection;
}

type Listener = ((message: FromShard) => void) | ((error: Error) => void) | ((code: number) => void);
type EventName = "message" | "error" | "exit";

export class SimShardThread implements ShardThread {
  private readonly listeners: Array<{ event: EventName; listener: Listener; once: boolean }> = [];
  private readonly toThread: Lane;
  private readonly fromThread: Lane;
  /** The loop is made by the first message (`open`), as a worker thread makes it. */
  private readonly receive = shardThreadReceiver((data) => this.startLoop(data));
  private connection: SimConnection | undefined;
  private ended = false;

  constructor(private readonly host: ShardThreadHost) {
    this.toThread = new Lane(host.scheduler);
    this.fromThread = new Lane(host.scheduler);
  }

  private startLoop(data: ShardWorkerData): ShardLoop {
    const { host } = this;
    const spec = data.journal;
    if (spec.kind !== "jetstream") throw new Error("the simulation runs partitions on streams only");
    return new ShardLoop({
      open: async () => {
        const connection = host.connect(`partition ${data.shardIndex}`);
        this.connection = connection;
        return openPartitionShard(connection, spec, { shardIndex: data.shardIndex, clock: host.clock });
      },
      post: (message) => this.post(message),
      exit: (failed) => this.exit(failed ? 1 : 0),
      timers: host.timers,
      controlled: undefined,
      tickIntervalMs: data.tickIntervalMs,
      snapshotEveryCommands: data.snapshotEveryCommands,
      ...(data.batchLingerMs === undefined ? {} : { batchLingerMs: data.batchLingerMs }),
    });
  }

  private post(message: FromShard): void {
    if (this.ended) return;
    this.fromThread.send(0, this.host.actor, () => this.emit("message", message));
  }

  private exit(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.fromThread.send(0, this.host.actor, () => this.emit("exit", code));
  }

  private emit(event: EventName, value: FromShard | Error | number): void {
    for (const entry of [...this.listeners]) {
      if (entry.event !== event) continue;
      if (entry.once) this.listeners.splice(this.listeners.indexOf(entry), 1);
      (entry.listener as (value: FromShard | Error | number) => void)(value);
    }
  }

  postMessage(message: ToShard): void {
    if (this.ended) return;
    this.toThread.send(0, this.host.actor, () => {
      if (!this.ended) this.receive(message);
    });
  }

  on(event: EventName, listener: Listener): this {
    this.listeners.push({ event, listener, once: false });
    return this;
  }

  once(event: EventName, listener: Listener): this {
    this.listeners.push({ event, listener, once: true });
    return this;
  }

  off(event: EventName, listener: Listener): this {
    const index = this.listeners.findIndex((entry) => entry.event === event && entry.listener === listener);
    if (index >= 0) this.listeners.splice(index, 1);
    return this;
  }

  /** Stops the thread where it is: its connection goes with it (nothing it was doing completes). */
  terminate(): Promise<number> {
    this.connection?.drop();
    this.exit(1);
    return Promise.resolve(1);
  }
}
