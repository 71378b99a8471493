/**
 * What every Journal promises the runtime (engine/journal/journal.ts), checked against each
 * implementation on real storage: the file journal on the caller's thread (the shards'), the file
 * journal on a thread of its own (the identity log's), and the JetStream journal on a real 3-node
 * nats-server cluster (R3 streams, fsync per write; scripts/nats-cluster.ts; one stream
 * per test, named after the test's directory). No nats-server binary fails the JetStream cases.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Worker } from "node:worker_threads";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FileJournal } from "../../engine/journal/file-journal.js";
import { connectForJournals } from "../../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { JetStreamJournal } from "../../engine/journal/jetstream-journal.js";
import { JournalFencedError, type Journal, type JournalEntry } from "../../engine/journal/journal.js";
import { WorkerJournal } from "../../engine/journal/worker-journal.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

const dirs: string[] = [];
const open: Journal[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "journal-"));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const journal of open.splice(0)) await journal.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (payload: Uint8Array): string => new TextDecoder().decode(payload);

async function readAll(journal: Journal, afterSequence = 0): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  await journal.read(afterSequence, (entry) => entries.push({ ...entry, payload: entry.payload.slice() }));
  return entries;
}

interface Implementation {
  /** Opens the journal kept at `dir` (a fresh directory per test; a reopen passes the same one). */
  readonly openAt: (dir: string) => Promise<Journal>;
  /** What the implementation needs running first (the NATS cluster), and its teardown. */
  readonly start?: () => Promise<void>;
  readonly stop?: () => Promise<void>;
}

/** The JetStream journal's servers: started before its cases, stopped after them. */
const nats: { cluster?: NatsCluster; connection?: NatsConnection } = {};

const implementations: Array<[string, Implementation]> = [
  ["FileJournal", { openAt: async (dir) => FileJournal.open({ dir }) }],
  ["WorkerJournal", { openAt: (dir) => WorkerJournal.open({ dir }) }],
  [
    "JetStreamJournal",
    {
      start: async () => {
        nats.cluster = await NatsCluster.start();
        nats.connection = await connectForJournals(nats.cluster.urls);
      },
      stop: async () => {
        await nats.connection?.close();
        await nats.cluster?.stop();
      },
      openAt: (dir) => {
        if (nats.connection === undefined) throw new Error("the NATS cluster did not start");
        // The stream is the journal's "directory": a test's reopen finds the same stream.
        return JetStreamJournal.open({ messaging: new NatsMessaging(nats.connection), name: `contract-${path.basename(dir).replace(/[^A-Za-z0-9]/g, "")}` });
      },
    },
  ],
];

