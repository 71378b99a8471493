/**
 * The JetStream journal's snapshots in their bucket (engine/journal/jetstream-snapshots.ts): the
 * newest of several journals from one listing, whose names may share a prefix, and the pruning
 * that keeps the newest few. The bucket here is a map behind the ObjectStore port (the real one is
 * a JetStream object store, exercised by the cluster tests); it counts its listings.
 */
import { describe, expect, it } from "vitest";
import { JetStreamSnapshots, startingSnapshot, type SnapshotMark, type StoredSnapshot, type UnreadableSnapshot } from "../../engine/journal/jetstream-snapshots.js";
import type { ObjectStore, ObjectStores, StoredObjectInfo } from "../../engine/messaging/object-store.js";
import { MessagingError, isMessagingFailure } from "../../engine/messaging/messaging-error.js";
import { messagingErrorOf } from "../../engine/messaging/nats/nats-errors.js";

class MapBucket implements ObjectStore {
  readonly objects = new Map<string, Uint8Array>();
  listings = 0;
  /** Called after a listing, before it is answered: a writer may prune meanwhile. */
  afterList: () => void = () => undefined;
  /** What a read of an object throws instead of answering, by name. */
  readonly failing = new Map<string, Error>();

  list(): Promise<StoredObjectInfo[]> {
    this.listings += 1;
    const listed = [...this.objects.keys()].map((name) => ({ name, deleted: false }));
    this.afterList();
    return Promise.resolve(listed);
  }
  getBlob(name: string): Promise<Uint8Array | null> {
    const failure = this.failing.get(name);
    if (failure !== undefined) return Promise.reject(failure);
    return Promise.resolve(this.objects.get(name) ?? null);
  }
  putBlob(name: string, data: Uint8Array): Promise<void> {
    this.objects.set(name, data);
    return Promise.resolve();
  }
  delete(name: string): Promise<void> {
    this.objects.delete(name);
    return Promise.resolve();
  }
}

async function bucket(): Promise<{ store: MapBucket; snapshots: JetStreamSnapshots }> {
  const store = new MapBucket();
  const stores: ObjectStores = { create: () => Promise.resolve(store), openExisting: () => Promise.resolve(store) };
  return { store, snapshots: await JetStreamSnapshots.open(stores, "journal-snapshots", 1) };
}

const mark = (sequence: number): SnapshotMark => ({ sequence, streamSequence: sequence, batchId: `batch-${sequence}` });
const payload = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | undefined): string | undefined => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));

function readable(newest: StoredSnapshot | UnreadableSnapshot | undefined): StoredSnapshot | undefined {
  if (newest !== undefined && "unreadable" in newest) throw new Error(`unreadable: ${newest.unreadable}`);
  return newest;
}

