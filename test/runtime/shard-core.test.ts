import { renameSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Packr } from "msgpackr";
import { ManualClock } from "../../engine/clock.js";
import { FileJournal } from "../../engine/journal/file-journal.js";
import { openFileShard, type ShardCore } from "../../engine/runtime/shard-core.js";
import { isoFromMs } from "../../engine/index.js";
import { jsonText } from "../../engine/shard-protocol/shard-protocol.js";
import { T0, auction, codeOf, commands, directClaim, okJson, replyOf, request, tempDir } from "./support.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function openShard(dir: string, clock: ManualClock, extra: { reportIdempotencyAfterLsn?: number; replyCacheEntries?: number; replyCacheChars?: number } = {}) {
  return openFileShard({ dir, shardIndex: 0, clock, ...extra });
}

function freshDir(): string {
  const t = tempDir("shard");
  cleanups.push(t.cleanup);
  return t.dir;
}

describe("ShardCore durability and recovery", () => {
  it("stamps server time, replies only after commit, and recovers every acknowledged command", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    const [created, published] = await core.processBatch([
      request(commands.create("alice", "m1", directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "none" }))),
      request(commands.publish("alice", "m1")),
    ]);
    expect(okJson(created).market.createdAt).toBe(isoFromMs(T0));
    expect(okJson(published).market.state).toBe("open");
    clock.advance(5);
    const [claim] = await core.processBatch([request(commands.claim("bob", "m1"))]);
    expect(okJson(claim).market.mechanismState.allocated).toBe(1);
    const liveRecord = okJson((await core.processBatch([{ kind: "record", marketId: "m1", actorId: "alice" }]))[0]);
    core.close();

    const reopened = await openShard(dir, clock);
    expect(reopened.report.framesReplayed).toBe(3);
    expect(reopened.report.markets).toBe(1);
    const record = okJson((await reopened.core.processBatch([{ kind: "record", marketId: "m1", actorId: "alice" }]))[0]);
    expect(record.integrity.recordHash).toBe(liveRecord.integrity.recordHash);
    expect(record.integrity.stateReconstructed).toBe(true);
    reopened.core.close();
  });

  it("reports idempotency entries of client commands, not of system commands", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    const responses = await core.processBatch([
      request(commands.create("alice", "a1", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 1000), holdDurationSeconds: 60 }), "c-1"), "fp-1"),
      request(commands.publish("alice", "a1", 1, "c-2"), "fp-2"),
    ]);
    clock.advance(1000);
    await core.tick(); // resolves the auction: a system command
    core.close();
    const reopened = await openShard(dir, clock);
    expect(reopened.idempotency.commandIds).toEqual(["c-1", "c-2"]);
    expect(reopened.idempotency.fingerprints).toEqual(["fp-1", "fp-2"]);
    expect(reopened.idempotency.positions).toEqual(responses.map((r) => (r.kind === "command" ? r.position : -1)));
    expect(reopened.report.framesReplayed).toBe(3);
    reopened.core.close();
  });

  it("folds the whole log when the newest snapshot is of a format this build does not read", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    await core.processBatch([
      request(commands.create("alice", "m1", directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "none" }))),
      request(commands.publish("alice", "m1")),
      request(commands.claim("bob", "m1")),
    ]);
    const liveRecord = okJson((await core.processBatch([{ kind: "record", marketId: "m1", actorId: "alice" }]))[0]);
    core.close();
    // A snapshot as an earlier build wrote it (format version 3), valid for the log at its lsn.
    const journal = FileJournal.open({ dir });
    await journal.writeSnapshot(new Packr({ useRecords: false, moreTypes: false }).pack({ v: 3, shardIndex: 0, lastStampMs: T0, markets: [] }), 2);
    await journal.close();

    const reopened = await openShard(dir, clock);
    expect(reopened.report).toMatchObject({
      snapshotLsn: 0,
      snapshotIgnored: "snapshot of format version 3, which this build does not read",
      marketsFromSnapshot: 0,
      framesReplayed: 3,
      markets: 1,
    });
    const record = okJson((await reopened.core.processBatch([{ kind: "record", marketId: "m1", actorId: "alice" }]))[0]);
    expect(record.integrity.recordHash).toBe(liveRecord.integrity.recordHash);
    reopened.core.close();
  });

  it("records rejections for missing markets in the log only, replayable from the frame", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock, { replyCacheEntries: 0 });
    const [missing] = await core.processBatch([request(commands.publish("alice", "ghost"))]);
    expect(codeOf(missing)).toBe("market_not_found");
    const position = missing?.kind === "command" ? missing.position : -1;
    const [again] = await core.processBatch([{ kind: "reply-at", position }]);
    expect(replyOf(again)).toEqual(replyOf(missing));
    core.close();
  });
});

