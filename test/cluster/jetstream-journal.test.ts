/**
 * What the JetStream journal adds to the journal contract (test/journal/journal-contract.test.ts runs
 * that contract on it too), on a real 3-node nats-server cluster with R3 streams: fencing between
 * two writers of one stream, appends that go on through kill -9 of the stream's leader, a lost ack
 * whose retry is not stored twice, reads of positions no longer cached, snapshots checked against
 * the stream. No nats-server binary is a failure (scripts/fetch-nats-server.sh), not a skip.
 */
import { jetstreamManager, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { JOURNAL_CONNECTION_SETTINGS, connectForJournals } from "../../engine/journal/jetstream-connection.js";
import { JetStreamJournal, JournalPositionNotCachedError, type JetStreamJournalOptions, type PublishRetry } from "../../engine/journal/jetstream-journal.js";
import { JournalFencedError, type Journal } from "../../engine/journal/journal.js";
import { HoldingProxy } from "./support/holding-proxy.js";
import { NatsCluster } from "./support/nats-cluster.js";

let cluster: NatsCluster;
let connection: NatsConnection;
let jsm: JetStreamManager;
const journals: Journal[] = [];
const connections: NatsConnection[] = [];
let streams = 0;

beforeAll(async () => {
  cluster = await NatsCluster.start();
  connection = await connectForJournals(cluster.urls);
  jsm = await jetstreamManager(connection);
}, 60_000);

afterEach(async () => {
  for (const journal of journals.splice(0)) await journal.close().catch(() => undefined);
  for (const other of connections.splice(0)) await other.close().catch(() => undefined);
});

afterAll(async () => {
  await connection?.close();
  await cluster?.stop();
});

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (payload: Uint8Array): string => new TextDecoder().decode(payload);

function freshName(): string {
  streams += 1;
  return `jsj-${process.pid}-${streams}`;
}

async function openJournal(options: Partial<JetStreamJournalOptions> & { name: string }): Promise<JetStreamJournal> {
  const journal = await JetStreamJournal.open({ connection, ...options });
  journals.push(journal);
  return journal;
}

async function newConnection(servers: string[] = cluster.urls): Promise<NatsConnection> {
  const opened = await connectForJournals(servers);
  connections.push(opened);
  return opened;
}

async function readAll(journal: Journal, afterSequence = 0): Promise<Array<[number, string]>> {
  const entries: Array<[number, string]> = [];
  await journal.read(afterSequence, (entry) => entries.push([entry.sequence, text(entry.payload)]));
  return entries;
}

/** Polls `check` until it holds; fails naming `what` after `timeoutMs` (a real event, bounded). */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A journal on stream `name` that reaches node `node` through a proxy holding the server's bytes
 * once `loseNextAck()` is called: the publish after it is stored while its ack is held, so the
 * journal retries; its first retry releases the bytes once the first attempt is seen stored.
 */
async function journalThatLosesAnAck(name: string, node: number) {
  const proxy = await HoldingProxy.start(cluster.nodes[node]?.clientPort as number);
  const retries: PublishRetry[] = [];
  let armed = false;
  const journal = await openJournal({
    name,
    connection: await newConnection([proxy.url]),
    requestTimeoutMs: 300,
    onRetry: (retry) => {
      if (!armed) return;
      retries.push(retry);
      if (retries.length > 1) return;
      void waitFor("the first attempt to be stored", async () => (await jsm.streams.info(name)).state.messages === 2).finally(() => proxy.release());
    },
  }).catch(async (error: unknown) => {
    await proxy.close();
    throw error;
  });
  const loseNextAck = (): void => {
    armed = true;
    proxy.hold();
  };
  return { journal, proxy, retries, loseNextAck };
}

/** What a follower handed over, with a bounded wait for the n-th entry (an event, not a sleep). */
class Followed {
  readonly entries: Array<[number, string]> = [];
  readonly positions: number[] = [];
  private waiters: Array<{ count: number; wake: () => void }> = [];

  add(entry: { sequence: number; position: number; payload: Uint8Array }): void {
    this.entries.push([entry.sequence, text(entry.payload)]);
    this.positions.push(entry.position);
    for (const waiter of this.waiters.filter((w) => this.entries.length >= w.count)) waiter.wake();
  }

  until(count: number, timeoutMs = 10_000): Promise<void> {
    if (this.entries.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`followed ${this.entries.length} entries, not ${count}, within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ count, wake: () => (clearTimeout(timer), resolve()) });
    });
  }
}

describe("JetStreamJournal on a 3-node cluster", () => {
  it("fences a second writer: its append with a stale expected sequence is refused and nothing is stored", async () => {
    const name = freshName();
    const first = await openJournal({ name });
    const second = await openJournal({ name, connection: await newConnection() });
    expect(second.lastSequence).toBe(0);

    await first.append([bytes("a1"), bytes("a2")], { expectedLastSequence: 0 });
    // The second writer still believes the journal is empty: the stream, not its memory, refuses it.
    const refusal = await second.append([bytes("b")], { expectedLastSequence: 0 }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(JournalFencedError);
    expect(refusal).toMatchObject({ expectedLastSequence: 0, lastSequence: 2 });
    expect((await jsm.streams.info(name)).state.messages).toBe(1);
    expect(second.lastSequence).toBe(2);

    // The first writer is fenced in turn once the second appends after what it has now seen.
    await second.append([bytes("b")], { expectedLastSequence: 2 });
    await expect(first.append([bytes("a3")], { expectedLastSequence: 2 })).rejects.toBeInstanceOf(JournalFencedError);
    // Without an expected sequence an append goes after whatever the stream holds.
    await first.append([bytes("a3")]);
    expect(await readAll(first)).toEqual([
      [1, "a1"],
      [2, "a2"],
      [3, "b"],
      [4, "a3"],
    ]);
    expect((await jsm.streams.info(name)).state.messages).toBe(3);
  });

  it("keeps appending through kill -9 of the stream's leader; every acknowledged entry is read back once, in order", async () => {
    const name = freshName();
    const writer = await newConnection();
    const journal = await openJournal({ name, connection: writer, requestTimeoutMs: 1_000, retryDeadlineMs: 20_000 });
    const leader = (await jsm.streams.info(name)).cluster?.leader;
    expect(leader).toBeDefined();
    const victim = cluster.indexOf(leader as string);

    const acknowledged: string[] = [];
    let killedAt = 0;
    let outageMs = 0;
    try {
      for (let batch = 0; batch < 60; batch++) {
        if (batch === 20) {
          killedAt = Date.now();
          await cluster.kill(victim);
        }
        const payloads = Array.from({ length: 4 }, (_, i) => `batch-${batch}-${i}`);
        await journal.append(payloads.map(bytes), { expectedLastSequence: journal.lastSequence });
        if (batch === 20) outageMs = Date.now() - killedAt;
        acknowledged.push(...payloads);
      }
      const after = await jsm.streams.info(name);
      expect(after.cluster?.leader).toBeDefined();
      expect(after.cluster?.leader).not.toBe(leader);

      expect(journal.lastSequence).toBe(acknowledged.length);
      const read = await readAll(journal);
      expect(read.map(([, payload]) => payload)).toEqual(acknowledged);
      expect(read.map(([sequence]) => sequence)).toEqual(acknowledged.map((_, i) => i + 1));
      // A reader that never wrote sees the same.
      const reader = await openJournal({ name, connection: await newConnection() });
      expect((await readAll(reader)).map(([, payload]) => payload)).toEqual(acknowledged);
      console.info(`kill -9 of stream leader ${leader}: first append after it acknowledged in ${outageMs} ms; ${journal.figures.publishRetries} publish retries, ${journal.figures.duplicatesAcknowledged} acknowledged as duplicates`);
    } finally {
      if (!cluster.isRunning(victim)) await cluster.restart(victim);
    }
  }, 60_000);

  it("keeps appending when the node it is connected to, the stream's leader, is paused (SIGSTOP), and after it resumes", async () => {
    const name = freshName();
    await openJournal({ name });
    const leader = (await jsm.streams.info(name)).cluster?.leader as string;
    const victim = cluster.indexOf(leader);
    // Connected to the leader's node first. A paused server keeps its sockets open and answers
    // nothing: the journals' connection settings (pings, connect timeout) get it off that server.
    const others = cluster.urls.filter((_, i) => i !== victim);
    const writer = await connect({ servers: [cluster.urls[victim] as string, ...others], noRandomize: true, ...JOURNAL_CONNECTION_SETTINGS });
    connections.push(writer);
    const journal = await openJournal({ name, connection: writer, requestTimeoutMs: 1_000, retryDeadlineMs: 20_000 });
    const acknowledged: string[] = [];
    const append = async (label: string): Promise<void> => {
      await journal.append([bytes(label)], { expectedLastSequence: journal.lastSequence });
      acknowledged.push(label);
    };
    for (let i = 0; i < 5; i++) await append(`before-${i}`);
    cluster.pause(victim);
    const pausedAt = Date.now();
    try {
      await append("during-0");
      const outageMs = Date.now() - pausedAt;
      for (let i = 1; i < 5; i++) await append(`during-${i}`);
      expect((await jsm.streams.info(name)).cluster?.leader).not.toBe(leader);
      console.info(`SIGSTOP of stream leader ${leader} (the writer's server): first append after it acknowledged in ${outageMs} ms`);
    } finally {
      cluster.resume(victim);
    }
    for (let i = 0; i < 5; i++) await append(`after-${i}`);
    const reader = await openJournal({ name, connection: await newConnection() });
    expect((await readAll(reader)).map(([, payload]) => payload)).toEqual(acknowledged);
  }, 60_000);

  it("retries a publish whose ack was lost with the same id: the batch is stored once", async () => {
    const name = freshName();
    // Retries counted only once armed (a new stream may also meet "no responders" at first, on a
    // node that has not learnt of it yet: the journal retries those too).
    const { journal, proxy, retries, loseNextAck } = await journalThatLosesAnAck(name, 0);
    try {
      await journal.append([bytes("x")]);
      const duplicatesBefore = journal.figures.duplicatesAcknowledged;

      loseNextAck();
      const positions = await journal.append([bytes("y"), bytes("z")], { expectedLastSequence: 1 });
      expect(retries[0], JSON.stringify(retries)).toMatchObject({ attempt: 2, outcomeUnknown: true });
      expect(journal.figures.duplicatesAcknowledged).toBe(duplicatesBefore + 1);
      expect((await jsm.streams.info(name)).state.messages).toBe(2);
      expect(positions.map((position) => text(journal.readAt(position).payload))).toEqual(["y", "z"]);
      expect(await readAll(journal)).toEqual([
        [1, "x"],
        [2, "y"],
        [3, "z"],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("recognises its own batch when the retry of a lost ack meets the fence instead of the duplicate window", async () => {
    const name = freshName();
    // A duplicate window shorter than the retry's backoff: the retry is not answered as a duplicate.
    await jsm.streams.add({ name, subjects: [`journal.${name}`], storage: StorageType.File, num_replicas: 3, duplicate_window: 100_000_000 });
    const { journal, proxy, retries, loseNextAck } = await journalThatLosesAnAck(name, 1);
    try {
      await journal.append([bytes("first")]);
      const duplicatesBefore = journal.figures.duplicatesAcknowledged;

      loseNextAck();
      const [position] = await journal.append([bytes("second")], { expectedLastSequence: 1 });
      expect(retries[0], JSON.stringify(retries)).toMatchObject({ attempt: 2, outcomeUnknown: true });
      expect(journal.figures.duplicatesAcknowledged).toBe(duplicatesBefore);
      expect((await jsm.streams.info(name)).state.messages).toBe(2);
      expect(text(journal.readAt(position as number).payload)).toBe("second");
      expect(journal.lastSequence).toBe(2);
      await journal.append([bytes("third")], { expectedLastSequence: 2 });
      expect(await readAll(journal)).toEqual([
        [1, "first"],
        [2, "second"],
        [3, "third"],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("reads a position no longer cached with fetchAt; readAt says it cannot", async () => {
    const name = freshName();
    const journal = await openJournal({ name, cacheBytes: 0 });
    const [first] = await journal.append([bytes("first")]);
    const [second] = await journal.append([bytes("second")]);
    expect(text(journal.readAt(second as number).payload)).toBe("second");
    expect(() => journal.readAt(first as number)).toThrow(JournalPositionNotCachedError);
    expect(await journal.fetchAt(first as number)).toMatchObject({ sequence: 1, position: first });
    expect(text((await journal.fetchAt(first as number)).payload)).toBe("first");
    expect(() => journal.readView()).toThrow(/not supported by the JetStream journal yet/);
  });

  it("checks a snapshot against the stream: one newer than the stream refuses the open, one of another batch is ignored", async () => {
    const name = freshName();
    const before = await openJournal({ name });
    await before.append([bytes("old")]);
    await before.writeSnapshot(bytes("state of the old stream"), 2);
    await before.close();
    // The stream is lost (deleted and made again): the snapshot covers an entry it no longer has.
    await jsm.streams.delete(name);
    await expect(openJournal({ name })).rejects.toThrow(/snapshot of sequence 1 .* is newer than stream/);

    // The new stream's first batch, appended by a writer that keeps its snapshots elsewhere.
    const recreated = await openJournal({ name, snapshotBucket: "other-snapshots" });
    await recreated.append([bytes("new")]);
    await recreated.close();
    const reopened = await openJournal({ name });
    expect(reopened.snapshot).toBeUndefined();
    expect(reopened.recovery.snapshotIgnored).toMatch(/another batch/);
    expect(await readAll(reopened)).toEqual([[1, "new"]]);
  });

  it("keeps only the newest snapshots asked for, each read back against the stream", async () => {
    const name = freshName();
    const journal = await openJournal({ name });
    for (let i = 1; i <= 4; i++) {
      await journal.append([bytes(`e${i}`)]);
      expect(await journal.writeSnapshot(bytes(`state ${i}`), 2)).toMatchObject({ sequence: i });
    }
    const bucket = await new Objm(connection).open("journal-snapshots");
    expect((await bucket.status()).replicas).toBe(3);
    const names = (await bucket.list()).map((info) => info.name).filter((object) => object.startsWith(`${name}/`));
    expect(names.sort()).toEqual([`${name}/0000000000000003`, `${name}/0000000000000004`]);
    const reopened = await openJournal({ name });
    expect(reopened.snapshot?.sequence).toBe(4);
    expect(text(reopened.snapshot?.payload ?? new Uint8Array())).toBe("state 4");
    expect(await readAll(reopened, reopened.snapshot?.sequence)).toEqual([]);
  });

  it("refuses a batch larger than the servers' max_payload without failing the journal", async () => {
    const name = freshName();
    const journal = await openJournal({ name });
    const tooLarge = new Uint8Array((connection.info?.max_payload ?? 0) + 1);
    await expect(journal.append([tooLarge])).rejects.toThrow(/max_payload/);
    expect(await journal.append([bytes("fits")])).toHaveLength(1);
    expect((await jsm.streams.info(name)).state.messages).toBe(1);
  });
  it("follows every writer's entries in order, each once, from a given entry; the next append expects the followed tail", async () => {
    const name = freshName();
    const first = await openJournal({ name });
    const second = await openJournal({ name, connection: await newConnection() });
    await first.append([bytes("a1"), bytes("a2")], { expectedLastSequence: 0 });
    await first.append([bytes("a3")], { expectedLastSequence: 2 });

    const followed = new Followed();
    const follower = await second.follow(1, (entry) => followed.add(entry));
    try {
      await followed.until(2);
      expect(followed.entries).toEqual([
        [2, "a2"],
        [3, "a3"],
      ]);
      await first.append([bytes("a4")], { expectedLastSequence: 3 });
      await followed.until(3);
      // The second writer learnt the tail from the stream as it followed: no fence, no extra read.
      expect(second.lastSequence).toBe(4);
      const [own] = await second.append([bytes("b5")], { expectedLastSequence: 4 });
      await followed.until(4);
      expect(followed.entries.slice(2)).toEqual([
        [4, "a4"],
        [5, "b5"],
      ]);
      expect(followed.positions[3]).toBe(own);
      // Followed batches are cached: their positions read back synchronously.
      expect(text(second.readAt(followed.positions[2] as number).payload)).toBe("a4");
      await expect(first.append([bytes("a6")], { expectedLastSequence: 4 })).rejects.toBeInstanceOf(JournalFencedError);
    } finally {
      await follower.stop();
    }
    // Nothing is handed over once stopped.
    await first.append([bytes("a6")], { expectedLastSequence: 5 });
    expect(followed.entries).toHaveLength(4);
  });

  it("learns the stream's tail when an append expects a sequence beyond the one it knows, and is fenced if it is not that", async () => {
    const name = freshName();
    const writer = await openJournal({ name });
    const late = await openJournal({ name, connection: await newConnection() });
    await writer.append([bytes("w1"), bytes("w2"), bytes("w3")], { expectedLastSequence: 0 });
    expect(late.lastSequence).toBe(0);
    // A caller that read the stream elsewhere knows entry 3 is the last: the append goes after it.
    await late.append([bytes("l4")], { expectedLastSequence: 3 });
    const refusal = await late.append([bytes("l?")], { expectedLastSequence: 9 }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(JournalFencedError);
    expect(refusal).toMatchObject({ expectedLastSequence: 9, lastSequence: 4 });
    expect((await readAll(writer)).map(([, payload]) => payload)).toEqual(["w1", "w2", "w3", "l4"]);
  });

  it("keeps following through kill -9 of the stream's leader: every entry acknowledged meanwhile is handed over once, in order", async () => {
    const name = freshName();
    const writer = await openJournal({ name, connection: await newConnection(), requestTimeoutMs: 1_000, retryDeadlineMs: 20_000 });
    const reader = await openJournal({ name, connection: await newConnection() });
    await writer.append([bytes("before")], { expectedLastSequence: 0 });
    const followed = new Followed();
    const follower = await reader.follow(0, (entry) => followed.add(entry));
    const leader = (await jsm.streams.info(name)).cluster?.leader as string;
    const victim = cluster.indexOf(leader);
    try {
      await followed.until(1);
      await cluster.kill(victim);
      const labels = ["before"];
      for (let i = 0; i < 10; i++) {
        await writer.append([bytes(`after-${i}`)], { expectedLastSequence: writer.lastSequence });
        labels.push(`after-${i}`);
      }
      await followed.until(labels.length, 30_000);
      expect(followed.entries.map(([, payload]) => payload)).toEqual(labels);
      expect(followed.entries.map(([sequence]) => sequence)).toEqual(labels.map((_, i) => i + 1));
    } finally {
      await follower.stop();
      if (!cluster.isRunning(victim)) await cluster.restart(victim);
    }
  }, 60_000);
});
