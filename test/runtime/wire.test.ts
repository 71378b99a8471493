/**
 * The shard channel's encoding (engine/runtime/wire.ts): every batch decodes to what was packed,
 * whatever its shapes, and a claim's request and reply travel in the agreed record structures only
 * (no structure defined inline in the message).
 */
import { Packr } from "msgpackr";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { buildMarketCommand } from "../../gateway/api/market-api.js";
import { openFileShard, type ShardCore } from "../../engine/runtime/shard-core.js";
import type { ShardRequest, ShardResponse } from "../../engine/shard-protocol/shard-protocol.js";
import { CHANNEL_STRUCTURES, packRequests, packResponses, unpackRequests, unpackResponses } from "../../engine/runtime/wire.js";
import { envelope, type Envelope } from "../../engine/runtime/worker-messages.js";
import { fc } from "@fast-check/vitest";
import { COMMAND_TYPES } from "@market-service/client/wire";
import { type Command } from "../../engine/rules/types/command.js";
import { COMMAND_LAYOUTS } from "../../engine/rules/types/command-layout.js";
import { commandRequest, marketRead, outcomeRead, recordRead, replyAtRead } from "../../engine/shard-protocol/shard-protocol.js";
import { materialize, optionalPaths, sampleOf, subsets } from "./layout-samples.js";
import { commands, directClaim, request, T0, tempDir } from "./support.js";

/**
 * Decodes channel bytes with the agreed structures renamed ("agreed:" + member): an object read
 * through an agreed structure comes out with renamed members, one defined inline keeps its own.
 */
const marking = new Packr({
  useRecords: true,
  moreTypes: false,
  structures: CHANNEL_STRUCTURES.map((keys) => keys.map((key) => `agreed:${key}`)),
  maxSharedStructures: 32,
});

/** Paths of the objects in `value` that were not read through an agreed structure. */
function inlineShapes(value: unknown, at = "$"): string[] {
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => inlineShapes(item, `${at}[${i}]`));
  const entries = Object.entries(value);
  const own = entries.some(([key]) => !key.startsWith("agreed:")) ? [`${at} {${Object.keys(value).join(",")}}`] : [];
  return [...own, ...entries.flatMap(([key, item]) => inlineShapes(item, `${at}.${key}`))];
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

async function openCore(): Promise<{ core: ShardCore; clock: ManualClock }> {
  const { dir, cleanup } = tempDir("wire");
  cleanups.push(cleanup);
  const clock = new ManualClock(T0);
  const { core } = await openFileShard({ dir, shardIndex: 0, clock });
  cleanups.push(() => core.close());
  return { core, clock };
}

