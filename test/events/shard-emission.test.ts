/**
 * The shard's side of live events (engine/runtime/shard-core.ts) on a real file journal: nothing is
 * rendered for a market nobody watches; a watch names the last sequence its batch committed;
 * events leave only once their batch is durable, as the record shows them, with their public view.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { openFileShard } from "../../engine/runtime/shard-core.js";
import { watchRead, type WatchAnswer } from "../../engine/shard-protocol/shard-protocol.js";
import { publicEventView } from "../../engine/events/public-event.js";
import { T0, commands, directClaim, okJson, replyOf, request, tempDir } from "../runtime/support.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

async function openShard() {
  const t = tempDir("events-shard");
  cleanups.push(t.cleanup);
  const { core } = await openFileShard({ dir: t.dir, shardIndex: 0, clock: new ManualClock(T0) });
  await core.processBatch([request(commands.create("alice", "m1", directClaim({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("alice", "m1"))]);
  return core;
}

describe("a shard's event emission", () => {
  it("renders nothing for a market nobody watches", async () => {
    const core = await openShard();
    await core.processBatch([request(commands.claim("bob", "m1")), request(commands.claim("carol", "m1"))]);
    expect(core.takeEvents()).toEqual([]);
    await core.close();
  });

  it("after a watch, emits each later event once its batch is durable, as the reply showed it, with its public view", async () => {
    const core = await openShard();
    const [, watched] = await core.processBatch([request(commands.claim("bob", "m1")), watchRead("m1", true)]);
    const answer = okJson(watched) as WatchAnswer;
    // The claim in the watch's own batch is counted in lastSequence, not emitted.
    expect(answer).toEqual({ lastSequence: 4, creator: { principalId: "alice", actorId: "alice" } });
    expect(core.takeEvents()).toEqual([]);

    const pending = core.processBatch([request(commands.claim("carol", "m1"))]);
    // Decided, not yet durable: nothing has left.
    expect(core.takeEvents()).toEqual([]);
    const [claimed] = await pending;
    const replyEvents = okJson(claimed).events as Array<{ sequence: number }>;
    const emitted = core.takeEvents();
    expect(emitted.map((e) => e.sequence)).toEqual([5, 6]);
    expect(emitted.map((e) => JSON.parse(e.json))).toEqual(replyEvents);
    expect(emitted.map((e) => e.publicJson)).toEqual(replyEvents.map((event) => {
      const view = publicEventView(event as never);
      return view === undefined ? "" : JSON.stringify(view);
    }));
    expect(JSON.parse(emitted[0]?.publicJson ?? "{}")).toMatchObject({ sequence: 5, type: "direct_claim.accepted", data: { allocated: 2, capacity: 5 } });
    expect(emitted[1]?.publicJson).toBe(""); // commitment.committed has no public view

    await core.processBatch([watchRead("m1", false)]);
    await core.processBatch([request(commands.claim("dave", "m1"))]);
    expect(core.takeEvents()).toEqual([]);
    await core.close();
  });

  it("refuses to watch a market it does not hold", async () => {
    const core = await openShard();
    const [reply] = await core.processBatch([watchRead("nowhere", true)]);
    expect(replyOf(reply)).toMatchObject({ ok: false, code: "market_not_found" });
    await core.close();
  });
});