describe("ShardCore snapshots", () => {
  it("gives the same state from snapshot + tail as from a full replay and as live", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    const markets = ["m0", "m1", "m2", "m3", "m4"];
    await core.processBatch(
      markets.flatMap((id) => [
        request(commands.create("creator", id, directClaim({ capacity: 40, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: 30 }))),
        request(commands.publish("creator", id)),
      ]),
    );
    let snapshotted = false;
    for (let i = 0; i < 1_500; i += 1) {
      clock.advance(97);
      const marketId = markets[i % markets.length] as string;
      const batch = [request(commands.claim(`p${i % 61}`, marketId))];
      const responses = await core.processBatch(batch);
      const commitment = replyOf(responses[0]).ok ? okJson(responses[0]).commitments[0] : undefined;
      if (commitment !== undefined && i % 3 === 0) await core.processBatch([request(commands.confirm(commitment.participantPrincipalId, commitment.id))]);
      if (commitment !== undefined && i % 7 === 0) await core.processBatch([request(commands.decline("creator", commitment.id))]);
      if (i === 900) {
        await core.snapshot();
        snapshotted = true;
      }
    }
    expect(snapshotted).toBe(true);
    const hashes = async (shard: ShardCore) => {
      const integrity = [];
      for (const id of markets) integrity.push(okJson((await shard.processBatch([{ kind: "record", marketId: id, actorId: "creator" }]))[0]).integrity);
      return integrity;
    };
    const live = await hashes(core);
    core.close();

    const fromSnapshot = await openShard(dir, clock);
    expect(fromSnapshot.report.snapshotLsn).toBeGreaterThan(0);
    expect(fromSnapshot.report.framesReplayed).toBeLessThan(fromSnapshot.report.lastLsn);
    expect(fromSnapshot.report.framesTrustedByCheckpoint).toBe(0); // frames before the snapshot are read for idempotency
    const snapshotState = await hashes(fromSnapshot.core);
    fromSnapshot.core.close();

    // With the idempotency index covering the snapshot, the last segment is read from the
    // snapshot's own frame on (storage/checkpoint.ts).
    const fromCheckpoint = await openShard(dir, clock, { reportIdempotencyAfterLsn: Number.MAX_SAFE_INTEGER });
    expect(fromCheckpoint.report.framesTrustedByCheckpoint).toBe(fromCheckpoint.report.snapshotLsn);
    expect(fromCheckpoint.report.framesReplayed).toBe(fromSnapshot.report.framesReplayed);
    expect(await hashes(fromCheckpoint.core)).toEqual(live);
    fromCheckpoint.core.close();

    // Full replay: hide the snapshots.
    renameSync(`${dir}/snapshots`, `${dir}/snapshots-hidden`);
    const full = await openShard(dir, clock);
    expect(full.report.snapshotLsn).toBe(0);
    const fullState = await hashes(full.core);
    full.core.close();

    expect(snapshotState).toEqual(live);
    expect(fullState).toEqual(live);
    for (const integrity of live) expect(integrity.stateReconstructed).toBe(true);
  });
});