describe("shard channel encoding", () => {
  it("packs a claim's request in the agreed structures, as the gateway builds it", async () => {
    const claims = [
      buildMarketCommand("direct_claim.submit", "alice", "hot", { commandId: "c-1", principalId: "alice" }),
      buildMarketCommand("direct_claim.submit", "alice", "hot", { commandId: "c-2", principalId: "alice", expectedVersion: 3 } as never),
      buildMarketCommand("direct_claim.submit", "agent", "hot", { commandId: "c-3", principalId: "alice", authorityRef: "d-1" }),
      buildMarketCommand("sealed_auction.submit_bid", "bob", "auction", { commandId: "b-1", principalId: "bob", amountMinor: 500, currency: "EUR" } as never),
      buildMarketCommand("market.publish", "carol", "hot", { commandId: "p-1", principalId: "carol", expectedVersion: 1 } as never),
      buildMarketCommand("commitment.confirm", "alice", "c.aG90.1", { commandId: "k-1", principalId: "alice" }),
      buildMarketCommand("commitment.decline", "alice", "c.aG90.1", { commandId: "k-2", principalId: "alice" }),
    ];
    const items: Array<Envelope<ShardRequest>> = claims.map((command, id) => envelope(id, commandRequest(command, "AAAAAAAAAAAAAAAAAAAAAA")));
    const reads: Array<Envelope<ShardRequest>> = [
      envelope(10, marketRead("hot")),
      envelope(11, recordRead("hot", "carol")),
      envelope(12, outcomeRead("hot", "alice")),
      envelope(13, replyAtRead(4096)),
    ];
    const bytes = packRequests([...items, ...reads]);
    expect(inlineShapes(marking.unpack(bytes))).toEqual([]);
    expect(unpackRequests(bytes)).toEqual([...items, ...reads]);
  });

  it("packs every command a client sends, in every presence variant of its optional members (nested ones too), in the agreed structures", () => {
    let variants = 0;
    for (const type of COMMAND_TYPES.filter((t) => COMMAND_LAYOUTS[t].origin === "client")) {
      const layout = COMMAND_LAYOUTS[type].members;
      const [sample] = fc.sample(sampleOf(layout, type), { numRuns: 1, seed: 26 });
      for (const present of subsets(optionalPaths(layout, type))) {
        const command = materialize(layout, type, sample as Record<string, unknown>, present) as Command;
        const items: Array<Envelope<ShardRequest>> = [{ id: variants, body: commandRequest(command, "AAAAAAAAAAAAAAAAAAAAAA") }];
        const bytes = packRequests(items);
        expect(inlineShapes(marking.unpack(bytes)), `${type} ${[...present].join(",")}`).toEqual([]);
        expect(unpackRequests(bytes)).toEqual(items);
        variants += 1;
      }
    }
    // create 2×2, publish 2×2, claim 4×2, bid 2×2, confirm 2×2, decline 2×2: authorityRejection, expectedVersion, authorityRef.
    expect(variants).toBe(28);
  });

  it("packs a shard's replies to claims (accepted, refused) and reads in the agreed structures", async () => {
    const { core, clock } = await openCore();
    await core.processBatch([request(commands.create("carol", "hot", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" })))]);
    await core.processBatch([request(commands.publish("carol", "hot"))]);
    clock.advance(1_000);
    const responses = await core.processBatch([
      request(commands.claim("alice", "hot")),
      request(commands.claim("bob", "hot")),
      { kind: "market", marketId: "hot" },
      { kind: "market", marketId: "missing" },
    ]);
    expect(responses.map((r) => (r.kind === "command" ? r.status : r.kind))).toEqual(["accepted", "rejected", "read", "read"]);
    const items: Array<Envelope<ShardResponse>> = responses.map((body, id) => ({ id, body }));
    const bytes = packResponses(items);
    expect(inlineShapes(marking.unpack(bytes))).toEqual([]);
    expect(unpackResponses(bytes)).toEqual(items);
  });

  it("round-trips any other shape, defined inline, message after message", async () => {
    // Shapes the agreed list does not hold: other members, the agreed members in another order,
    // extra members, and more distinct shapes in one message than msgpackr has inline record ids.
    const odd = (i: number): Record<string, unknown> => ({ [`k${i % 97}`]: i, nested: { [`n${i % 89}`]: [i, { deep: `v${i}` }] } });
    for (let message = 0; message < 20; message += 1) {
      const items: Array<Envelope<ShardRequest>> = [];
      for (let i = 0; i < 150; i += 1) {
        const n = message * 150 + i;
        const body =
          n % 3 === 0
            ? ({ fingerprint: "f", kind: "command", command: commands.claim(`p${n}`, "m") } as unknown as ShardRequest)
            : n % 3 === 1
              ? ({ kind: "market", marketId: `m${n}`, extra: odd(n) } as unknown as ShardRequest)
              : ({ kind: "record", odd: odd(n) } as unknown as ShardRequest);
        items.push({ id: n, body });
      }
      const bytes = packRequests(items);
      const decoded = unpackRequests(bytes);
      expect(decoded).toEqual(items);
      expect(decoded.map((item) => Object.keys(item.body))).toEqual(items.map((item) => Object.keys(item.body)));
      // A claim in the agreed shape right after all that still decodes through the agreed structures.
      const claim: Envelope<ShardRequest> = envelope(1, commandRequest(buildMarketCommand("direct_claim.submit", "a", "m", { commandId: `x${message}`, principalId: "a" }), "f"));
      const claimBytes = packRequests([claim]);
      expect(unpackRequests(claimBytes)).toEqual([claim]);
      expect(inlineShapes(marking.unpack(claimBytes))).toEqual([]);
    }
  });
});
