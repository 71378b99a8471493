/**
 * PartitionHost keeps one shard thread started and idle for the next partition the node takes
 * (decision I56): a takeover opens on it instead of waiting for a thread's start, and another is
 * started once that open settles. The threads here are stand-ins that answer `open` with `ready`;
 * the worker thread itself runs in every cluster test.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../engine/clock.js";
import { PartitionHost } from "../../engine/cluster/partition-host.js";
import type { ShardThread } from "../../engine/runtime/shard-thread.js";
import type { FromShard, ToShard } from "../../engine/runtime/worker-messages.js";
import type { ShardRecoveryReport } from "../../engine/shard-protocol/shard-protocol.js";
import { systemTimers } from "../../engine/timers.js";

/** A thread that opens whatever it is sent (or refuses to) and closes when told, as a shard worker answers. */
class StandInThread extends EventEmitter {
  readonly received: ToShard[] = [];
  terminated = false;

  constructor(private readonly refuse: boolean) {
    super();
  }

  postMessage(message: ToShard): void {
    this.received.push(message);
    if (message.t === "close") {
      setImmediate(() => {
        this.emit("message", { t: "closed", lsn: 0 } satisfies FromShard);
        this.emit("exit", 0);
      });
      return;
    }
    if (message.t !== "open") return;
    const shardIndex = message.data.shardIndex;
    const answer: FromShard = this.refuse ? { t: "fatal", message: "the stream cannot be read" } : { t: "ready", report: report(shardIndex), idempotency: { actorIds: [], commandIds: [], fingerprints: [], positions: [] } };
    setImmediate(() => this.emit("message", answer));
  }

  terminate(): Promise<number> {
    this.terminated = true;
    setImmediate(() => this.emit("exit", 1));
    return Promise.resolve(1);
  }
}

function report(shardIndex: number): ShardRecoveryReport {
  return { shardIndex, snapshotLsn: 0, snapshotIgnored: null, marketsFromSnapshot: 0, framesReplayed: 0, framesScannedForIdempotency: 0, framesTrustedByCheckpoint: 0, lastLsn: 0, markets: 0, truncatedBytes: 0, headsChecked: 0, elapsedMs: 0 };
}

function hostWith(threads: StandInThread[], refuse: (n: number) => boolean = () => false): PartitionHost {
  return new PartitionHost({
    natsUrls: ["nats://127.0.0.1:1"],
    nodeId: "a",
    clock: systemClock,
    timers: systemTimers,
    controlledClock: false,
    startThread: () => {
      const thread = new StandInThread(refuse(threads.length));
      threads.push(thread);
      return thread as unknown as ShardThread;
    },
    onStopped: () => undefined,
  });
}

const opened = (thread: StandInThread | undefined): number[] => (thread?.received ?? []).flatMap((message) => (message.t === "open" ? [message.data.shardIndex] : []));

describe("PartitionHost's idle thread", () => {
  it("is started with the host; a partition opens on it, and the next idle thread starts once that open settled", async () => {
    const threads: StandInThread[] = [];
    const host = hostWith(threads);
    expect(threads.length).toBe(1);
    expect(opened(threads[0])).toEqual([]);
    const opening = host.open(4, 2);
    // The open went to the thread already started: none was started for it.
    expect(threads.length).toBe(1);
    expect(opened(threads[0])).toEqual([4]);
    await opening;
    expect(host.epochOf(4)).toBe(2);
    expect(threads.length).toBe(2);
    expect(opened(threads[1])).toEqual([]);
    await host.open(5, 3);
    expect(opened(threads[1])).toEqual([5]);
    expect(threads.length).toBe(3);
  });

  it("opens two partitions taken at once on the idle thread and a new one", async () => {
    const threads: StandInThread[] = [];
    const host = hostWith(threads);
    await Promise.all([host.open(0, 1), host.open(1, 1)]);
    expect(opened(threads[0])).toEqual([0]);
    expect(opened(threads[1])).toEqual([1]);
    expect(threads.filter((thread) => opened(thread).length === 0).length).toBe(1);
  });

  it("is replaced when an open on it fails, and ended when the host closes", async () => {
    const threads: StandInThread[] = [];
    const host = hostWith(threads, (n) => n === 0);
    await expect(host.open(2, 1)).rejects.toThrow(/could not start: the stream cannot be read/);
    expect(threads[0]?.terminated).toBe(true);
    expect(threads.length).toBe(2);
    await host.open(2, 1);
    expect(opened(threads[1])).toEqual([2]);
    const idle = threads[2];
    expect(opened(idle)).toEqual([]);
    await host.closeAll();
    expect(idle?.terminated).toBe(true);
  });

  it("is started only once no open is in flight, and never after the host closed", async () => {
    const threads: StandInThread[] = [];
    const host = hostWith(threads);
    const first = host.open(0, 1);
    const second = host.open(1, 1);
    await first;
    // The second open still runs: no idle thread is started beside it.
    expect(threads.length).toBe(2);
    await second;
    expect(threads.length).toBe(3);
    const third = host.open(2, 1);
    const closing = host.closeAll();
    // Opened while the host closed: closed again, not left running.
    await expect(third).rejects.toThrow(/this node is stopping/);
    await closing;
    expect(threads[2]?.received.map((message) => message.t)).toEqual(["open", "close"]);
    expect(host.openPartitions()).toEqual([]);
    expect(threads.length).toBe(3);
    await expect(host.open(3, 1)).rejects.toThrow(/this node is stopping/);
    expect(threads.length).toBe(3);
  });

  it("is not used once it has ended on its own: the next open starts a thread", async () => {
    const threads: StandInThread[] = [];
    const host = hostWith(threads);
    threads[0]?.emit("exit", 1);
    await host.open(3, 1);
    expect(opened(threads[0])).toEqual([]);
    expect(opened(threads[1])).toEqual([3]);
  });
});
