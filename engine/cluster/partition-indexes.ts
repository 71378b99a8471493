/**
 * The idempotency entries of the partitions a cluster node owns: one index per partition (decision
 * I58), made when the node takes the partition and dropped when it lets it go, and snapshotted beside
 * the partition's own snapshots so that the next owner reads the stream for them only after the
 * newest one, not from its first message.
 *
 * - A snapshot of a partition's entries is written under the mark of a snapshot its shard took
 *   (ShardLoop posts it after the replies of every batch that snapshot holds, so the index holds
 *   every entry up to the mark by then). The next owner's shard checks that mark against the stream
 *   as it checks its own snapshot's (openPartitionShard) and reports the entries after it.
 * - The shard stores its own snapshot only once this one is written or has failed (decision I60):
 *   so the newest shard snapshot a next owner finds has its entries' snapshot beside it, and the next owner
 *   does not read the interval before it again for them (a kill between the two writes did).
 * - An index holds at least the entries up to its mark, and may hold later ones: every entry is of
 *   a command logged in the stream, and the entries read after the mark repeat them harmlessly.
 * - One write per partition at a time; a mark that comes meanwhile is written next, with the index
 *   as it was when that mark came. A write that fails is only logged: the stream holds every entry,
 *   and the next owner reads more of it.
 */
import { IdempotencyIndex } from "../idempotency/index.js";
import { decodeIndexSnapshot, indexSnapshotParts } from "../idempotency/index-snapshot.js";
import { JetStreamSnapshots, type SnapshotMark } from "../journal/jetstream-snapshots.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SNAPSHOT_BUCKET } from "../journal/jetstream-journal.js";
import { idempotencySnapshotName } from "../journal/partition-journal.js";
import type { Messaging } from "../messaging/messaging.js";
import type { IdempotencyEntries } from "../shard-protocol/shard-protocol.js";
import { partitionStream } from "./partition-host.js";

/** Snapshots kept per partition: the newest, and one before it (as a shard keeps its own). */
const SNAPSHOTS_KEPT = 2;
/** The snapshot bucket's replicas, as the partitions' journals create it. */
const SNAPSHOT_REPLICAS = 3;

interface Job {
  readonly mark: SnapshotMark;
  readonly payload: Uint8Array;
  /** The shards' snapshots waiting for this write: its own mark's, and those of jobs it replaced. */
  readonly waiters: Array<() => void>;
}

interface Writing {
  done: Promise<void>;
  next: Job | undefined;
}

export class PartitionIndexes {
  private readonly indexes = new Map<number, IdempotencyIndex>();
  private readonly writing = new Map<number, Writing>();
  /** Partitions this node is opening (`expect`) and has made no index of yet. */
  private readonly expected = new Set<number>();
  /**
   * A mark that came while the partition was expected (a shard that snapshots on its first tick,
   * while the node still awaits the key bindings): written once its index is made, since the index
   * then holds every entry up to it (nothing is served before); the shards' snapshots wait for it.
   */
  private readonly early = new Map<number, { mark: SnapshotMark; waiters: Array<() => void> }>();
  private snapshots: Promise<JetStreamSnapshots> | undefined;

  constructor(
    /** The node's connection (the caller's). */
    private readonly messaging: Messaging,
    /** A snapshot could not be written (nothing is lost: the stream holds every entry). */
    private readonly writeFailed: (partition: number, error: unknown) => void,
  ) {}

  /** This node begins to open `partition`: a mark that comes before its index waits for it (`early`). */
  expect(partition: number): void {
    this.expected.add(partition);
  }

  /**
   * The new owner's index of `partition`: the snapshot its shard found matching the stream, then
   * the entries its shard read after it. Returns how many came from the snapshot.
   */
  open(partition: number, entries: IdempotencyEntries): number {
    const index = new IdempotencyIndex();
    let fromSnapshot = 0;
    const snapshot = entries.snapshot;
    if (snapshot !== undefined) {
      const opened = decodeIndexSnapshot(snapshot.payload, 1, `the idempotency entries of ${partitionStream(partition)}`);
      if (opened.watermarks[0] !== snapshot.sequence) throw new Error(`the idempotency snapshot of ${partitionStream(partition)} at sequence ${snapshot.sequence} says it holds the entries up to ${opened.watermarks[0]}`);
      opened.restoreInto(index);
      fromSnapshot = index.size;
    }
    for (let i = 0; i < entries.actorIds.length; i += 1) {
      index.restore(entries.actorIds[i] as string, entries.commandIds[i] as string, entries.fingerprints[i] as string, { owner: partition, position: entries.positions[i] as number });
    }
    this.indexes.set(partition, index);
    this.expected.delete(partition);
    const early = this.early.get(partition);
    if (early !== undefined) {
      this.early.delete(partition);
      void this.snapshotting(partition, early.mark).then(() => resolveAll(early.waiters));
    }
    return fromSnapshot;
  }

