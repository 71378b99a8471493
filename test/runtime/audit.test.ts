import { execFile } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoFromMs, type Command } from "../../engine/index.js";
import { ManualClock } from "../../engine/clock.js";
import { commandFingerprint } from "../../engine/idempotency/fingerprint.js";
import { MarketRuntime } from "../../engine/runtime/market-runtime.js";
import { replayDataDir, replayMarketRecord, verifyDataDir } from "../../engine/replay/audit-replay.js";
import { FRAME_HEADER_BYTES, SEGMENT_HEADER_BYTES, SegmentLog, SnapshotStore, crc32c } from "../../storage/index.js";
import { shardOfMarket } from "../../engine/runtime/shard-routing.js";
import { decodeShardSnapshot, encodeShardSnapshot } from "../../engine/runtime/shard-snapshot.js";
import { snapshotPayloadOf } from "../../engine/journal/file-journal.js";
import { T0, auction, commands, directClaim, tempDir } from "./support.js";
import { CLI_JS } from "../process/support.js";
import { jsonText } from "../../engine/shard-protocol/shard-protocol.js";

const run = promisify(execFile);
const fp = (c: Command) => {
  const { occurredAtMs: _t, ...content } = c;
  return commandFingerprint(c.type, content);
};

let base: { dir: string; cleanup: () => void };
const liveHashes = new Map<string, string>();

/** A live runtime on `dataDir` with a controlled clock; `send` advances the clock 7 ms and submits. */
async function openRuntime(dataDir: string, shardCount: number): Promise<{ runtime: MarketRuntime; send: (c: Command) => Promise<void> }> {
  const clock = new ManualClock(T0);
  const { runtime } = await MarketRuntime.open({ dataDir, shardCount, clock, controlledClock: true, checkpointEverySeconds: 0, onFatal: () => undefined });
  const send = async (c: Command): Promise<void> => {
    clock.advance(7);
    await runtime.submit(c, fp(c));
  };
  return { runtime, send };
}

/** A data directory with two shards, a checkpoint in the middle, and a log tail after it. */
beforeAll(async () => {
  base = tempDir("audit");
  const { runtime, send } = await openRuntime(base.dir, 2);
  for (let m = 0; m < 6; m += 1) {
    await send(commands.create("alice", `m${m}`, directClaim({ capacity: 5, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: 60 })));
    await send(commands.publish("alice", `m${m}`));
  }
  await send(commands.create("alice", "auc", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 600_000), holdDurationSeconds: 60 })));
  await send(commands.publish("alice", "auc"));
  for (let i = 0; i < 30; i += 1) await send(commands.claim(`p${i}`, `m${i % 6}`));
  await send(commands.bid("bob", "auc", 4_242));
  await runtime.checkpoint();
  for (let i = 30; i < 45; i += 1) await send(commands.claim(`p${i}`, `m${i % 6}`));
  for (const id of ["m0", "m1", "m2", "m3", "m4", "m5", "auc"]) {
    const reply = await runtime.readRecord(id, "alice");
    if (!reply.ok) throw new Error(reply.message);
    liveHashes.set(id, JSON.parse(jsonText(reply.json)).integrity.recordHash);
  }
  // Stop without the final snapshot so the newest snapshots are older than the log.
  await runtime.close();
});

afterAll(() => base.cleanup());

/** A shard's first segment file: its name, path and bytes. */
function firstSegment(dataDir: string, shard: string): { segment: string; file: string; bytes: Buffer } {
  const shardDir = path.join(dataDir, "shards", shard);
  const segment = readdirSync(shardDir).filter((n) => n.endsWith(".seg")).sort()[0] as string;
  const file = path.join(shardDir, segment);
  return { segment, file, bytes: readFileSync(file) };
}

/** Flip one byte of an early frame of a shard's first segment. */
function damage(dataDir: string, shard: string): void {
  const { file, bytes } = firstSegment(dataDir, shard);
  bytes[300] = (bytes[300] as number) ^ 1;
  writeFileSync(file, bytes);
}

/** Runs `use` on a fresh copy of the base data directory (tests damage it), then removes the copy. */
async function withCopyOfBase(use: (copy: { dir: string }) => Promise<void>): Promise<void> {
  const copy = tempDir("audit-copy");
  try {
    cpSync(base.dir, copy.dir, { recursive: true });
    await use(copy);
  } finally {
    copy.cleanup();
  }
}

