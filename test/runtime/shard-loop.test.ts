/**
 * The shard's loop answers a batch's reads after its commit without holding up the batches after
 * it: a read that waits on the journal (an old reply replayed from a partition's stream can take
 * seconds) must not stall the commands that arrive meanwhile; in cluster mode a batch after one of
 * company waits for more (decision I69). Real file journal in a temp dir; its `readAt` held back by a
 * gate the test opens; the wait's time stepped by the test.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { FileJournal } from "../../engine/journal/file-journal.js";
import type { Journal } from "../../engine/journal/journal.js";
import { ShardCore } from "../../engine/runtime/shard-core.js";
import { ShardLoop } from "../../engine/runtime/shard-loop.js";
import { GATHER_UP_TO_REQUESTS } from "../../engine/runtime/batch-gathering.js";
import { packRequests, unpackResponses } from "../../engine/runtime/wire.js";
import { envelope, type FromShard } from "../../engine/runtime/worker-messages.js";
import { systemTimers } from "../../engine/timers.js";
import { marketRead, replyAtRead, type CommandResponse, type ShardRequest, type ShardResponse } from "../../engine/shard-protocol/shard-protocol.js";
import { eventually } from "../process/support.js";
import { SteppedTimers } from "../support/stepped-timers.js";
import { T0, commands, directClaim, okJson, replyOf, request, tempDir } from "./support.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** The journal with its `readAt` waiting for `open()`. */
function gatedReads(journal: FileJournal): { journal: Journal; open(): void } {
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const gated = new Proxy(journal, {
    get(target, property) {
      if (property === "readAt") return async (position: number) => gate.then(() => target.readAt(position));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { journal: gated, open };
}

/** Sends batches to a loop and keeps what it posts: every message in order, and the answers by request id. */
function loopDriver(clock: ManualClock) {
  const posted: FromShard[] = [];
  const answers = new Map<number, ShardResponse>();
  let read = 0;
  let nextId = 1;
  let loop: ShardLoop | undefined;
  const collect = (): void => {
    for (; read < posted.length; read += 1) {
      const message = posted[read] as FromShard;
      if (message.t === "batch" || message.t === "answers") for (const item of unpackResponses(message.items)) answers.set(item.id, item.body);
    }
  };
  return {
    post: (message: FromShard): void => void posted.push(message),
    drive(driven: ShardLoop): void {
      loop = driven;
    },
    /** Sends one batch; returns its requests' ids. */
    send(requests: ShardRequest[]): number[] {
      const ids = requests.map(() => nextId++);
      loop?.receive({ t: "batch", nowMs: clock.nowMs(), items: packRequests(requests.map((body, i) => envelope(ids[i] as number, body))) });
      return ids;
    },
    answers,
    /** A condition: every one of `ids` answered. */
    answered: (ids: readonly number[]) => (): boolean => {
      collect();
      return ids.every((id) => answers.has(id));
    },
    /** The kinds of the messages posted so far, in order. */
    kinds: (): Array<FromShard["t"]> => posted.map((message) => message.t),
    /** The messages posted so far of kind `t`. */
    seen<T extends FromShard["t"]>(t: T): Array<Extract<FromShard, { t: T }>> {
      collect();
      return posted.filter((message): message is Extract<FromShard, { t: T }> => message.t === t);
    },
  };
}

describe("the shard loop", () => {
  it("answers a batch's commands, and later batches', while its read waits on the journal", async () => {
    const dir = tempDir("shard-loop");
    cleanups.push(dir.cleanup);
    const { journal, open } = gatedReads(FileJournal.open({ dir: dir.dir }));
    const clock = new ManualClock(T0);
    const driver = loopDriver(clock);
    const loop = new ShardLoop({
      // No reply kept: an old reply is read back from the journal.
      open: async () => ({ opened: await ShardCore.open({ journal, shardIndex: 0, clock, replyCacheEntries: 0 }), close: () => Promise.resolve() }),
      post: driver.post,
      exit: () => undefined,
      timers: systemTimers,
      controlled: clock,
      tickIntervalMs: 100,
      snapshotEveryCommands: undefined,
    });
    driver.drive(loop);
    const { send, answers, answered } = driver;

    const setup = send([
      request(commands.create("alice", "m", directClaim({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" }))),
      request(commands.publish("alice", "m")),
      request(commands.claim("bob", "m")),
    ]);
    await eventually(answered(setup), 10_000, "the first batch's answers");
    const claimed = answers.get(setup[2] as number) as CommandResponse;
    // The claim's old reply, read back from the journal (held back), in a batch of its own; once
    // that batch is through (its "batch" message, with no answer yet), a claim in the next one.
    const batches = (): number => driver.seen("batch").length;
    const before = batches();
    const [read] = send([replyAtRead(claimed.position)]);
    await eventually(() => batches() > before, 10_000, "the read's batch processed");
    const [next] = send([request(commands.claim("carol", "m"))]);
    await eventually(answered([next as number]), 10_000, "the next batch's claim answered while the read waits");
    expect(okJson(answers.get(next as number)).market.mechanismState.allocated).toBe(2);
    expect(answers.has(read as number)).toBe(false);
    open();
    await eventually(answered([read as number]), 10_000, "the read answered once the journal gives its entry");
    // The old reply is the claim's own: one claim allocated then, whatever came after.
    const replayed = replyOf(answers.get(read as number));
    expect(replayed).toEqual(replyOf(claimed));
    loop.receive({ t: "close" });
    await eventually(() => driver.seen("closed").length === 1, 10_000, "the loop closed");
  });
});

/**
 * The journal as one on a stream behaves for snapshots (Journal.writeSnapshot): the mark handed to
 * `besideFirst` and awaited before the snapshot is stored; storing itself held back by a gate.
 */
function streamLikeSnapshots(journal: FileJournal): { journal: Journal; stored: number[]; open(): void } {
  // Stored in `stored` only: the file journal would label a snapshot with its last sequence as of the write.
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const stored: number[] = [];
  const writeSnapshot: Journal["writeSnapshot"] = async (payload, _keep, besideFirst) => {
    const sequence = journal.lastSequence;
    await besideFirst?.({ sequence, streamSequence: sequence, batchId: `batch-${sequence}` });
    await gate;
    stored.push(sequence);
    return { sequence, sizeBytes: payload.length };
  };
  const wrapped = new Proxy(journal, {
    get(target, property) {
      if (property === "writeSnapshot") return writeSnapshot;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { journal: wrapped, stored, open };
}

describe("the shard loop's snapshots by count (decision I60)", () => {
  it("store the shard's snapshot only after the node says it stored what it keeps beside it, and answer batches meanwhile, asked for or not", async () => {
    const dir = tempDir("shard-loop-snapshot");
    cleanups.push(dir.cleanup);
    const file = FileJournal.open({ dir: dir.dir });
    const { journal, stored, open } = streamLikeSnapshots(file);
    const clock = new ManualClock(T0);
    const driver = loopDriver(clock);
    const loop = new ShardLoop({
      open: async () => ({ opened: await ShardCore.open({ journal, shardIndex: 0, clock }), close: () => Promise.resolve() }),
      post: driver.post,
      exit: () => undefined,
      timers: systemTimers,
      controlled: clock,
      tickIntervalMs: 100,
      snapshotEveryCommands: 3,
    });
    driver.drive(loop);
    const { send, answered } = driver;
    const marks = (): number[] => driver.seen("snapshotting").map((message) => message.mark.sequence);

    const first = send([
      request(commands.create("alice", "m", directClaim({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" }))),
      request(commands.publish("alice", "m")),
      request(commands.claim("bob", "m")),
    ]);
    await eventually(answered(first), 10_000, "the first batch answered");
    await eventually(() => marks().length === 1, 10_000, "the snapshot's mark posted");
    const mark = marks()[0] as number;
    // Its replies were posted before its mark: the node's index holds them when it snapshots it.
    expect(mark).toBe(3);
    expect(driver.kinds().indexOf("snapshotting")).toBeGreaterThan(driver.kinds().indexOf("batch"));
    // The node has not answered: the loop goes on, and stores nothing.
    const [next] = send([request(commands.claim("carol", "m"))]);
    await eventually(answered([next as number]), 10_000, "a later batch answered while the snapshot waits");
    open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(stored).toEqual([]);
    loop.receive({ t: "besideStored", sequence: mark });
    await eventually(() => stored.length === 1, 10_000, "the shard's snapshot stored once the node answered");
    expect(stored).toEqual([mark]);
    // A snapshot asked for (a checkpoint) holds up no batch either: it is answered once stored.
    loop.receive({ t: "snapshot", id: 99 });
    await eventually(() => marks().length === 2, 10_000, "the asked snapshot's mark posted");
    expect(marks()[1]).toBe(4);
    const [after] = send([request(commands.claim("dave", "m"))]);
    await eventually(answered([after as number]), 10_000, "a batch answered while the asked snapshot waits");
    expect(driver.seen("snapshot")).toEqual([]);
    loop.receive({ t: "besideStored", sequence: 4 });
    await eventually(() => driver.seen("snapshot").length === 1, 10_000, "the asked snapshot answered once stored");
    expect(driver.seen("snapshot")[0]).toMatchObject({ id: 99, lsn: 4 });
    // A close snapshots what came since, beside first as well, and ends once that is stored.
    loop.receive({ t: "close" });
    await eventually(() => marks().length === 3, 10_000, "the close's snapshot's mark posted");
    expect(marks()[2]).toBe(5);
    loop.receive({ t: "besideStored", sequence: 5 });
    await eventually(() => driver.seen("closed").length === 1, 10_000, "the loop closed");
    expect(stored).toEqual([3, 4, 5]);
  });
});

describe("the shard loop's wait for company (cluster mode, decision I69)", () => {
  it("holds a batch that follows one of company until the wait ends or it is full, and never holds a lone client's", async () => {
    const dir = tempDir("shard-loop-gathering");
    cleanups.push(dir.cleanup);
    const journal = FileJournal.open({ dir: dir.dir });
    const clock = new ManualClock(T0);
    const timers = new SteppedTimers();
    const driver = loopDriver(clock);
    const lingerMs = 8;
    const loop = new ShardLoop({
      open: async () => ({ opened: await ShardCore.open({ journal, shardIndex: 0, clock }), close: () => Promise.resolve() }),
      post: driver.post,
      exit: () => undefined,
      timers,
      controlled: clock,
      tickIntervalMs: 100,
      snapshotEveryCommands: undefined,
      batchLingerMs: lingerMs,
    });
    driver.drive(loop);
    const { send, answered } = driver;
    /** The batch message (its index among them) that answered request `id`. */
    const batchOf = (id: number): number => driver.seen("batch").findIndex((message) => unpackResponses(message.items).some((item) => item.id === id));
    const turns = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
    };

    // The first batch follows none: it leaves at once (the clock never moves here).
    const setup = send([
      request(commands.create("alice", "m", directClaim({ capacity: 200, pricing: { mode: "free" }, confirmation: "none" }))),
      request(commands.publish("alice", "m")),
      request(commands.claim("bob", "m")),
    ]);
    await eventually(answered(setup), 10_000, "the first batch answered without waiting");

    // After a batch of three, the next waits: a claim sent turns later still joins it.
    const [carol] = send([request(commands.claim("carol", "m"))]);
    await turns(5);
    const [dave] = send([request(commands.claim("dave", "m"))]);
    await turns(5);
    expect(answered([carol as number, dave as number])()).toBe(false);
    await timers.step(lingerMs);
    await eventually(answered([carol as number, dave as number]), 10_000, "the held batch answered once its wait ended");
    expect(batchOf(carol as number)).toBe(batchOf(dave as number));

    // A batch of one follows a batch of two: it waits; then a lone client's next claim does not.
    const [erin] = send([request(commands.claim("erin", "m"))]);
    await turns(5);
    expect(answered([erin as number])()).toBe(false);
    await timers.step(lingerMs);
    await eventually(answered([erin as number]), 10_000, "erin's claim answered");
    const [frank] = send([request(commands.claim("frank", "m"))]);
    await eventually(answered([frank as number]), 10_000, "a claim after a batch of one answered without the clock moving");
    // Reads alone append nothing, and bring no company: the claim after them is not held either.
    const reads = send([marketRead("m"), marketRead("m")]);
    await eventually(answered(reads), 10_000, "two reads answered");
    const [after] = send([request(commands.claim("ivy", "m"))]);
    await eventually(answered([after as number]), 10_000, "a claim after a batch of reads answered without the clock moving");

    // A held batch leaves as soon as it holds GATHER_UP_TO_REQUESTS, without its wait ending.
    const pair = send([request(commands.claim("gina", "m")), request(commands.claim("hal", "m"))]);
    await eventually(answered(pair), 10_000, "a batch of two after a batch of one answered without waiting");
    const crowd = send(Array.from({ length: GATHER_UP_TO_REQUESTS - 1 }, (_, i) => request(commands.claim(`p${i}`, "m"))));
    await turns(5);
    expect(answered(crowd)()).toBe(false);
    const [last] = send([request(commands.claim("last", "m"))]);
    await eventually(answered([...crowd, last as number]), 10_000, "the full batch answered with the clock still");
    expect(new Set([...crowd, last as number].map(batchOf)).size).toBe(1);
    expect(timers.pending).toBe(0);

    loop.receive({ t: "close" });
    await eventually(() => driver.seen("closed").length === 1, 10_000, "the loop closed");
  });
});
