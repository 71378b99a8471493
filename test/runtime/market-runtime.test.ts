import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isoFromMs } from "../../engine/index.js";
import { ManualClock } from "../../engine/clock.js";
import { commandFingerprint } from "../../engine/idempotency/fingerprint.js";
import { MarketRuntime } from "../../engine/runtime/market-runtime.js";
import type { Command } from "../../engine/index.js";
import { T0, auction, commands, directClaim, tempDir } from "./support.js";
import { jsonText, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** Markets m<from> … m<to - 1>: each created, published and claimed once by bob; every command and its reply recorded. */
async function createAndClaim(runtime: MarketRuntime, clock: ManualClock, from: number, to: number, sent: Command[], replies: unknown[]): Promise<void> {
  for (let i = from; i < to; i += 1) {
    for (const command of [
      commands.create("alice", `m${i}`, directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "none" }), `c${i}`),
      commands.publish("alice", `m${i}`, 1, `p${i}`),
      commands.claim("bob", `m${i}`, `bob${i}`),
    ]) {
      clock.advance(1);
      sent.push(command);
      replies.push((await submit(runtime, command)).reply);
    }
  }
}

async function openRuntime(dataDir: string, clock: ManualClock, shardCount = 2) {
  const fatal: string[] = [];
  const { runtime, recovery } = await MarketRuntime.open({
    dataDir,
    shardCount,
    clock,
    controlledClock: true,
    checkpointEverySeconds: 0,
    onFatal: (message) => fatal.push(message),
  });
  return { runtime, recovery, fatal };
}

function fingerprintOf(command: Command): string {
  const { occurredAtMs: _t, ...content } = command;
  return commandFingerprint(command.type, content);
}

const submit = (runtime: MarketRuntime, command: Command) => runtime.submit(command, fingerprintOf(command));
const json = (reply: ShardReply) => (reply.ok ? JSON.parse(jsonText(reply.json)) : undefined);
/** A reply with its JSON as text: replayed replies arrive as bytes from the worker pool; the text must be identical. */
const asText = (reply: ShardReply) => (reply.ok ? { ok: true, json: jsonText(reply.json) } : reply);

function freshDir(): string {
  const t = tempDir("runtime");
  cleanups.push(t.cleanup);
  return t.dir;
}

/** Every command sent before is answered again from the idempotency index, with its first reply. */
async function expectReplayed(runtime: MarketRuntime, sent: readonly Command[], replies: readonly unknown[]): Promise<void> {
  for (const [i, command] of sent.entries()) {
    const again = await submit(runtime, command);
    expect(again.disposition).toBe("replayed");
    expect(asText(again.reply)).toEqual(asText(replies[i] as ShardReply));
  }
}