describe.each([1, 2])("audit replay and verify, %i thread(s)", (threads) => {
  it("replays the raw logs to the same record hashes the live service reported", async () => {
    await withCopyOfBase(async (copy) => {
      const result = await replayDataDir(copy.dir, { threads });
      expect(result.shards).toBe(2);
      expect(result.commands).toBe(6 * 2 + 2 + 45 + 1);
      expect(new Map(result.markets.map((m) => [m.marketId, m.recordHash]))).toEqual(liveHashes);
      expect(result.markets.every((m) => m.stateReconstructed)).toBe(true);
      const record = replayMarketRecord(copy.dir, "auc");
      expect(record?.integrity.recordHash).toBe(liveHashes.get("auc"));
      // Still open: the bid amount stays sealed in the replayed record too.
      expect(JSON.stringify(record)).not.toContain("4242");
    });
  });

  it("gives the same hashes whether the records' commands were kept from the first pass, partly kept, or read again", async () => {
    await withCopyOfBase(async (copy) => {
      const kept = await replayDataDir(copy.dir, { threads });
      // A budget of a few frames: the first markets' earliest commands are kept, the rest re-read.
      for (const keptPayloadBytes of [0, 1_500]) {
        const result = await replayDataDir(copy.dir, { threads, keptPayloadBytes });
        expect(result.markets).toEqual(kept.markets);
        expect(await verifyDataDir(copy.dir, { threads, keptPayloadBytes })).toMatchObject({ ok: true, replay: { markets: kept.markets } });
      }
      expect(new Map(kept.markets.map((m) => [m.marketId, m.recordHash]))).toEqual(liveHashes);
    });
  });

  it("verifies CRCs, the chain and every shard's snapshot", async () => {
    await withCopyOfBase(async (copy) => {
      const result = await verifyDataDir(copy.dir, { threads });
      expect(result.problem).toBeUndefined();
      expect(result.ok).toBe(true);
      expect(result.snapshotsCompared).toBe(2);
    });
  });

  it("names the file and offset of a flipped payload byte", async () => {
    await withCopyOfBase(async (copy) => {
      const { segment, file, bytes } = firstSegment(copy.dir, "00");
      const offset = 200; // inside an early frame
      bytes[offset] = (bytes[offset] as number) ^ 0xff;
      writeFileSync(file, bytes);
      const result = await verifyDataDir(copy.dir, { threads });
      expect(result.ok).toBe(false);
      expect(result.problem).toContain(segment);
      expect(result.problem).toMatch(/offset|crc/i);
    });
  });

  it("detects a payload edited with a recomputed CRC through the hash chain", async () => {
    await withCopyOfBase(async (copy) => {
      const { file, bytes } = firstSegment(copy.dir, "01");
      // Edit the first frame's payload (same length, so it still parses), then fix its CRC: only
      // the hash chain can tell.
      const frameStart = SEGMENT_HEADER_BYTES;
      const payloadLength = bytes.readUInt32LE(frameStart);
      const payloadStart = frameStart + FRAME_HEADER_BYTES;
      const i = bytes.indexOf(Buffer.from("alice"), payloadStart);
      expect(i).toBeGreaterThan(payloadStart);
      expect(i).toBeLessThan(payloadStart + payloadLength);
      bytes.write("mally", i); // same length: the frame still parses
      const crc = crc32c(bytes.subarray(frameStart + 8, payloadStart + payloadLength));
      bytes.writeUInt32LE(crc, frameStart + 4);
      writeFileSync(file, bytes);
      const result = await verifyDataDir(copy.dir, { threads });
      expect(result.ok).toBe(false);
      expect(result.problem).toMatch(/chain/i);
    });
  });

  it("reports a snapshot that disagrees with the log, naming the market", async () => {
    await withCopyOfBase(async (copy) => {
      const snapshotsDir = path.join(copy.dir, "shards", "00", "snapshots");
      const store = new SnapshotStore({ dir: snapshotsDir });
      const newest = store.loadNewestValid().snapshot;
      if (newest === null) throw new Error("expected a snapshot");
      const decoded = decodeShardSnapshot(snapshotPayloadOf(newest.payload));
      if ("unreadableVersion" in decoded) throw new Error("the snapshot just written is of another version");
      const victim = decoded.markets[0];
      if (victim === undefined) throw new Error("expected a market in shard 0");
      victim.agg.market.version += 1;
      await store.write({ lsn: newest.lsn, chainHead: newest.chainHead, payloadParts: [encodeShardSnapshot(decoded, decoded.markets)] });
      const result = await verifyDataDir(copy.dir, { threads });
      expect(result.ok).toBe(false);
      expect(result.problem).toContain(JSON.stringify(victim.agg.market.id));
    });
  });

  it("runs as a CLI: verify exits 0, replay --market prints the record, corruption exits 1", async () => {
    await withCopyOfBase(async (copy) => {
      const verified = await run(process.execPath, [CLI_JS, "verify", "--data", copy.dir, "--threads", String(threads)]);
      expect(verified.stderr).toMatch(/verified 60 commands from 2 shard\(s\)/);
      expect(verified.stdout).toContain(liveHashes.get("m3"));
      const record = await run(process.execPath, [CLI_JS, "replay", "--data", copy.dir, "--market", "m3", "--json", "--threads", String(threads)]);
      expect(JSON.parse(record.stdout).integrity.recordHash).toBe(liveHashes.get("m3"));
      damage(copy.dir, "01");
      await expect(run(process.execPath, [CLI_JS, "verify", "--data", copy.dir, "--threads", String(threads)])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/verify: FAILED: shard 1/) });
    });
  });
});