describe("ShardCore timers (injected clock, no sleeping)", () => {
  const HOLD = 60;

  it("closes an auction exactly once at closesAt", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    await core.processBatch([
      request(commands.create("alice", "a1", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 10_000), holdDurationSeconds: HOLD }))),
      request(commands.publish("alice", "a1")),
      request(commands.bid("bob", "a1", 500)),
    ]);
    clock.advance(9_999);
    expect(await core.tick()).toBe(0);
    clock.advance(1);
    expect(await core.tick()).toBe(1);
    clock.advance(50);
    expect(await core.tick()).toBe(0);
    const market = okJson((await core.processBatch([{ kind: "market", marketId: "a1" }]))[0]);
    expect(market.mechanismState).toMatchObject({ resolution: "winner_selected" });
    const record = okJson((await core.processBatch([{ kind: "record", marketId: "a1", actorId: "alice" }]))[0]);
    expect(record.commands.filter((c: { type: string }) => c.type === "sealed_auction.resolve")).toHaveLength(1);
    expect(record.commands.at(-1)).toMatchObject({ type: "sealed_auction.resolve", status: "accepted", occurredAt: isoFromMs(T0 + 10_000) });
    core.close();
  });

  it("expires an unconfirmed hold and returns the capacity", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    await core.processBatch([
      request(commands.create("alice", "m1", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: HOLD }))),
      request(commands.publish("alice", "m1")),
      request(commands.claim("bob", "m1")),
    ]);
    expect(codeOf((await core.processBatch([request(commands.claim("carol", "m1"))]))[0])).toBe("capacity_exhausted");
    clock.advance(HOLD * 1000);
    // The deadline fires at the start of the next batch, before the claim in it.
    const [claim] = await core.processBatch([request(commands.claim("carol", "m1"))]);
    expect(okJson(claim).market.mechanismState.allocated).toBe(1);
    core.close();
  });

  it("fires deadlines missed while down at once on start, in deadline order", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    await core.processBatch([
      request(commands.create("alice", "late", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 20_000), holdDurationSeconds: HOLD }))),
      request(commands.publish("alice", "late")),
      request(commands.create("alice", "early", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 10_000), holdDurationSeconds: HOLD }))),
      request(commands.publish("alice", "early")),
    ]);
    core.close();
    clock.advance(3_600_000); // down for an hour
    const { core: restarted } = await openShard(dir, clock);
    expect(restarted.pendingTimers).toBe(2);
    expect(await restarted.tick()).toBe(2);
    expect(restarted.lastLsn).toBe(6);
    const early = okJson((await restarted.processBatch([{ kind: "record", marketId: "early", actorId: "alice" }]))[0]);
    const late = okJson((await restarted.processBatch([{ kind: "record", marketId: "late", actorId: "alice" }]))[0]);
    // Both resolved at the restart time (the wheel orders them by deadline: see timer-wheel.test.ts).
    expect(early.market.state).toBe("closed");
    expect(late.market.state).toBe("closed");
    restarted.close();
  });
});

describe("ShardCore idempotent replies", () => {
  it("reproduces every command's reply byte for byte from the log, also after a restart", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock, { replyCacheEntries: 0 });
    const sent = [
      request(commands.create("alice", "m1", directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "both", holdDurationSeconds: 60 }))),
      request(commands.publish("alice", "m1", 7)), // version_conflict
      request(commands.publish("alice", "m1")),
      request(commands.claim("bob", "m1")),
      request(commands.claim("bob", "m1")), // rejected, recorded
      request(commands.confirm("alice", "c.bTE.1")),
      request(commands.confirm("zed", "c.bTE.9")), // commitment_not_found: log only
    ];
    const original = [];
    for (const r of sent) {
      clock.advance(3);
      original.push((await core.processBatch([r]))[0]);
    }
    const replays = await core.processBatch(original.map((r) => ({ kind: "reply-at" as const, position: r?.kind === "command" ? r.position : -1 })));
    expect(replays.map(replyOf)).toEqual(original.map(replyOf));
    core.close();
    const { core: reopened } = await openShard(dir, clock, { replyCacheEntries: 0 });
    const afterRestart = await reopened.processBatch(original.map((r) => ({ kind: "reply-at" as const, position: r?.kind === "command" ? r.position : -1 })));
    expect(afterRestart.map(replyOf)).toEqual(original.map(replyOf));
    expect(afterRestart.filter((r) => r.kind === "replay").length).toBeGreaterThan(0); // replayed off the shard, not cached
    reopened.close();
  });
});

