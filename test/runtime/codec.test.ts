import { describe, expect, it } from "vitest";
import type { Command } from "../../engine/index.js";
import { newAggregate, type MarketAggregate } from "../../engine/state.js";
import { applyCommand } from "../../engine/handle-command.js";
import { decodeLoggedCommand, encodeLoggedCommand } from "../../gateway/runtime/logged-command.js";
import { decodeShardSnapshot, encodeShardSnapshot } from "../../gateway/runtime/shard-snapshot.js";

const data = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"z":1,"a":[{"__proto__":2}]}') as Record<string, unknown>;

describe("free-form data survives the log and snapshot codecs exactly", () => {
  it("keeps __proto__ members and member order in logged create commands", () => {
    const command: Command = {
      type: "market.create_draft",
      commandId: "c",
      identity: { principalId: "p", actorId: "p" },
      occurredAtMs: 1,
      marketId: "m",
      subject: { schema: "s.v1", data },
      mechanism: { presetId: "x", config: JSON.parse('{"__proto__":{"capacity":1}}') as Record<string, unknown> },
    };
    const decoded = decodeLoggedCommand(encodeLoggedCommand({ v: 1, f: "fp", c: command })).c;
    expect(decoded).toEqual(command);
    if (decoded.type !== "market.create_draft") throw new Error("type");
    expect(Object.keys(decoded.subject.data)).toEqual(["__proto__", "constructor", "z", "a"]);
    expect(Object.keys(decoded.mechanism.config)).toEqual(["__proto__"]);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(command));
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("keeps them in shard snapshots", () => {
    const agg = newAggregate({
      id: "m",
      version: 1,
      state: "draft",
      creator: { principalId: "p", actorId: "p" },
      subject: { schema: "s.v1", data },
      mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
      mechanismState: { allocated: 0 },
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    const decoded = decodeShardSnapshot(encodeShardSnapshot({ shardIndex: 0, lastStampMs: 1, endPosition: 0 }, [{ agg, positions: [] }]));
    const market = decoded.markets[0]?.agg.market;
    expect(JSON.stringify(market)).toBe(JSON.stringify(agg.market));
    expect(Object.keys(market?.subject.data ?? {})).toEqual(["__proto__", "constructor", "z", "a"]);
  });
});

describe("commitment times in shard snapshots", () => {
  it("round-trip exactly, whatever the millisecond, second or hold (the per-second parse cache)", () => {
    let agg: MarketAggregate | undefined;
    const base = Date.parse("2026-03-01T23:59:58.000Z");
    const at = (n: number) => base + Math.floor(n / 3) * 1_001 + ((n * 337) % 1000); // crosses seconds, a day and every millisecond digit
    const create: Command = {
      type: "market.create_draft", commandId: "create", identity: { principalId: "creator", actorId: "creator" }, occurredAtMs: base, marketId: "m",
      subject: { schema: "s.v1", data: {} },
      mechanism: { presetId: "direct-claim.v1", config: { capacity: 100, pricing: { mode: "free" }, confirmation: "creator", holdDurationSeconds: 7 } },
    };
    agg = applyCommand(agg, create).aggregate;
    agg = applyCommand(agg, { type: "market.publish", commandId: "publish", identity: { principalId: "creator", actorId: "creator" }, occurredAtMs: base, marketId: "m", expectedVersion: 1 }).aggregate;
    for (let n = 0; n < 40; n += 1) {
      agg = applyCommand(agg, { type: "direct_claim.submit", commandId: `claim-${n}`, identity: { principalId: `p${n}`, actorId: `p${n}` }, occurredAtMs: at(n), marketId: "m" }).aggregate;
    }
    if (agg === undefined) throw new Error("no market");
    expect(agg.commitments).toHaveLength(40);
    const decoded = decodeShardSnapshot(encodeShardSnapshot({ shardIndex: 0, lastStampMs: at(40), endPosition: 0 }, [{ agg, positions: [] }]));
    const restored = decoded.markets[0]?.agg;
    expect(JSON.stringify(restored?.commitments)).toBe(JSON.stringify(agg.commitments));
    expect(new Set(agg.commitments.map((c) => c.createdAt.slice(0, 19))).size).toBeGreaterThan(10);
  });
});