describe.each(implementations)("%s keeps the journal contract", (_name, { openAt, start, stop }) => {
  beforeAll(async () => start?.(), 60_000);
  afterAll(async () => stop?.());

  async function openJournal(dir: string): Promise<Journal> {
    const journal = await openAt(dir);
    open.push(journal);
    return journal;
  }

  it("starts empty: sequence 0, no snapshot, nothing to read", async () => {
    const journal = await openJournal(tempDir());
    expect(journal.lastSequence).toBe(0);
    expect(journal.snapshot).toBeUndefined();
    expect(await readAll(journal)).toEqual([]);
    expect(journal.recovery).toEqual({ truncatedBytes: 0, entriesTrusted: 0, snapshotIgnored: null });
  });

  it("appends batches in order and reads each entry back by position and from a sequence", async () => {
    const journal = await openJournal(tempDir());
    const first = await journal.append([bytes("a"), bytes("b")]);
    const second = await journal.append([bytes("c")]);
    expect(journal.lastSequence).toBe(3);
    const positions = [...first, ...second];
    // Opaque, but ascending in append order (journal.ts).
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(positions).size).toBe(3);
    const byPosition = await Promise.all(positions.map((position) => journal.readAt(position)));
    expect(byPosition.map((entry) => text(entry.payload))).toEqual(["a", "b", "c"]);
    expect(byPosition.map((entry) => entry.sequence)).toEqual([1, 2, 3]);
    const all = await readAll(journal);
    expect(all.map((entry) => [entry.sequence, entry.position, text(entry.payload)])).toEqual([
      [1, positions[0], "a"],
      [2, positions[1], "b"],
      [3, positions[2], "c"],
    ]);
    expect((await readAll(journal, 2)).map((entry) => text(entry.payload))).toEqual(["c"]);
    expect(journal.sizeBytes).toBeGreaterThan(0);
  });

  it("refuses an append whose expected last sequence is not the journal's, and appends nothing", async () => {
    const journal = await openJournal(tempDir());
    await journal.append([bytes("a")]);
    const refusal = await journal.append([bytes("b")], { expectedLastSequence: 0 }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(JournalFencedError);
    expect(refusal).toMatchObject({ expectedLastSequence: 0, lastSequence: 1 });
    expect(journal.lastSequence).toBe(1);
    expect(await journal.append([bytes("b")], { expectedLastSequence: 1 })).toHaveLength(1);
    expect((await readAll(journal)).map((entry) => text(entry.payload))).toEqual(["a", "b"]);
  });

  it("streams every entry in order, however many", async () => {
    const journal = await openJournal(tempDir());
    const count = 3000;
    for (let from = 0; from < count; from += 500) {
      await journal.append(Array.from({ length: 500 }, (_, i) => bytes(`entry-${from + i}`)));
    }
    const seen: number[] = [];
    await journal.read(0, (entry) => {
      expect(text(entry.payload)).toBe(`entry-${entry.sequence - 1}`);
      seen.push(entry.sequence);
    });
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  it("keeps what it acknowledged across a reopen, and hands over the newest snapshot", async () => {
    const dir = tempDir();
    const journal = await openJournal(dir);
    await journal.append([bytes("a"), bytes("b")]);
    expect(await journal.writeSnapshot(bytes("state after b"), 2)).toMatchObject({ sequence: 2 });
    const [position] = await journal.append([bytes("c")]);
    await journal.close();
    const reopened = await openJournal(dir);
    expect(reopened.lastSequence).toBe(3);
    expect(reopened.snapshot?.sequence).toBe(2);
    expect(text(reopened.snapshot?.payload ?? new Uint8Array())).toBe("state after b");
    expect((await readAll(reopened, 2)).map((entry) => text(entry.payload))).toEqual(["c"]);
    expect(text((await reopened.readAt(position as number)).payload)).toBe("c");
  });

  it("ends a read whose reader throws, rejecting with the reader's error", async () => {
    const journal = await openJournal(tempDir());
    for (let batch = 0; batch < 4; batch++) await journal.append(Array.from({ length: 5 }, (_, i) => bytes(`entry-${batch * 5 + i + 1}`)));
    class Enough extends Error {}
    const seen: number[] = [];
    const ended = await journal
      .read(3, (entry) => {
        seen.push(entry.sequence);
        if (entry.sequence === 12) throw new Enough("enough");
      })
      .catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(Enough);
    expect(seen).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // The journal reads on afterwards.
    expect((await readAll(journal, 18)).map((entry) => text(entry.payload))).toEqual(["entry-19", "entry-20"]);
  });

  it("refuses appends after close", async () => {
    const journal = await openJournal(tempDir());
    await journal.append([bytes("a")]);
    await journal.close();
    await expect(journal.append([bytes("b")])).rejects.toThrow();
  });
});

describe("WorkerJournal", () => {
  it("reads entries appended after its last read by position (its view of the segments follows the appends)", async () => {
    const journal = await WorkerJournal.open({ dir: tempDir(), segmentSizeBytes: 4096 });
    open.push(journal);
    const positions: number[] = [];
    for (let i = 0; i < 60; i++) {
      positions.push(...(await journal.append([bytes(`entry-${i}-${"x".repeat(200)}`)])));
      expect(text((await journal.readAt(positions[i] as number)).payload).startsWith(`entry-${i}-`)).toBe(true);
    }
    expect(journal.readView().segments.length).toBeGreaterThan(1);
  });

  it("rejects the open when the journal cannot be opened, naming why", async () => {
    const file = path.join(tempDir(), "not-a-directory");
    fs.writeFileSync(file, "x");
    await expect(WorkerJournal.open({ dir: file })).rejects.toThrow(/not-a-directory/);
  });

  it("fails for good when its thread dies: the pending append and every later request are rejected", async () => {
    const journal = await WorkerJournal.open({ dir: tempDir() });
    open.push(journal);
    await journal.append([bytes("a")]);
    const pending = journal.append([bytes("b")]);
    // The worker's death, as a crash of its thread would look from here.
    await (journal as unknown as { worker: Worker }).worker.terminate();
    await expect(pending).rejects.toThrow(/journal worker/);
    await expect(journal.append([bytes("c")])).rejects.toThrow(/journal worker/);
    await expect(journal.writeSnapshot(bytes("s"), 1)).rejects.toThrow(/journal worker/);
  });
});
