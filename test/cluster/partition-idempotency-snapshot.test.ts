/**
 * A partition's idempotency entries snapshotted beside its own snapshots (decision I58): a new owner
 * reads the stream for them only after the newest snapshot of them whose mark matches the stream,
 * and the index it rebuilds holds every command, as one read from the stream's first message
 * would. Real nats-server cluster (3 nodes, R3 streams, scripts/nats-cluster.ts); the partition's
 * shard opened as a node's shard thread opens it (openPartitionShard), the entries snapshotted and
 * restored as a node does (PartitionIndexes). No nats-server binary is a failure, not a skip.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { connectMessaging, type NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { openPartitionShard } from "../../engine/runtime/partition-shard.js";
import type { OpenedShard } from "../../engine/runtime/shard-core.js";
import { PartitionIndexes } from "../../engine/cluster/partition-indexes.js";
import { partitionStream } from "../../engine/cluster/partition-host.js";
import { JetStreamSnapshots, type SnapshotMark } from "../../engine/journal/jetstream-snapshots.js";
import { DEFAULT_SNAPSHOT_BUCKET } from "../../engine/journal/jetstream-journal.js";
import { idempotencySnapshotName } from "../../engine/journal/partition-journal.js";
import type { CommandResponse, ShardRequest } from "../../engine/shard-protocol/shard-protocol.js";
import type { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { T0, commands, directClaim, request } from "../runtime/support.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

let cluster: NatsCluster;
let node: NatsMessaging;

beforeAll(async () => {
  cluster = await NatsCluster.start();
  node = await connectMessaging(cluster.urls, "test node");
}, 60_000);

afterAll(async () => {
  await node?.close();
  await cluster?.stop();
});

/** The partition's shard at lease `epoch`, on a connection of its own (closed with it). */
async function openShard(partition: number, epoch: number): Promise<{ opened: OpenedShard; close(): Promise<void> }> {
  const stream = partitionStream(partition);
  return openPartitionShard(await connectMessaging(cluster.urls, `${stream} epoch ${epoch}`), { stream, epoch }, { shardIndex: partition, clock: new ManualClock(T0) });
}

/** What a node keeps of an executed command: its key, fingerprint and position. */
interface Executed {
  readonly actorId: string;
  readonly commandId: string;
  readonly fingerprint: string;
  readonly position: number;
}

/** Runs one batch of commands and enters each in `index` as the node's submit does once it is durable. */
async function execute(opened: OpenedShard, index: IdempotencyIndex, requests: ShardRequest[], executed: Executed[]): Promise<void> {
  const owner = opened.report.shardIndex;
  const responses = await opened.core.processBatch(requests);
  requests.forEach((sent, i) => {
    if (sent.kind !== "command") throw new Error("commands only");
    const position = (responses[i] as CommandResponse).position;
    const entry = { actorId: sent.command.identity.actorId, commandId: sent.command.commandId, fingerprint: sent.fingerprint, position };
    index.restore(entry.actorId, entry.commandId, entry.fingerprint, { owner, position });
    executed.push(entry);
  });
}

const claims = (marketId: string, from: number, count: number): ShardRequest[] =>
  Array.from({ length: count }, (_, i) => request(commands.claim(`p-${from + i}`, marketId, `${marketId}-claim-${from + i}`)));

function expectEvery(index: IdempotencyIndex, partition: number, executed: readonly Executed[]): void {
  expect(index.size).toBe(executed.length);
  for (const entry of executed) {
    const found = index.claim(entry.actorId, entry.commandId, entry.fingerprint);
    expect(found.kind, entry.commandId).toBe("replay");
    if (found.kind === "replay") expect(found.location).toEqual({ owner: partition, position: entry.position });
  }
}

const failed = (partition: number, error: unknown): never => {
  throw new Error(`snapshot of partition ${partition}'s entries failed: ${String(error)}`);
};

/** The sequence of the newest snapshot stored under `name`, or 0. */
async function newestStored(name: string): Promise<number> {
  const snapshots = await JetStreamSnapshots.open(node.jetStream(2_000).objects, DEFAULT_SNAPSHOT_BUCKET, 3);
  return (await snapshots.newest(name))?.mark.sequence ?? 0;
}

/**
 * A snapshot as a node's shard takes one: the entries' snapshot under its mark stored first, then
 * the shard's (decision I60), which the journal stores only once the entries' is. Returns the mark.
 */
