import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import { SYSTEM_IDENTITY, type Command } from "../../engine/types/command.js";
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
    // Every state and version a snapshot must carry: confirmed (committed, with a confirmation
    // list), declined, expired, and still awaiting.
    const creator = { principalId: "creator", actorId: "creator" };
    for (const [n, type] of [[0, "commitment.expire"], [36, "commitment.confirm"], [37, "commitment.decline"], [39, "commitment.confirm"]] as const) {
      const commitmentId = agg?.commitments[n]?.id ?? "";
      const occurredAtMs = type === "commitment.expire" ? at(39) + 7_000 : at(39) + 1;
      const identity = type === "commitment.expire" ? { ...SYSTEM_IDENTITY } : creator;
      const applied = applyCommand(agg, { type, commandId: `${type}-${n}`, identity, occurredAtMs, commitmentId } as Command);
      expect(applied.decision, JSON.stringify(applied.decision)).toMatchObject({ accepted: true });
      agg = applied.aggregate;
    }
    if (agg === undefined) throw new Error("no market");
    expect(agg.commitments).toHaveLength(40);
    expect(new Set(agg.commitments.map((c) => c.state))).toEqual(new Set(["committed", "declined", "expired", "awaiting_confirmations"]));
    expect(agg.commitments[36]?.confirmedPrincipalIds).toEqual(["creator"]);
    const positions = [0, 180, 4096, 2 ** 40 + 3];
    const decoded = decodeShardSnapshot(encodeShardSnapshot({ shardIndex: 0, lastStampMs: at(50), endPosition: 0 }, [{ agg, positions }]));
    const restored = decoded.markets[0];
    expect(JSON.stringify(restored?.agg.commitments)).toBe(JSON.stringify(agg.commitments));
    expect(restored?.agg.principalIndex).toEqual(agg.principalIndex);
    expect(restored?.positions).toEqual(positions);
    expect(new Set(agg.commitments.map((c) => c.createdAt.slice(0, 19))).size).toBeGreaterThan(10);

    // Version 2 (every column a MessagePack array) still loads to the same state.
    const v2 = new Packr({ useRecords: false, moreTypes: false }).pack({
      v: 2, shardIndex: 0, lastStampMs: at(50), endPosition: 0,
      markets: [{
        market: { ...agg.market, subject: JSON.stringify(agg.market.subject) },
        commitments: {
          participant: agg.commitments.map((c) => c.participantPrincipalId),
          state: agg.commitments.map((c) => ["provisional", "awaiting_confirmations", "committed", "declined", "expired", "failed"].indexOf(c.state)),
          version: agg.commitments.map((c) => c.version),
          marketVersion: agg.commitments.map((c) => c.marketVersion),
          createdAtMs: agg.commitments.map((c) => Date.parse(c.createdAt)),
          updatedAtMs: agg.commitments.map((c) => Date.parse(c.updatedAt)),
          expiresAtMs: agg.commitments.map((c) => (c.expiresAt === undefined ? -1 : Date.parse(c.expiresAt))),
          required: agg.commitments.map((c) => c.requiredConfirmationPrincipalIds ?? []),
          confirmed: agg.commitments.map((c) => c.confirmedPrincipalIds ?? []),
          winningBidId: [], price: [],
        },
        bids: [], lastResolution: null, commandCount: agg.commandCount, eventCount: agg.eventCount,
        positions: new Uint8Array(new Float64Array(positions).buffer),
      }],
    });
    const fromV2 = decodeShardSnapshot(v2).markets[0];
    expect(JSON.stringify(fromV2?.agg.commitments)).toBe(JSON.stringify(agg.commitments));
    expect(fromV2?.positions).toEqual(positions);
  });
});
