import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { WorkerPool } from "../../engine/pool/worker-pool.js";
import { completeReplayWork } from "../../engine/pool-worker/replay-work.js";
import { openFileShard, type ShardCore } from "../../engine/runtime/shard-core.js";
import { jsonText, logSource, replyWork, type ReplayWork, type ShardReply, type ShardResponse } from "../../engine/shard-protocol/shard-protocol.js";
import { decodeMarketImage, encodeMarketImage } from "../../engine/runtime/shard-snapshot.js";
import { plainDeepEqual } from "../../engine/plain-equal.js";
import { commitmentsOf } from "../../engine/rules/state/state.js";
import { T0, commands, directClaim, request, tempDir } from "./support.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A shard with one market holding `claims` claims (capacity 5: most refused, all recorded). */
async function shardWithClaims(claims: number): Promise<ShardCore> {
  const t = tempDir("replay-pool");
  cleanups.push(t.cleanup);
  const clock = new ManualClock(T0);
  const { core } = await openFileShard({ dir: t.dir, shardIndex: 0, clock, replyCacheEntries: 0 });
  cleanups.push(() => core.close());
  await core.processBatch([
    request(commands.create("alice", "m1", directClaim({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" }))),
    request(commands.publish("alice", "m1")),
  ]);
  for (let i = 0; i < claims; i += 10) {
    clock.advance(11);
    await core.processBatch(Array.from({ length: 10 }, (_, j) => request(commands.claim(`p${i + j}`, "m1"))));
  }
  return core;
}

function workOf(response: ShardResponse | undefined): ReplayWork {
  if (response?.kind !== "replay") throw new Error(`expected replay work, got ${JSON.stringify(response)}`);
  return response.work;
}

describe("replay off the shard thread", () => {
  it("a shard answers a record read and an old command's reply with replay work, not by replaying", async () => {
    const core = await shardWithClaims(40);
    const [record, reply] = await core.processBatch([
      { kind: "record", marketId: "m1", actorId: "alice" },
      { kind: "reply-at", position: 0 },
    ]);
    expect(workOf(record).kind).toBe("record");
    expect(workOf(reply).kind).toBe("reply");
    // Refusals are still the shard's own, immediate answers.
    const [forbidden] = await core.processBatch([{ kind: "record", marketId: "m1", actorId: "mallory" }]);
    expect(forbidden).toEqual({ kind: "read", reply: { ok: false, code: "forbidden", message: expect.any(String) } });
  });

  it("the market image carries the live state and record positions exactly", async () => {
    const core = await shardWithClaims(30);
    const work = workOf((await core.processBatch([{ kind: "record", marketId: "m1", actorId: "alice" }]))[0]);
    if (work.kind !== "record") throw new Error("record work expected");
    const image = decodeMarketImage(work.market);
    expect(image.positions.length).toBe(32);
    const again = decodeMarketImage(encodeMarketImage(image));
    expect(again.positions).toEqual(image.positions);
    expect(plainDeepEqual({ market: again.agg.market, commitments: commitmentsOf(again.agg) }, { market: image.agg.market, commitments: commitmentsOf(image.agg) })).toBe(true);
    expect(() => decodeMarketImage(Uint8Array.of(0x80))).toThrow(/unknown version/);
  });

  it("a worker pool thread gives the reply the in-process replay gives, reports a failed job, and refuses work after close", async () => {
    const core = await shardWithClaims(60);
    const pool = new WorkerPool(1);
    cleanups.push(() => pool.close());
    const record = workOf((await core.processBatch([{ kind: "record", marketId: "m1", actorId: "alice" }]))[0]);
    const reply = workOf((await core.processBatch([{ kind: "reply-at", position: 0 }]))[0]);
    const [fromWorker, replyFromWorker] = await Promise.all([pool.replay(record), pool.replay(reply)]);
    // The worker's JSON arrives as bytes (moved between threads); the text is the in-process replay's.
    const text = (reply: ShardReply) => (reply.ok ? { ok: true, json: jsonText(reply.json) } : reply);
    expect(Buffer.isBuffer(fromWorker.ok && fromWorker.json)).toBe(true);
    expect(text(fromWorker)).toEqual(text(completeReplayWork(record)));
    expect(text(replyFromWorker)).toEqual(text(completeReplayWork(reply)));
    const body = JSON.parse((text(fromWorker) as { json: string }).json);
    expect(body.commands.length).toBe(62);
    expect(body.integrity.stateReconstructed).toBe(true);
    expect(pool.running).toBe(1);

    // A position past the view's end: the job fails with the storage error, the worker stays.
    if (record.source.from !== "log") throw new Error("a file journal's shard hands over a view of its log");
    const log = record.source.log;
    const outside: ReplayWork = replyWork(logSource(log), new Uint8Array(new Float64Array([log.endPosition]).buffer));
    await expect(pool.replay(outside)).rejects.toThrow(/replay failed: RangeError: position \d+ is outside the durable log/);
    expect(text(await pool.replay(reply))).toEqual(text(replyFromWorker));
    expect(pool.running).toBe(1);

    await pool.close();
    await expect(pool.replay(reply)).rejects.toThrow(/closed/);
  });
});