describe("audit across shards", () => {
  it("refuses a --threads that is not an integer from 1 to 256", async () => {
    for (const threads of ["0", "257", "two", "1.5"]) {
      await expect(run(process.execPath, [CLI_JS, "replay", "--data", base.dir, "--threads", threads])).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/--threads.*an integer from 1 to 256 is required/),
      });
    }
  });

  it("replays one market from the shard the service placed it on, without reading a damaged other shard", async () => {
    await withCopyOfBase(async (copy) => {
      const onShard1 = [...liveHashes.keys()].find((id) => shardOfMarket(id, 2) === 1);
      if (onShard1 === undefined) throw new Error("expected a market on shard 1");
      damage(copy.dir, "00");
      expect(() => SegmentLog.open({ dir: path.join(copy.dir, "shards", "00") })).toThrow(/\.seg/);
      expect(replayMarketRecord(copy.dir, onShard1)?.integrity.recordHash).toBe(liveHashes.get(onShard1));
    });
  });

  it("gives the same markets, hashes and counts with one thread and with one per shard", async () => {
    await withCopyOfBase(async (copy) => {
      const one = await replayDataDir(copy.dir, { threads: 1 });
      const two = await replayDataDir(copy.dir, { threads: 2 });
      expect(two.markets).toEqual(one.markets);
      expect({ shards: two.shards, commands: two.commands }).toEqual({ shards: one.shards, commands: one.commands });
      const progress: number[] = [];
      const verified = await verifyDataDir(copy.dir, { threads: 8, onProgress: ({ done }) => progress.push(done) });
      expect(verified.ok).toBe(true);
      expect(verified.replay.markets).toEqual(one.markets);
      expect(progress.at(-1)).toBe(one.commands);
    });
  });

  it("queues shards when there are more shards than threads: each is audited once, with the same results", async () => {
    const data = tempDir("audit-five-shards");
    try {
      const { runtime, send } = await openRuntime(data.dir, 5);
      for (let m = 0; m < 10; m += 1) {
        await send(commands.create("alice", `q${m}`, directClaim({ capacity: 3, pricing: { mode: "free" }, confirmation: "none" })));
        await send(commands.publish("alice", `q${m}`));
        for (let i = 0; i < 4; i += 1) await send(commands.claim(`p${i}`, `q${m}`));
      }
      await runtime.close();
      const one = await replayDataDir(data.dir, { threads: 1 });
      const two = await replayDataDir(data.dir, { threads: 2 });
      expect(one.shards).toBe(5);
      expect(new Set(one.markets.map((m) => m.shard)).size).toBeGreaterThan(2);
      expect(two.markets).toEqual(one.markets);
      expect(two.commands).toBe(one.commands);
      expect(await verifyDataDir(data.dir, { threads: 3 })).toMatchObject({ ok: true, replay: { markets: one.markets } });
    } finally {
      data.cleanup();
    }
  });

  it("reports the lowest shard's divergence whatever the thread count", async () => {
    await withCopyOfBase(async (copy) => {
      damage(copy.dir, "01");
      damage(copy.dir, "00");
      const one = await verifyDataDir(copy.dir, { threads: 1 });
      const two = await verifyDataDir(copy.dir, { threads: 2 });
      expect(one.ok).toBe(false);
      expect(one.problem).toMatch(/^shard 0: /);
      expect(two).toMatchObject({ ok: false, problem: one.problem, snapshotsCompared: one.snapshotsCompared });
    });
  });

  it("fails replay of a log damaged mid-way with the log's own error, on a worker as in the main thread", async () => {
    await withCopyOfBase(async (copy) => {
      damage(copy.dir, "01");
      const inMainThread = await replayDataDir(copy.dir, { threads: 1 }).then(() => "no error", (error: Error) => error.message);
      expect(inMainThread).toMatch(/\.seg/);
      await expect(replayDataDir(copy.dir, { threads: 2 })).rejects.toThrow(inMainThread);
    });
  });
});