describe("MarketRuntime with shard workers", () => {
  it("executes commands on the owning shard and replays identical retries; different content conflicts", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { runtime } = await openRuntime(dir, clock);
    cleanups.push(() => runtime.close());
    const markets = Array.from({ length: 8 }, (_, i) => `market-${i}`);
    for (const id of markets) {
      expect((await submit(runtime, commands.create("alice", id, directClaim({ capacity: 3, pricing: { mode: "free" }, confirmation: "none" }), `create-${id}`))).reply.ok).toBe(true);
      expect((await submit(runtime, commands.publish("alice", id, 1, `publish-${id}`))).reply.ok).toBe(true);
    }
    const shards = new Set(markets.map((id) => runtime.shardOfCommand(commands.claim("x", id))));
    expect(shards.size).toBe(2);

    const claim = commands.claim("bob", "market-3", "bob-claim-1");
    const first = await submit(runtime, claim);
    expect(first.disposition).toBe("executed");
    const retry = await submit(runtime, claim);
    expect(retry).toEqual({ disposition: "replayed", reply: first.reply });

    const conflicting = commands.claim("bob", "market-4", "bob-claim-1");
    const conflict = await submit(runtime, conflicting);
    expect(conflict.reply).toMatchObject({ ok: false, code: "idempotency_conflict" });
    // The conflicting command was not executed.
    const market4 = json(await runtime.readMarket("market-4"));
    expect(market4.mechanismState.allocated).toBe(0);
  });

  it("runs concurrent identical submissions once", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { runtime } = await openRuntime(dir, clock);
    cleanups.push(() => runtime.close());
    await submit(runtime, commands.create("alice", "m", directClaim({ capacity: 10, pricing: { mode: "free" }, confirmation: "none" })));
    await submit(runtime, commands.publish("alice", "m"));
    const claim = commands.claim("bob", "m", "dup");
    const results = await Promise.all(Array.from({ length: 5 }, () => submit(runtime, claim)));
    expect(results.filter((r) => r.disposition === "executed")).toHaveLength(1);
    for (const r of results) expect(r.reply).toEqual(results[0]?.reply);
    expect(json(await runtime.readMarket("m")).mechanismState.allocated).toBe(1);
  });

  it("keeps idempotency, state and records across a restart (with and without the index snapshot)", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const first = await openRuntime(dir, clock);
    const sent: Command[] = [];
    const replies: unknown[] = [];
    for (let i = 0; i < 4; i += 1) {
      for (const command of [
        commands.create("alice", `m${i}`, directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "none" }), `c${i}`),
        commands.publish("alice", `m${i}`, 1, `p${i}`),
        commands.claim("bob", `m${i}`, `bob${i}`),
        commands.claim("bob", `m${i}`, `bob-again${i}`),
        commands.publish("alice", `missing${i}`, 1, `ghost${i}`),
      ]) {
        clock.advance(1);
        sent.push(command);
        replies.push((await submit(first.runtime, command)).reply);
      }
    }
    await first.runtime.checkpoint();
    // More commands after the checkpoint: they are only in the log tails.
    const late = commands.claim("carol", "m0", "carol0");
    sent.push(late);
    replies.push((await submit(first.runtime, late)).reply);
    const recordBefore = json(await first.runtime.readRecord("m0", "alice"));
    await first.runtime.close();
    // Lose the index snapshot too: the shards then report every entry from their logs.
    rmSync(path.join(dir, "idempotency"), { recursive: true, force: true });

    const second = await openRuntime(dir, clock);
    expect(second.recovery.idempotencyEntries).toBe(sent.length);
    await expectReplayed(second.runtime, sent, replies);
    const conflict = await submit(second.runtime, commands.claim("bob", "m2", "bob1"));
    expect(conflict.reply).toMatchObject({ code: "idempotency_conflict" });
    const recordAfter = json(await second.runtime.readRecord("m0", "alice"));
    expect(recordAfter.integrity).toEqual(recordBefore.integrity);
    await second.runtime.close();
  });

  it("starts the shards again when the newest index snapshot, peeked for their watermarks, fails its check", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const sent: Command[] = [];
    const replies: unknown[] = [];
    const run = (runtime: MarketRuntime, from: number, to: number) => createAndClaim(runtime, clock, from, to, sent, replies);
    const first = await openRuntime(dir, clock);
    await run(first.runtime, 0, 4);
    await first.runtime.close(); // index snapshot 1
    const second = await openRuntime(dir, clock);
    await run(second.runtime, 4, 8);
    await second.runtime.close(); // index snapshot 2, with later watermarks
    const indexDir = path.join(dir, "idempotency");
    const newest = readdirSync(indexDir).filter((name) => name.endsWith(".snap")).sort().at(-1) as string;
    const file = path.join(indexDir, newest);
    const bytes = readFileSync(file);
    const last = bytes.length - 1;
    bytes[last] = (bytes[last] as number) ^ 0xff; // past the header: the peek still reads its watermarks
    writeFileSync(file, bytes);

    const third = await openRuntime(dir, clock);
    // Snapshot 1 decides; the shards report every entry after its watermarks, so nothing is lost.
    expect(third.recovery.idempotencyEntries).toBe(sent.length);
    await expectReplayed(third.runtime, sent, replies);
    expect(third.fatal).toEqual([]);
    await third.runtime.close();
  });

  it("restores the index from a full snapshot and the continuations its later checkpoints wrote (decision I66)", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const sent: Command[] = [];
    const replies: unknown[] = [];
    const first = await openRuntime(dir, clock);
    for (let step = 0; step < 3; step += 1) {
      await createAndClaim(first.runtime, clock, 3 * step, 3 * step + 3, sent, replies);
      await first.runtime.checkpoint(); // a full image, then two continuations
    }
    await first.runtime.close(); // nothing logged since the last checkpoint: no snapshot written
    const indexDir = path.join(dir, "idempotency");
    const sizes = readdirSync(indexDir)
      .filter((name) => name.endsWith(".snap"))
      .sort()
      .map((name) => statSync(path.join(indexDir, name)).size);
    expect(sizes).toHaveLength(3);
    expect(Math.max(sizes[1] as number, sizes[2] as number)).toBeLessThan(sizes[0] as number);
    const second = await openRuntime(dir, clock);
    expect(second.recovery.idempotencyEntries).toBe(sent.length);
    await expectReplayed(second.runtime, sent, replies);
    expect(second.fatal).toEqual([]);
    await second.runtime.close();
  });

  it("refuses to start with another shard count", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { runtime } = await openRuntime(dir, clock, 2);
    await runtime.close();
    await expect(openRuntime(dir, clock, 3)).rejects.toThrow(/SHARDS=2/);
  });

  it("closes an auction when the controlled clock passes closesAt", async () => {
    const dir = freshDir();
    const clock = new ManualClock(T0);
    const { runtime } = await openRuntime(dir, clock);
    cleanups.push(() => runtime.close());
    await submit(runtime, commands.create("alice", "a", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 60_000), holdDurationSeconds: 30 })));
    await submit(runtime, commands.publish("alice", "a"));
    await submit(runtime, commands.bid("bob", "a", 100));
    clock.advance(60_000);
    runtime.publishTime();
    // A read is answered after the time message: the close has happened by then.
    const market = json(await runtime.readMarket("a"));
    expect(market).toMatchObject({ state: "closed", mechanismState: { resolution: "winner_selected" } });
    const outcome = json(await runtime.readOutcome("a", "bob"));
    expect(outcome.commitments[0]).toMatchObject({ state: "awaiting_confirmations", expiresAt: isoFromMs(T0 + 90_000) });
  });
});
