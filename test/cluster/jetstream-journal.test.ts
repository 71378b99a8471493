/**
 * What the JetStream journal adds to the journal contract (test/journal/journal-contract.test.ts runs
 * that contract on it too), on a real 3-node nats-server cluster with R3 streams: fencing between
 * two writers of one stream, appends that go on through kill -9 of the stream's leader, a lost ack
 * whose retry is not stored twice, reads of positions no longer cached, snapshots checked against
 * the stream; owners' claims (epochs) that fence a previous owner even when no entry follows them,
 * the hash chain running on across writers, reads stepping over claims and refusing a broken chain.
 * No nats-server binary is a failure (scripts/fetch-nats-server.sh), not a skip.
 */
import { jetstream, jetstreamManager, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { Objm, getSha256Backend } from "@nats-io/obj";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { JOURNAL_CONNECTION_SETTINGS, connectForJournals } from "../../engine/messaging/nats/connect.js";
import { JetStreamJournal, JournalEpochFencedError, type JetStreamJournalOptions, type PublishRetry } from "../../engine/journal/jetstream-journal.js";
import { JournalFencedError, type Journal } from "../../engine/journal/journal.js";
import { chainAfter, decodeBatch, encodeBatch, type DecodedBatch } from "../../engine/journal/jetstream-batch.js";
import { StreamBreakError } from "../../engine/journal/stream-continuity.js";
import { genesisChainHash } from "../../storage/hash-chain.js";
import { HoldingProxy } from "./support/holding-proxy.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";

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
});

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

/** A journal on `connection` (the shared one unless given), as the cluster's modules take it (NatsMessaging). */
async function openJournal(options: Partial<Omit<JetStreamJournalOptions, "messaging">> & { name: string; connection?: NatsConnection }): Promise<JetStreamJournal> {
  const { connection: given, ...rest } = options;
  const journal = await JetStreamJournal.open({ messaging: new NatsMessaging(given ?? connection), ...rest });
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

/** Every message of stream `name`, decoded, in order. */
async function messagesOf(name: string): Promise<DecodedBatch[]> {
  const last = (await jsm.streams.info(name)).state.last_seq;
  const batches: DecodedBatch[] = [];
  for (let seq = 1; seq <= last; seq++) {
    const message = await jsm.streams.getMessage(name, { seq });
    if (message === null) throw new Error(`no message ${seq} in ${name}`);
    batches.push(decodeBatch(message.data, seq));
  }
  return batches;
}

/** What a rejected promise was rejected with. */
async function refusalOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("expected a refusal"),
    (error: unknown) => error,
  );
}

