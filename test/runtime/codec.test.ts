import { describe, expect, it } from "vitest";
import { SYSTEM_IDENTITY, type Command } from "../../engine/rules/types/command.js";
import { commitmentsOf, newAggregate, principalIndexOf, type MarketAggregate } from "../../engine/rules/state/state.js";
import { applyCommand } from "../../engine/rules/handle-command.js";
import { tableStorage } from "../../engine/store/market-storage.js";
import { decodeLoggedCommand, encodeLoggedCommand, loggedCommand } from "../../engine/log/logged-command.js";
import { buildCommand, buildIdentity } from "../../engine/rules/types/command-layout.js";
import { decodeShardSnapshot as decodeAnyVersion, encodeShardSnapshot } from "../../engine/runtime/shard-snapshot.js";

function decodeShardSnapshot(payload: Uint8Array) {
  const decoded = decodeAnyVersion(payload);
  if ("unreadableVersion" in decoded) throw new Error(`snapshot of version ${String(decoded.unreadableVersion)}`);
  return decoded;
}

const data = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"z":1,"a":[{"__proto__":2}]}') as Record<string, unknown>;

describe("free-form data survives the log and snapshot codecs exactly", () => {
  it("keeps __proto__ members and member order in logged create commands", () => {
    const command = buildCommand("market.create_draft", {
      marketId: "m",
      subject: { schema: "s.v1", data },
      mechanism: { presetId: "x", config: JSON.parse('{"__proto__":{"capacity":1}}') as Record<string, unknown> },
      commandId: "c",
      identity: buildIdentity({ principalId: "p", actorId: "p" }),
      occurredAtMs: 1,
    });
    const decoded = decodeLoggedCommand(encodeLoggedCommand(loggedCommand(command, "fp", undefined))).c;
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
    }, tableStorage);
    const decoded = decodeShardSnapshot(encodeShardSnapshot({ shardIndex: 0, lastStampMs: 1 }, [{ agg, positions: [] }]));
    const market = decoded.markets[0]?.agg.market;
    expect(JSON.stringify(market)).toBe(JSON.stringify(agg.market));
    expect(Object.keys(market?.subject.data ?? {})).toEqual(["__proto__", "constructor", "z", "a"]);
  });
});

/** Participant ids of every stored shape: ASCII, Latin-1, two-byte (BMP, and astral). */
function principalOf(n: number): string {
  return [`参加者-${n}-\u{1F600}`, `p-ü-${n}`, `Ωmega-${n}`][n % 5] ?? `p${n}`;
}