async function snapshotBeside(opened: OpenedShard, writer: PartitionIndexes, partition: number): Promise<SnapshotMark> {
  const stream = partitionStream(partition);
  let marked: SnapshotMark | undefined;
  await opened.core.snapshot(async (mark) => {
    marked = mark;
    await writer.snapshotting(partition, mark);
    expect(await newestStored(idempotencySnapshotName(stream))).toBe(mark.sequence);
    expect(await newestStored(stream)).toBeLessThan(mark.sequence);
  });
  expect(await newestStored(stream)).toBe((marked as SnapshotMark).sequence);
  return marked as SnapshotMark;
}

/**
 * The partition's first owner (epoch 1) creates and publishes a market, takes `claimCount` claims
 * on it, snapshots the shard, and snapshots the entries under that mark as its node does.
 */

async function firstOwner(partition: number, claimCount: number) {
  const executed: Executed[] = [];
  const first = await openShard(partition, 1);
  const writer = new PartitionIndexes(node, failed);
  writer.open(partition, first.opened.idempotency);
  const index = writer.get(partition) as IdempotencyIndex;
  await execute(first.opened, index, [request(commands.create("alice", "m", directClaim({ capacity: 100, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("alice", "m"))], executed);
  await execute(first.opened, index, claims("m", 0, claimCount), executed);
  const marked = await snapshotBeside(first.opened, writer, partition);
  return { first, writer, index, executed, marked };
}

/**
 * The partition's next owner (epoch 2): `check` reads its shard's open, then its node's index of the
 * partition, `fromSnapshot` entries of it from the snapshot, must hold every executed command.
 */
async function nextOwner(partition: number, executed: readonly Executed[], fromSnapshot: number, check: (opened: OpenedShard) => void): Promise<void> {
  const second = await openShard(partition, 2);
  try {
    check(second.opened);
    const reader = new PartitionIndexes(node, failed);
    expect(reader.open(partition, second.opened.idempotency)).toBe(fromSnapshot);
    expectEvery(reader.get(partition) as IdempotencyIndex, partition, executed);
  } finally {
    await second.opened.core.close();
    await second.close();
  }
}

/** Bytes that are no snapshot at all, stored as each of `journals`' snapshot at `sequence` (in place of one there). */
async function garbageAt(journals: readonly string[], sequence: number): Promise<void> {
  const objects = await node.jetStream(2_000).objects.create(DEFAULT_SNAPSHOT_BUCKET, { replicas: 3, description: "test" });
  for (const journal of journals) await objects.putBlob(`${journal}/${String(sequence).padStart(16, "0")}`, new TextEncoder().encode("not a snapshot"));
}

describe("a partition's idempotency entries snapshotted beside it", () => {
  it("are read from the stream only after their newest snapshot, and the rebuilt index holds every command", async () => {
    const partition = 7;
    const { first, index, executed, marked } = await firstOwner(partition, 10);
    await execute(first.opened, index, claims("m", 10, 5), executed);
    // The shard snapshots again, and the node dies before it snapshots its entries under that mark.
    const later = await first.opened.core.snapshot();
    await execute(first.opened, index, claims("m", 15, 3), executed);
    await first.opened.core.close();
    await first.close();

    await nextOwner(partition, executed, 12, (opened) => {
      expect(opened.report.snapshotLsn).toBe(later.lsn);
      expect(opened.idempotency.snapshot?.sequence).toBe(marked.sequence);
      // Read for their entries only: those between the two snapshots; the three after the later one are replayed.
      expect(opened.report.framesScannedForIdempotency).toBe(later.lsn - marked.sequence);
      expect(opened.report.framesReplayed).toBe(3);
      expect(opened.idempotency.commandIds).toEqual(executed.slice(12).map((entry) => entry.commandId));
    });
  }, 60_000);

  it("are read from the stream's first message when the newest snapshot of them does not match the stream", async () => {
    const partition = 8;
    const stream = partitionStream(partition);
    const { first, executed, marked } = await firstOwner(partition, 6);
    await first.opened.core.close();
    await first.close();
    // A snapshot of a stream of the same name made again: its mark names another batch than this stream holds there.
    const store = await JetStreamSnapshots.open(node.jetStream(2_000).objects, DEFAULT_SNAPSHOT_BUCKET, 3);
    const stored = await store.newest(idempotencySnapshotName(stream));
    await store.write(idempotencySnapshotName(stream), { ...marked, batchId: "another-stream's-batch" }, (stored as { payload: Uint8Array }).payload, 2);

    await nextOwner(partition, executed, 0, (opened) => {
      expect(opened.report.idempotencySnapshotIgnored).toMatch(/another batch/);
      expect(opened.idempotency.snapshot).toBeUndefined();
      expect(opened.idempotency.commandIds).toEqual(executed.map((entry) => entry.commandId));
    });
  }, 60_000);

  it("are read from the stream's first message when the newest snapshot objects cannot be read, the partition's own as well", async () => {
    const partition = 9;
    const stream = partitionStream(partition);
    const { first, executed, marked } = await firstOwner(partition, 6);
    await first.opened.core.close();
    await first.close();
    // Both snapshots made unreadable in place.
    await garbageAt([stream, idempotencySnapshotName(stream)], marked.sequence);

    await nextOwner(partition, executed, 0, (opened) => {
      expect(opened.report.snapshotIgnored).toMatch(/has no JSS1 envelope/);
      expect(opened.report.snapshotLsn).toBe(0);
      expect(opened.report.idempotencySnapshotIgnored).toMatch(/has no JSS1 envelope/);
      expect(opened.idempotency.commandIds).toEqual(executed.map((entry) => entry.commandId));
    });

    // One named beyond the stream's end still refuses the open, readable or not: entries were lost.
    await garbageAt([stream], marked.sequence + 100);
    await expect(openShard(partition, 3)).rejects.toThrow(/newer than stream/);
  }, 60_000);

  it("start from the older snapshots when the newest objects cannot be read, saying why, the partition's own as well", async () => {
    const partition = 11;
    const stream = partitionStream(partition);
    const { first, writer, index, executed, marked } = await firstOwner(partition, 6);
    // A second pair of snapshots under a later mark, as the node's next checkpoint takes them.
    await execute(first.opened, index, claims("m", 6, 4), executed);
    const later = await snapshotBeside(first.opened, writer, partition);
    await execute(first.opened, index, claims("m", 10, 2), executed);
    await first.opened.core.close();
    await first.close();
    // The newer of each pair made unreadable in place.
    await garbageAt([stream, idempotencySnapshotName(stream)], later.sequence);

    await nextOwner(partition, executed, 8, (opened) => {
      const passedOver = new RegExp(`has no JSS1 envelope; the snapshot at sequence ${marked.sequence} was tried instead`);
      expect(opened.report.snapshotIgnored).toMatch(passedOver);
      expect(opened.report.snapshotLsn).toBe(marked.sequence);
      expect(opened.report.idempotencySnapshotIgnored).toMatch(passedOver);
      expect(opened.idempotency.snapshot?.sequence).toBe(marked.sequence);
    });
  }, 60_000);

  it("wait, when the shard snapshots before its node made the index, for the index and its write; a partition given up waits for nothing", async () => {
    const partition = 13;
    const stream = partitionStream(partition);
    const executed: Executed[] = [];
    const first = await openShard(partition, 1);
    const scratch = new PartitionIndexes(node, failed);
    scratch.open(partition, first.opened.idempotency);
    await execute(first.opened, scratch.get(partition) as IdempotencyIndex, [request(commands.create("alice", "m", directClaim({ capacity: 100, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("alice", "m")), ...claims("m", 0, 4)], executed);
    await first.opened.core.close();
    await first.close();

    // The next owner's node is opening the partition: its shard snapshots before the index is made.
    const second = await openShard(partition, 2);
    try {
      const writer = new PartitionIndexes(node, failed);
      writer.expect(partition);
      let marked: SnapshotMark | undefined;
      let stored = false;
      const snapshot = second.opened.core
        .snapshot((mark) => {
          marked = mark;
          return writer.snapshotting(partition, mark);
        })
        .then(() => (stored = true));
      // Round trips to the servers meanwhile: the shard's snapshot is still not stored.
      expect(await newestStored(idempotencySnapshotName(stream))).toBe(0);
      expect(await newestStored(stream)).toBe(0);
      expect(stored).toBe(false);
      writer.open(partition, second.opened.idempotency);
      await snapshot;
      const mark = (marked as SnapshotMark).sequence;
      expect(await newestStored(idempotencySnapshotName(stream))).toBe(mark);
      expect(await newestStored(stream)).toBe(mark);

      // Given up: a mark waits for no index, whether it came before the drop or after it.
      const other = new PartitionIndexes(node, failed);
      other.expect(partition);
      const before = other.snapshotting(partition, marked as SnapshotMark);
      other.drop(partition);
      await before;
      await other.snapshotting(partition, marked as SnapshotMark);
      await writer.settled();
    } finally {
      await second.opened.core.close();
      await second.close();
    }
  }, 60_000);
});