/** Polls `check` until it holds; fails naming `what` after `timeoutMs` (a real event, bounded). */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
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

  until(count: number, timeoutMs = 60_000): Promise<void> {
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
  });

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
  });

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
      expect(await Promise.all(positions.map(async (position) => text((await journal.readAt(position)).payload)))).toEqual(["y", "z"]);
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
      expect(text((await journal.readAt(position as number)).payload)).toBe("second");
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

  it("reads a position no longer cached from the stream, one request for the readers of one batch; has no file view", async () => {
    const name = freshName();
    const journal = await openJournal({ name, cacheBytes: 0 });
    const first = await journal.append([bytes("first"), bytes("also first")]);
    const [second] = await journal.append([bytes("second")]);
    expect(journal.figures.cachedBatches).toBe(1); // only the newest batch: the first is no longer cached
    expect(text((await journal.readAt(second as number)).payload)).toBe("second");

    // Count the stream's message reads (the JetStream API's MSG.GET requests) while both entries of the first batch are read at once.
    // The watcher sits on the journal connection's own server: its flushed subscription is then
    // known there before the reads are sent (interest reaches the other servers over the cluster's
    // routes later, which on a loaded machine outlasted the reads).
    const gets: string[] = [];
    const watcher = await newConnection([`nats://${connection.getServer()}`]);
    const subscription = watcher.subscribe(`$JS.API.STREAM.MSG.GET.${name}`, { callback: (_error, message) => void gets.push(message.subject) });
    await watcher.flush();
    const entries = await Promise.all(first.map((position) => journal.readAt(position)));
    await connection.flush();
    // The copy of the request reaches the watcher after the flushes; wait for it (bounded), then once more.
    const deadline = Date.now() + 60_000;
    while (gets.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await watcher.flush();
    subscription.unsubscribe();
    expect(entries.map((entry) => [entry.sequence, text(entry.payload)])).toEqual([
      [1, "first"],
      [2, "also first"],
    ]);
    expect(entries.map((entry) => entry.position)).toEqual(first);
    expect(gets).toHaveLength(1);
    expect(journal.readView()).toBeUndefined();
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
    // The objects' digests are computed with node:crypto, as nats-objects.ts selects.
    expect(getSha256Backend()).toBe("native");
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
      // Followed batches are cached: their positions read back without a request.
      expect(text((await second.readAt(followed.positions[2] as number)).payload)).toBe("a4");
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

  async function followThroughLeaderKill(readerOnTheLeader: boolean): Promise<void> {
    const name = freshName();
    const writer = await openJournal({ name, connection: await newConnection(), requestTimeoutMs: 1_000, retryDeadlineMs: 20_000 });
    const leader = (await jsm.streams.info(name)).cluster?.leader as string;
    const victim = cluster.indexOf(leader);
    // Connected to the leader alone at first (the client learns the others from it), the follower's
    // connection drops with it, and its consumer (on the leader) is lost with it.
    const reader = await openJournal({ name, connection: await newConnection(readerOnTheLeader ? [cluster.urls[victim] as string] : cluster.urls) });
    await writer.append([bytes("before")], { expectedLastSequence: 0 });
    const followed = new Followed();
    const follower = await reader.follow(0, (entry) => followed.add(entry));
    try {
      await followed.until(1);
      await cluster.kill(victim);
      const labels = ["before"];
      for (let i = 0; i < 10; i++) {
        await writer.append([bytes(`after-${i}`)], { expectedLastSequence: writer.lastSequence });
        labels.push(`after-${i}`);
      }
      await followed.until(labels.length, 60_000);
      expect(followed.entries.map(([, payload]) => payload)).toEqual(labels);
      expect(followed.entries.map(([sequence]) => sequence)).toEqual(labels.map((_, i) => i + 1));
    } finally {
      await follower.stop();
      if (!cluster.isRunning(victim)) await cluster.restart(victim);
    }
  }

  it("keeps following through kill -9 of the stream's leader: every entry acknowledged meanwhile is handed over once, in order", async () => {
    await followThroughLeaderKill(false);
  });

  it("keeps following through kill -9 of the stream's leader its own connection is on", async () => {
    await followThroughLeaderKill(true);
  });

  it("does not take a follower's state for the stream's once the stream has lost its leader: 'how far is the log' fails, it is not answered short", async () => {
    const name = freshName();
    const writer = await openJournal({ name, retryDeadlineMs: 1_000, requestTimeoutMs: 500, openDeadlineMs: 30_000 });
    await writer.append([bytes("one")], { expectedLastSequence: 0 });
    expect(await writer.latestSequence()).toBe(1);
    const down = [0, 1];
    for (const index of down) await cluster.kill(index);
    try {
      // The survivor, a follower now without a leader, starts answering stream info itself.
      await waitFor("a follower answering stream info without a leader", async () => {
        const info = await jsm.streams.info(name).catch(() => undefined);
        return info?.cluster !== undefined && !info.cluster.leader;
      });
      await expect(writer.latestSequence()).rejects.toThrow(/no leader/);
    } finally {
      await cluster.restart(...down);
    }
    await waitFor("the stream's leader answering again", async () => (await writer.latestSequence().catch(() => -1)) === 1);
  });
});

describe("owners, epochs and the hash chain on a 3-node cluster", () => {
  it("fences the previous owner with a claim alone: its next append is refused although the last entry did not change", async () => {
    const name = freshName();
    const previous = await openJournal({ name });
    await previous.claim(1);
    expect(previous.epoch).toBe(1);
    await previous.append([bytes("a1"), bytes("a2")], { expectedLastSequence: 0 });

    const successor = await openJournal({ name, connection: await newConnection() });
    expect(successor.lastEpoch).toBe(1);
    await successor.claim(2);
    expect(successor.lastSequence).toBe(2);
    expect((await jsm.streams.info(name)).state.messages).toBe(3);

    // The previous owner expects the last entry it knows, which is still the stream's last entry:
    // only the claim's move of the stream's last message refuses it.
    const refusal = await refusalOf(previous.append([bytes("late")], { expectedLastSequence: 2 }));
    expect(refusal).toBeInstanceOf(JournalEpochFencedError);
    expect(refusal).toBeInstanceOf(JournalFencedError);
    expect(refusal).toMatchObject({ epoch: 1, streamEpoch: 2, expectedLastSequence: 2, lastSequence: 2 });
    expect((refusal as Error).message).toMatch(new RegExp(`stream ${name} records epoch 2, and this writer's epoch is 1`));
    // Fenced for good: having learnt the new tail does not let it append, with or without an expectation.
    await expect(previous.append([bytes("late")], { expectedLastSequence: 2 })).rejects.toBeInstanceOf(JournalEpochFencedError);
    await expect(previous.append([bytes("late")])).rejects.toBeInstanceOf(JournalEpochFencedError);
    // Nor may it store a snapshot of its state under the successor's tail.
    await expect(previous.writeSnapshot(bytes("stale state"), 2)).rejects.toBeInstanceOf(JournalEpochFencedError);
    expect((await jsm.streams.info(name)).state.messages).toBe(3);

    // The successor appends after its claim; a writer outside cluster mode (epoch 0) is fenced too.
    await successor.append([bytes("b1")], { expectedLastSequence: 2 });
    const unowned = await openJournal({ name, connection: await newConnection() });
    await expect(unowned.append([bytes("x")])).rejects.toBeInstanceOf(JournalEpochFencedError);
    expect(await readAll(unowned)).toEqual([
      [1, "a1"],
      [2, "a2"],
      [3, "b1"],
    ]);
    expect((await messagesOf(name)).map((batch) => [batch.epoch, batch.count])).toEqual([
      [1, 0],
      [1, 2],
      [2, 0],
      [2, 1],
    ]);
  });

  it("an owner whose read reaches its successor's entries learns them: it can store no snapshot of them under its older tail", async () => {
    // Simulation seed 2081866: an owner stalled between its claim and its recovery read; its
    // successor claimed and appended; the stalled owner folded those entries, then stored them in a
    // snapshot marked with its own claim, and every later owner folded them twice.
    const name = freshName();
    const first = await openJournal({ name });
    await first.claim(1);
    await first.append([bytes("a1")], { expectedLastSequence: 0 });
    const stalled = await openJournal({ name, connection: await newConnection() });
    await stalled.claim(2);
    expect(stalled.lastSequence).toBe(1);
    const successor = await openJournal({ name, connection: await newConnection() });
    await successor.claim(3);
    await successor.append([bytes("c1"), bytes("c2")], { expectedLastSequence: 1 });

    // The stalled owner's recovery read: everything in the stream, its successor's entries too.
    expect(await readAll(stalled)).toEqual([
      [1, "a1"],
      [2, "c1"],
      [3, "c2"],
    ]);
    expect(stalled.lastSequence).toBe(3);
    await expect(stalled.writeSnapshot(bytes("state through c2"), 2)).rejects.toBeInstanceOf(JournalEpochFencedError);
    await expect(stalled.append([bytes("late")], { expectedLastSequence: 3 })).rejects.toBeInstanceOf(JournalEpochFencedError);
    // The next owner finds no snapshot to fold twice.
    const next = await openJournal({ name, connection: await newConnection() });
    expect(next.snapshot).toBeUndefined();
  });

  it("refuses a claim that does not raise the stream's epoch (an old owner cannot claim back), and claims after a lower epoch's batch", async () => {
    const name = freshName();
    const first = await openJournal({ name });
    const second = await openJournal({ name, connection: await newConnection() });
    await first.claim(3);
    await first.append([bytes("e1")]);
    // `second` still believes the stream empty: its claim meets first's messages, learns them, and
    // is refused there since epoch 3 does not raise epoch 3.
    expect(await refusalOf(second.claim(3))).toMatchObject({ name: "JournalEpochFencedError", epoch: 3, streamEpoch: 3 });
    await expect(second.claim(2)).rejects.toBeInstanceOf(JournalEpochFencedError);
    expect(second.epoch).toBe(0);
    await second.claim(4);
    expect(second.lastSequence).toBe(1);
    // The old owner does not know of epoch 4: its claim with 4 meets it; one with 3 is refused at once.
    await expect(first.claim(4)).rejects.toBeInstanceOf(JournalEpochFencedError);
    await expect(first.claim(3)).rejects.toBeInstanceOf(JournalEpochFencedError);
    await expect(first.append([bytes("late")])).rejects.toBeInstanceOf(JournalEpochFencedError);
    await expect(first.claim(-1)).rejects.toThrow(RangeError);
    await expect(first.claim(1.5)).rejects.toThrow(RangeError);
    expect((await messagesOf(name)).map((batch) => [batch.epoch, batch.count])).toEqual([
      [3, 0],
      [3, 1],
      [4, 0],
    ]);

    // A claim that meets another writer's batch of a lower epoch goes after it.
    const third = await openJournal({ name, connection: await newConnection() });
    await second.append([bytes("e2")], { expectedLastSequence: 1 });
    await third.claim(5);
    expect(third.lastSequence).toBe(2);
    expect((await messagesOf(name)).map((batch) => [batch.epoch, batch.count])).toEqual([
      [3, 0],
      [3, 1],
      [4, 0],
      [4, 1],
      [5, 0],
    ]);
    // A journal opened with an epoch below the stream's cannot append; it still reads.
    const stale = await openJournal({ name, connection: await newConnection(), epoch: 4 });
    expect(stale.epoch).toBe(4);
    await expect(stale.append([bytes("x")])).rejects.toBeInstanceOf(JournalEpochFencedError);
    expect(await readAll(stale)).toEqual([
      [1, "e1"],
      [2, "e2"],
    ]);
    await expect(openJournal({ name, epoch: -1 })).rejects.toThrow(RangeError);
  });

  it("continues the hash chain across two writers: the last message records the chain over every entry", async () => {
    const name = freshName();
    const first = await openJournal({ name, epoch: 0 });
    await first.claim(1);
    await first.append([bytes("e1"), bytes("e2")]);
    await first.append([bytes("e3")]);
    await first.close();
    const second = await openJournal({ name, connection: await newConnection() });
    await second.claim(2);
    await second.append([bytes("e4")]);
    const batches = await messagesOf(name);
    const everyEntry = ["e1", "e2", "e3", "e4"].map(bytes);
    expect(Buffer.from((batches.at(-1) as DecodedBatch).chain).toString("hex")).toBe(chainAfter(genesisChainHash(), everyEntry).toString("hex"));
    // The successor's claim records the chain where the previous owner left it.
    expect(Buffer.from((batches[3] as DecodedBatch).chain).toString("hex")).toBe(chainAfter(genesisChainHash(), everyEntry.slice(0, 3)).toString("hex"));
    const reader = await openJournal({ name, connection: await newConnection() });
    expect((await readAll(reader)).map(([, payload]) => payload)).toEqual(["e1", "e2", "e3", "e4"]);
  });

  it("steps over claims when reading from any sequence, with a binary search over uncached messages and after a snapshot taken at a claim", async () => {
    const name = freshName();
    const writers: JetStreamJournal[] = [];
    for (let epoch = 1; epoch <= 4; epoch++) writers.push(await openJournal({ name, connection: await newConnection() }));
    const [w1, w2, w3, w4] = writers as [JetStreamJournal, JetStreamJournal, JetStreamJournal, JetStreamJournal];
    await w1.claim(1);
    await w1.append([bytes("a"), bytes("b")]);
    await w2.claim(2);
    await w3.claim(3);
    await w3.append([bytes("c")]);
    await w4.claim(4);
    // Messages: claim 1 · [a b] · claim 2 · claim 3 · [c] · claim 4.
    expect((await messagesOf(name)).map((batch) => batch.count)).toEqual([0, 2, 0, 0, 1, 0]);
    for (let after = 0; after <= 4; after++) {
      // A fresh reader that caches nothing but the last message: each read searches the stream.
      const reader = await openJournal({ name, connection: await newConnection(), cacheBytes: 0 });
      expect(await readAll(reader, after), `after ${after}`).toEqual(
        [
          [1, "a"],
          [2, "b"],
          [3, "c"],
        ].filter(([sequence]) => (sequence as number) > after),
      );
    }
    // A snapshot taken right after a claim names the claim; a read after it steps on from there.
    expect(await w4.writeSnapshot(bytes("state through 3"), 2)).toMatchObject({ sequence: 3 });
    const reopened = await openJournal({ name, connection: await newConnection(), cacheBytes: 0 });
    expect(reopened.snapshot?.sequence).toBe(3);
    expect(reopened.recovery.snapshotIgnored).toBeNull();
    expect(await readAll(reopened, 3)).toEqual([]);
    await w4.append([bytes("d")], { expectedLastSequence: 3 });
    const later = await openJournal({ name, connection: await newConnection(), cacheBytes: 0 });
    expect(await readAll(later, later.snapshot?.sequence)).toEqual([[4, "d"]]);
  });

  it("refuses to read past a break in the hash chain, naming the message's stream sequence", async () => {
    const name = freshName();
    const journal = await openJournal({ name });
    await journal.append([bytes("a"), bytes("b")]);
    // A batch stored by something that is not a journal: right sequence, chain not continued.
    const forged = encodeBatch({ epoch: 0, firstSequence: 3, previousChain: genesisChainHash() }, [bytes("forged")]);
    await jetstream(connection).publish(`journal.${name}`, forged, { expect: { lastSequence: 1 } });
    const reader = await openJournal({ name, connection: await newConnection() });
    for (const after of [0, 2]) {
      const error = await refusalOf(readAll(reader, after));
      expect(error).toBeInstanceOf(StreamBreakError);
      expect(error).toMatchObject({ stream: name, streamSequence: 2 });
      expect((error as Error).message).toMatch(new RegExp(`stream ${name}, message at stream sequence 2: the hash chain breaks`));
    }
    // What comes before the break is read (entries are handed over as they are read).
    const entries: string[] = [];
    await reader.read(0, (entry) => entries.push(text(entry.payload))).catch(() => undefined);
    expect(entries).toEqual(["a", "b"]);
  });
});
