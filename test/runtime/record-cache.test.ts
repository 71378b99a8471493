import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { commandFingerprint } from "../../engine/idempotency/fingerprint.js";
import { MarketRuntime } from "../../engine/runtime/market-runtime.js";
import { RecordCache, type RecordWork } from "../../engine/runtime/record-cache.js";
import { jsonText, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";
import type { Command } from "../../engine/index.js";
import { T0, commands, directClaim, tempDir } from "./support.js";

/** A record work item; the cache reads only the market id and the record length. */
const work = (marketId: string, recordLength: number): RecordWork => ({
  kind: "record",
  marketId,
  recordLength,
  market: new Uint8Array(0),
  source: { from: "log", log: { dir: "/nonexistent", segments: [], endPosition: 0 } },
});

/** A replay that answers JSON of a given size and counts its calls; `gate` holds it until released. */
function replayer(sizeBytes = 10) {
  const calls: RecordWork[] = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  return {
    calls,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    run: async (w: RecordWork): Promise<ShardReply> => {
      calls.push(w);
      await gate;
      return { ok: true, json: Buffer.from(`"${w.marketId}:${w.recordLength}".`.padEnd(sizeBytes, " ")) };
    },
  };
}

describe("RecordCache", () => {
  it("answers an unchanged record from memory and replays a record that has grown", async () => {
    const cache = new RecordCache(1_000, 1);
    const replay = replayer();
    const first = await cache.answer(work("m", 3), replay.run);
    const again = await cache.answer(work("m", 3), replay.run);
    expect(again).toBe(first);
    expect(replay.calls).toHaveLength(1);
    const grown = await cache.answer(work("m", 4), replay.run);
    expect(grown.ok && jsonText(grown.json)).toContain("m:4");
    expect(replay.calls).toHaveLength(2);
    expect(cache.stats).toMatchObject({ hits: 1, replays: 2, entries: 1, sizeBytes: 10 });
  });

  it("lets overlapping reads of one record share a replay, but not reads of different lengths", async () => {
    const cache = new RecordCache(1_000, 1);
    const replay = replayer();
    replay.hold();
    const a = cache.answer(work("m", 5), replay.run);
    const b = cache.answer(work("m", 5), replay.run);
    const c = cache.answer(work("m", 6), replay.run);
    replay.release();
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect(rb).toBe(ra);
    expect(rc).not.toBe(ra);
    expect(replay.calls.map((w) => w.recordLength)).toEqual([5, 6]);
    expect(cache.stats).toMatchObject({ shared: 1, replays: 2 });
    // The longer record is the one kept, whichever replay finished last.
    expect(await cache.answer(work("m", 6), replay.run)).toBe(rc);
  });

  it("evicts the least recently used records to stay within its bound, and keeps none larger than it", async () => {
    const cache = new RecordCache(30, 1);
    const replay = replayer(10);
    for (const id of ["a", "b", "c"]) await cache.answer(work(id, 1), replay.run);
    await cache.answer(work("a", 1), replay.run); // a is now the most recent
    await cache.answer(work("d", 1), replay.run); // evicts b
    expect(cache.stats).toMatchObject({ entries: 3, sizeBytes: 30 });
    const before = replay.calls.length;
    await cache.answer(work("a", 1), replay.run);
    await cache.answer(work("c", 1), replay.run);
    await cache.answer(work("d", 1), replay.run);
    expect(replay.calls.length).toBe(before);
    await cache.answer(work("b", 1), replay.run);
    expect(replay.calls.length).toBe(before + 1);

    const small = new RecordCache(5, 1);
    const big = replayer(10);
    await small.answer(work("x", 1), big.run);
    await small.answer(work("x", 1), big.run);
    expect(big.calls).toHaveLength(2);
    expect(small.stats).toMatchObject({ entries: 0, sizeBytes: 0 });
  });

  it("keeps no refusal and no failure", async () => {
    const cache = new RecordCache(1_000, 1);
    let calls = 0;
    const refuse = async (): Promise<ShardReply> => {
      calls += 1;
      return { ok: false, code: "internal_error", message: "replay failed" };
    };
    await cache.answer(work("m", 1), refuse);
    await cache.answer(work("m", 1), refuse);
    expect(calls).toBe(2);
    const fail = async (): Promise<ShardReply> => {
      calls += 1;
      throw new Error("worker died");
    };
    await expect(cache.answer(work("m", 1), fail)).rejects.toThrow("worker died");
    await expect(cache.answer(work("m", 1), fail)).rejects.toThrow("worker died");
    expect(calls).toBe(4);
    expect(cache.stats.entries).toBe(0);
  });

  it("keeps only records of at least its minimum length: a shorter one is replayed on every read", async () => {
    const cache = new RecordCache(1_000, 4);
    const replay = replayer();
    await cache.answer(work("short", 3), replay.run);
    await cache.answer(work("short", 3), replay.run);
    expect(replay.calls).toHaveLength(2);
    expect(cache.stats).toMatchObject({ entries: 0, sizeBytes: 0, hits: 0, replays: 2 });
    const long = await cache.answer(work("long", 4), replay.run);
    expect(await cache.answer(work("long", 4), replay.run)).toBe(long);
    expect(replay.calls).toHaveLength(3);
    expect(cache.stats).toMatchObject({ entries: 1, sizeBytes: 10, hits: 1 });
  });

  it("keeps nothing shorter than 1,000 commands by default", async () => {
    const cache = new RecordCache();
    const replay = replayer();
    for (const length of [1, 999, 999]) await cache.answer(work("m", length), replay.run);
    expect(cache.stats).toMatchObject({ entries: 0, hits: 0, replays: 3 });
    await cache.answer(work("m", 1_000), replay.run);
    await cache.answer(work("m", 1_000), replay.run);
    expect(cache.stats).toMatchObject({ entries: 1, hits: 1, replays: 4 });
  });

  it("refuses a bound that is not a non-negative integer", () => {
    expect(() => new RecordCache(-1)).toThrow(RangeError);
    expect(() => new RecordCache(1.5)).toThrow(RangeError);
    expect(() => new RecordCache(10, -1)).toThrow(RangeError);
    expect(() => new RecordCache(10, 0.5)).toThrow(RangeError);
  });
});

describe("record reads through the runtime (real shards, real worker pool)", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });

  const submit = (runtime: MarketRuntime, command: Command) => {
    const { occurredAtMs: _t, ...content } = command;
    return runtime.submit(command, commandFingerprint(command.type, content));
  };
  const record = async (runtime: MarketRuntime, marketId: string) => {
    const reply = await runtime.readRecord(marketId, "alice");
    if (!reply.ok) throw new Error(`${reply.code}: ${reply.message}`);
    return JSON.parse(jsonText(reply.json)) as { commands: Array<{ id: string }>; integrity: { recordHash: string } };
  };

  it("replays a record once while it is unchanged, and again when a command (accepted or rejected) or a deadline is recorded", async () => {
    const t = tempDir("record-cache");
    cleanups.push(t.cleanup);
    const clock = new ManualClock(T0);
    // Every record is kept here, short ones included: this test is about when a kept one is stale.
    const { runtime } = await MarketRuntime.open({ dataDir: t.dir, shardCount: 1, clock, controlledClock: true, checkpointEverySeconds: 0, recordCacheMinLength: 1, onFatal: () => undefined });
    cleanups.push(() => runtime.close());
    await submit(runtime, commands.create("alice", "m", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "creator", holdDurationSeconds: 60 })));
    await submit(runtime, commands.publish("alice", "m"));
    await submit(runtime, commands.claim("bob", "m", "bob-1"));

    const first = await record(runtime, "m");
    const second = await record(runtime, "m");
    expect(second).toEqual(first);
    expect(runtime.recordCacheStats).toMatchObject({ replays: 1, hits: 1 });

    // A rejected claim is recorded too: the record grows, so it is replayed again.
    expect((await submit(runtime, commands.claim("carol", "m", "carol-1"))).reply).toMatchObject({ ok: false, code: "capacity_exhausted" });
    const third = await record(runtime, "m");
    expect(third.commands.map((c) => c.id).slice(-2)).toEqual(["bob-1", "carol-1"]);
    expect(third.integrity.recordHash).not.toBe(first.integrity.recordHash);
    expect(runtime.recordCacheStats).toMatchObject({ replays: 2, hits: 1 });

    // Bob's hold expires: the shard records commitment.expire, and the record changes with it.
    clock.advance(61_000);
    runtime.publishTime();
    let expired = third;
    for (let i = 0; i < 50 && expired.commands.length === third.commands.length; i += 1) expired = await record(runtime, "m");
    expect(expired.commands.length).toBe(third.commands.length + 1);

    // Reads that overlap share one replay.
    const before = runtime.recordCacheStats;
    await submit(runtime, commands.claim("dave", "m", "dave-1"));
    const [x, y] = await Promise.all([record(runtime, "m"), record(runtime, "m")]);
    expect(y).toEqual(x);
    const after = runtime.recordCacheStats;
    expect(after.replays - before.replays + after.hits - before.hits + after.shared - before.shared).toBe(2);
    expect(after.replays - before.replays).toBe(1);
  });

  it("by default keeps no short record: each read replays it, identical every time", async () => {
    const t = tempDir("record-cache");
    cleanups.push(t.cleanup);
    const clock = new ManualClock(T0);
    const { runtime } = await MarketRuntime.open({ dataDir: t.dir, shardCount: 1, clock, controlledClock: true, checkpointEverySeconds: 0, onFatal: () => undefined });
    cleanups.push(() => runtime.close());
    await submit(runtime, commands.create("alice", "s", directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "none" })));
    await submit(runtime, commands.publish("alice", "s"));
    const reads = [await record(runtime, "s"), await record(runtime, "s"), await record(runtime, "s")];
    expect(reads[1]).toEqual(reads[0]);
    expect(reads[2]).toEqual(reads[0]);
    expect(runtime.recordCacheStats).toMatchObject({ replays: 3, hits: 0, entries: 0, sizeBytes: 0 });
  });
});