describe("ShardCore reply cache bounds", () => {
  it("keeps replies within their character bound however large the subject, and replays the evicted ones byte for byte", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const maxChars = 256 * 1024;
    const { core } = await openShard(dir, clock, { replyCacheChars: maxChars });
    // Every reply of this market repeats its 40 KB subject (in the market, and in each commitment's terms).
    const create = commands.create("alice", "big", directClaim({ capacity: 50, pricing: { mode: "free" }, confirmation: "none" }));
    if (create.type !== "market.create_draft") throw new Error("a create command");
    create.subject = { schema: "blob.v1", data: { attachment: "x".repeat(40_000) } };
    const sent = [request(create), request(commands.publish("alice", "big")), ...Array.from({ length: 40 }, (_, i) => request(commands.claim(`p${i}`, "big")))];
    const original = [];
    for (const r of sent) {
      clock.advance(3);
      original.push((await core.processBatch([r]))[0]);
    }
    const replyChars = original.map((r) => {
      const reply = replyOf(r);
      return reply.ok ? jsonText(reply.json).length : 0;
    });
    expect(Math.min(...replyChars)).toBeGreaterThan(40_000);
    // Without the character bound all 42 replies (the entry bound is 4096) would be kept: > 1.6 M characters.
    expect(replyChars.reduce((a, b) => a + b, 0)).toBeGreaterThan(4 * maxChars);
    const stats = core.replyCacheStats;
    expect(stats.chars).toBeLessThanOrEqual(maxChars);
    expect(stats.entries).toBeLessThan(sent.length);
    expect(stats.entries).toBeGreaterThan(0);
    expect(core.lastBatch.replyCacheChars).toBe(stats.chars);
    // Evicted replies come back through a replay of the log, identical to the original.
    const replays = await core.processBatch(original.map((r) => ({ kind: "reply-at" as const, position: r?.kind === "command" ? r.position : -1 })));
    expect(replays.filter((r) => r.kind === "replay").length).toBe(sent.length - stats.entries);
    expect(replays.map(replyOf)).toEqual(original.map(replyOf));
    core.close();

    // A recovery keeps the last replies again, within the same bound (decision I61): the retries
    // of the last commands are answered at once, the earlier ones replayed, all as given.
    const reopened = (await openShard(dir, clock, { replyCacheChars: maxChars })).core;
    const recovered = reopened.replyCacheStats;
    expect(recovered.chars).toBeLessThanOrEqual(maxChars);
    expect(recovered.entries).toBeGreaterThan(0);
    const retried = await reopened.processBatch(original.map((r) => ({ kind: "reply-at" as const, position: r?.kind === "command" ? r.position : -1 })));
    expect(retried.map((r) => r.kind)).toEqual(original.map((_, i) => (i < sent.length - recovered.entries ? "replay" : "read")));
    expect(retried.map(replyOf)).toEqual(original.map(replyOf));
    reopened.close();
  });

  it("does not keep a reply larger than the whole bound", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock, { replyCacheChars: 10_000 });
    const create = commands.create("alice", "huge", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" }));
    if (create.type !== "market.create_draft") throw new Error("a create command");
    create.subject = { schema: "blob.v1", data: { attachment: "y".repeat(20_000) } };
    await core.processBatch([request(create)]);
    expect(core.replyCacheStats).toEqual({ entries: 0, chars: 0 });
    const [missing] = await core.processBatch([request(commands.publish("alice", "ghost"))]);
    expect(codeOf(missing)).toBe("market_not_found");
    expect(core.replyCacheStats.entries).toBe(1);
    core.close();
  });
});

describe("ShardCore reads", () => {
  it("limits the record to the creator and shows a principal only its own outcome", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { core } = await openShard(dir, clock);
    await core.processBatch([
      request(commands.create("alice", "a1", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 10_000), holdDurationSeconds: 60 }))),
      request(commands.publish("alice", "a1")),
      request(commands.bid("bob", "a1", 700)),
      request(commands.bid("carol", "a1", 900)),
    ]);
    const [denied, missing, bob] = await core.processBatch([
      { kind: "record", marketId: "a1", actorId: "bob" },
      { kind: "record", marketId: "nope", actorId: "alice" },
      { kind: "outcome", marketId: "a1", principalId: "bob" },
    ]);
    expect(codeOf(denied)).toBe("forbidden");
    expect(codeOf(missing)).toBe("market_not_found");
    const outcome = okJson(bob);
    expect(outcome.bidReceipts).toEqual([{ bidId: "b.YTE.1", marketId: "a1", marketVersion: 3, state: "active", submittedAt: isoFromMs(T0) }]);
    expect(JSON.stringify(outcome)).not.toContain("700");
    expect(outcome.commitments).toEqual([]);
    core.close();
  });
});