describe("JetStreamSnapshots", () => {
  it("gives the newest snapshot of each journal from one listing, journals whose names share a prefix kept apart", async () => {
    const { store, snapshots } = await bucket();
    await snapshots.write("partition-1", mark(5), payload("p1 at 5"), 2);
    await snapshots.write("partition-1", mark(9), payload("p1 at 9"), 2);
    await snapshots.write("partition-1.idempotency", mark(7), payload("p1 entries at 7"), 2);
    await snapshots.write("partition-10", mark(12), payload("p10 at 12"), 2);
    store.listings = 0;

    const [own, entries, other, none] = (await snapshots.newestOf(["partition-1", "partition-1.idempotency", "partition-10", "partition-2"])).map(readable);

    expect(store.listings).toBe(1);
    expect(own?.mark).toEqual(mark(9));
    expect(text(own?.payload)).toBe("p1 at 9");
    expect(entries?.mark).toEqual(mark(7));
    expect(text(entries?.payload)).toBe("p1 entries at 7");
    expect(text(other?.payload)).toBe("p10 at 12");
    expect(none).toBeUndefined();
    expect(text((await snapshots.newest("partition-1"))?.payload)).toBe("p1 at 9");
  });

  it("keeps the newest `keep` of a journal's snapshots and no other journal's", async () => {
    const { store, snapshots } = await bucket();
    for (const sequence of [3, 6, 9]) await snapshots.write("partition-1", mark(sequence), payload(`p1 at ${sequence}`), 2);
    await snapshots.write("partition-1.idempotency", mark(3), payload("entries at 3"), 2);
    await snapshots.write("partition-1", mark(12), payload("p1 at 12"), 2);

    expect([...store.objects.keys()].sort()).toEqual([
      "partition-1.idempotency/0000000000000003",
      "partition-1/0000000000000009",
      "partition-1/0000000000000012",
    ]);
  });

  it("takes the next older snapshot when the newest listed is pruned before it is read", async () => {
    const { store, snapshots } = await bucket();
    await snapshots.write("partition-1", mark(5), payload("p1 at 5"), 2);
    await snapshots.write("partition-1", mark(9), payload("p1 at 9"), 2);
    store.afterList = () => store.objects.delete("partition-1/0000000000000009");

    const [own] = (await snapshots.newestOf(["partition-1"])).map(readable);

    expect(own?.mark).toEqual(mark(5));
  });

  it("says why the newest snapshot cannot be read (no envelope, or bytes that do not match their digest) instead of failing the read", async () => {
    const { store, snapshots } = await bucket();
    await snapshots.write("partition-1", mark(5), payload("p1 at 5"), 2);
    await snapshots.write("partition-2", mark(5), payload("p2 at 5"), 2);
    await snapshots.write("partition-3", mark(5), payload("p3 at 5"), 2);
    store.objects.set("partition-1/0000000000000009", payload("no envelope"));
    // What the object store client (@nats-io/obj) rejects a read with when the bytes do not match their digest, as the NATS adapter passes it on.
    const digestMismatch = messagingErrorOf(new Error("received a corrupt object, digests do not match\n  expected: SHA-256=abc\n  computed: SHA-256 def"));
    expect(isMessagingFailure(digestMismatch, "corrupt")).toBe(true);
    store.failing.set("partition-2/0000000000000005", digestMismatch as MessagingError);

    const [one, two, three] = await snapshots.newestOf(["partition-1", "partition-2", "partition-3"]);

    // The older object that can be read comes with why the newest could not.
    expect(one).toMatchObject({ unreadable: "snapshot object partition-1/0000000000000009 has no JSS1 envelope", sequence: 9, older: { mark: mark(5) } });
    expect(text((one as UnreadableSnapshot).older?.payload)).toBe("p1 at 5");
    expect(two).toEqual({ unreadable: "snapshot object partition-2/0000000000000005 cannot be read: Error: received a corrupt object, digests do not match", sequence: 5 });
    expect(text(readable(three)?.payload)).toBe("p3 at 5");
    await expect(snapshots.newest("partition-1")).rejects.toThrow("has no JSS1 envelope");
  });

  it("gives the newest reason with the newest older object that can be read, past several that cannot", async () => {
    const { store, snapshots } = await bucket();
    await snapshots.write("partition-1", mark(3), payload("p1 at 3"), 9);
    store.objects.set("partition-1/0000000000000005", payload("no envelope at 5"));
    store.objects.set("partition-1/0000000000000007", payload("no envelope at 7"));
    const [found] = await snapshots.newestOf(["partition-1"]);
    expect(found).toMatchObject({ unreadable: "snapshot object partition-1/0000000000000007 has no JSS1 envelope", sequence: 7 });
    expect(text(startingSnapshot(found)?.payload)).toBe("p1 at 3");
    // None that can be read: the reason alone.
    store.objects.delete("partition-1/0000000000000003");
    const [none] = await snapshots.newestOf(["partition-1"]);
    expect(none).toEqual({ unreadable: "snapshot object partition-1/0000000000000007 has no JSS1 envelope", sequence: 7 });
    expect(startingSnapshot(none)).toBeUndefined();
  });

  it("passes on a failure to read that another attempt may not meet (a timeout)", async () => {
    const { store, snapshots } = await bucket();
    await snapshots.write("partition-1", mark(5), payload("p1 at 5"), 2);
    store.failing.set("partition-1/0000000000000005", new MessagingError("timeout", "no answer"));

    await expect(snapshots.newestOf(["partition-1"])).rejects.toThrow("no answer");
  });
});