  /** The index of a partition this node has opened, if it has. */
  get(partition: number): IdempotencyIndex | undefined {
    return this.indexes.get(partition);
  }

  /** Entries in all the indexes (metrics). */
  get size(): number {
    let size = 0;
    for (const index of this.indexes.values()) size += index.size;
    return size;
  }

  /** This node no longer serves `partition`: its entries go (a write already begun still ends). */
  drop(partition: number): void {
    this.indexes.delete(partition);
    this.expected.delete(partition);
    const early = this.early.get(partition);
    this.early.delete(partition);
    if (early !== undefined) resolveAll(early.waiters);
  }

  /**
   * The partition's shard took a snapshot marked `mark`: snapshot the partition's entries under it.
   * Resolves (never rejects) once that is written, or a later mark's is, or the write failed, or
   * the node gives the partition up; at once when the node has no index of it and is not opening it
   * (a shard closing after its partition was dropped): the shard then stores its own.
   */
  snapshotting(partition: number, mark: SnapshotMark): Promise<void> {
    const index = this.indexes.get(partition);
    if (index === undefined) {
      if (!this.expected.has(partition)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const waiters = [...(this.early.get(partition)?.waiters ?? []), resolve];
        this.early.set(partition, { mark, waiters });
      });
    }
    return new Promise<void>((resolve) => {
      let payload: Uint8Array;
      try {
        // Taken now: the index may be dropped before the write's turn comes.
        payload = Buffer.concat(indexSnapshotParts(index, [mark.sequence]));
      } catch (error) {
        this.writeFailed(partition, error);
        resolve();
        return;
      }
      const job: Job = { mark, payload, waiters: [resolve] };
      const writing = this.writing.get(partition);
      if (writing !== undefined) {
        if (writing.next !== undefined) job.waiters.push(...writing.next.waiters);
        writing.next = job;
        return;
      }
      const started: Writing = { done: Promise.resolve(), next: undefined };
      this.writing.set(partition, started);
      started.done = this.write(partition, job, started);
    });
  }

  /** Writes `first`, then whatever came meanwhile; ends (and leaves `writing`) in the turn it finds nothing more. */
  private async write(partition: number, first: Job, writing: Writing): Promise<void> {
    let job: Job | undefined = first;
    try {
      while (job !== undefined) {
        try {
          this.snapshots ??= JetStreamSnapshots.open(this.messaging.jetStream(DEFAULT_REQUEST_TIMEOUT_MS).objects, DEFAULT_SNAPSHOT_BUCKET, SNAPSHOT_REPLICAS);
          const store = await this.snapshots.catch((error: unknown) => {
            this.snapshots = undefined; // opened again for the next write
            throw error;
          });
          await store.write(idempotencySnapshotName(partitionStream(partition)), job.mark, job.payload, SNAPSHOTS_KEPT);
        } catch (error) {
          this.writeFailed(partition, error);
        }
        resolveAll(job.waiters);
        job = writing.next;
        writing.next = undefined;
      }
    } finally {
      // Even when `writeFailed` threw: no shard's snapshot waits on a write that will not come.
      if (job !== undefined) resolveAll(job.waiters);
      if (writing.next !== undefined) resolveAll(writing.next.waiters);
      this.writing.delete(partition);
    }
  }

  /** Resolves once the snapshot writes of `partition` (of every partition when undefined) have ended. */
  async settled(partition?: number): Promise<void> {
    const pending = partition === undefined ? [...this.writing.values()] : [this.writing.get(partition)];
    await Promise.all(pending.map((writing) => writing?.done));
  }
}

function resolveAll(waiters: ReadonlyArray<() => void>): void {
  for (const resolve of waiters) resolve();
}