describe("commitment times in shard snapshots", () => {
  it("round-trip exactly, whatever the millisecond, second or hold", () => {
    let agg: MarketAggregate | undefined;
    const base = Date.parse("2026-03-01T23:59:58.000Z");
    const at = (n: number) => base + Math.floor(n / 3) * 1_001 + ((n * 337) % 1000); // crosses seconds, a day and every millisecond digit
    const create: Command = {
      type: "market.create_draft", commandId: "create", identity: { principalId: "creator", actorId: "creator" }, occurredAtMs: base, marketId: "m",
      subject: { schema: "s.v1", data: {} },
      mechanism: { presetId: "direct-claim.v1", config: { capacity: 100, pricing: { mode: "free" }, confirmation: "creator", holdDurationSeconds: 7 } },
    };
    agg = applyCommand(agg, create, tableStorage).aggregate;
    agg = applyCommand(agg, { type: "market.publish", commandId: "publish", identity: { principalId: "creator", actorId: "creator" }, occurredAtMs: base, marketId: "m", expectedVersion: 1 }, tableStorage).aggregate;
    for (let n = 0; n < 40; n += 1) {
      agg = applyCommand(agg, { type: "direct_claim.submit", commandId: `claim-${n}`, identity: { principalId: principalOf(n), actorId: `p${n}` }, occurredAtMs: at(n), marketId: "m" }, tableStorage).aggregate;
    }
    if (agg === undefined) throw new Error("no market");
    // Every state and version a snapshot must carry: confirmed (committed, with a confirmation
    // list), declined, expired, and still awaiting.
    const creator = { principalId: "creator", actorId: "creator" };
    for (const [n, type] of [[0, "commitment.expire"], [36, "commitment.confirm"], [37, "commitment.decline"], [39, "commitment.confirm"]] as const) {
      const commitmentId = agg === undefined ? "" : (commitmentsOf(agg)[n]?.id ?? "");
      const occurredAtMs = type === "commitment.expire" ? at(39) + 7_000 : at(39) + 1;
      const identity = type === "commitment.expire" ? { ...SYSTEM_IDENTITY } : creator;
      const applied = applyCommand(agg, { type, commandId: `${type}-${n}`, identity, occurredAtMs, commitmentId } as Command, tableStorage);
      expect(applied.decision, JSON.stringify(applied.decision)).toMatchObject({ accepted: true });
      agg = applied.aggregate;
    }
    if (agg === undefined) throw new Error("no market");
    const all = commitmentsOf(agg);
    expect(all).toHaveLength(40);
    expect(new Set(all.map((c) => c.state))).toEqual(new Set(["committed", "declined", "expired", "awaiting_confirmations"]));
    expect(all[36]?.confirmedPrincipalIds).toEqual(["creator"]);
    expect(all[36]?.version).toBe(3); // confirmation_recorded, then committed
    const positions = [0, 180, 4096, 2 ** 40 + 3];
    const decoded = decodeShardSnapshot(encodeShardSnapshot({ shardIndex: 0, lastStampMs: at(50) }, [{ agg, positions }]));
    const restored = decoded.markets[0];
    expect(JSON.stringify(restored && commitmentsOf(restored.agg))).toBe(JSON.stringify(all));
    expect(restored && principalIndexOf(restored.agg).entries()).toEqual(agg.principalIndex?.entries());
    expect(agg.principalIndex?.size).toBe(38); // 40 claims, one expired, one declined
    expect(restored?.positions).toEqual(positions);
    expect(new Set(all.map((c) => c.createdAt.slice(0, 19))).size).toBeGreaterThan(10);

    // A restored market builds its principal index on its first command: a decline there releases
    // the claim, and the same principal may then claim again, exactly as in the live market.
    const restoredAgg = decodeShardSnapshot(encodeShardSnapshot({ shardIndex: 0, lastStampMs: at(50) }, [{ agg, positions }])).markets[0]?.agg;
    expect(restoredAgg?.principalIndex).toBeUndefined();
    const decline: Command = { type: "commitment.decline", commandId: "decline-38", identity: creator, occurredAtMs: at(39) + 2, commitmentId: all[38]?.id ?? "" };
    const reclaim: Command = { type: "direct_claim.submit", commandId: "reclaim-38", identity: { principalId: "p38", actorId: "p38" }, occurredAtMs: at(39) + 3, marketId: "m" };
    const twin = decodeShardSnapshot(encodeShardSnapshot({ shardIndex: 0, lastStampMs: at(50) }, [{ agg, positions }])).markets[0]?.agg;
    if (twin === undefined || restoredAgg === undefined) throw new Error("no market");
    principalIndexOf(twin); // built before the commands, as a live market has it
    for (const command of [decline, reclaim]) {
      expect(applyCommand(restoredAgg, command, tableStorage).decision).toMatchObject({ accepted: true });
      expect(applyCommand(twin, command, tableStorage).decision).toMatchObject({ accepted: true });
    }
    expect(JSON.stringify(commitmentsOf(restoredAgg))).toBe(JSON.stringify(commitmentsOf(twin)));
    expect(restoredAgg.principalIndex?.entries()).toEqual(twin.principalIndex?.entries());
    expect(restoredAgg.principalIndex?.entries().find(([principal]) => principal === "p38")?.[1]).toBe(41);
  });
});
