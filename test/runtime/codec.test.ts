import { describe, expect, it } from "vitest";
import type { Command } from "../../engine/index.js";
import { newAggregate } from "../../engine/state.js";
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
