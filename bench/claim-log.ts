/**
 * A shard log as a claim storm leaves it, written through the real `ShardCore` (engine, msgpack,
 * append, one fdatasync per batch): `markets` direct-claim markets created and published, then
 * `claims` claims spread over them round-robin, every claim by its own participant. Shared by the
 * recovery bench (P4/P5) and the replay-frames bench.
 */
import type { Command, MarketAggregate } from "../engine/index.js";
import type { ManualClock } from "../gateway/clock.js";
import { buildMarketCommand } from "../gateway/market-api.js";
import { openFileShard, type ShardCore } from "../gateway/runtime/shard-core.js";
import type { ShardRequest } from "../gateway/runtime/shard-protocol.js";
import { decodeLoggedCommand } from "../gateway/runtime/logged-command.js";
import type { SegmentLog } from "../storage/index.js";
import { LogFold } from "../engine/log-fold.js";

/** Commands per `processBatch`: one fdatasync each. */
export const BATCH = 1_000;
export const T0 = Date.parse("2026-03-01T12:00:00.000Z");

export const create = (marketId: string, capacity: number): Command => ({
  type: "market.create_draft", commandId: `create-${marketId}`, identity: { principalId: "creator", actorId: "creator" }, occurredAtMs: 0, marketId,
  subject: { schema: "slot.v1", data: { dock: 7 } },
  mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
});
export const publish = (marketId: string): Command => ({
  type: "market.publish", commandId: `publish-${marketId}`, identity: { principalId: "creator", actorId: "creator" }, occurredAtMs: 0, marketId, expectedVersion: 1,
});
/** A claim built by the gateway's own builder, so the log holds frames exactly as the service writes them. */
export const claim = (n: number, marketId: string): Command =>
  buildMarketCommand("direct_claim.submit", `participant-${n}`, marketId, { commandId: `claim-${n}`, principalId: `participant-${n}` });
export const req = (command: Command): ShardRequest => ({ kind: "command", command, fingerprint: "AAAAAAAAAAAAAAAAAAAAAA" });

/** Writes the log into `dir` (a shard directory) and returns the open shard. */
export async function buildShard(dir: string, markets: number, claims: number, capacity: number, clock: ManualClock): Promise<ShardCore> {
  const { core } = await openFileShard({ dir, shardIndex: 0, clock });
  let batch: ShardRequest[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    clock.advance(1);
    await core.processBatch(batch);
    batch = [];
  };
  for (let m = 0; m < markets; m += 1) {
    batch.push(req(create(`market-${m}`, capacity)), req(publish(`market-${m}`)));
    if (batch.length >= BATCH) await flush();
  }
  for (let n = 0; n < claims; n += 1) {
    batch.push(req(claim(n, `market-${n % markets}`)));
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return core;
}

/**
 * The engine's replay of a log, as the benches time it: every frame read (no CRC), decoded with
 * `decodeLoggedCommand` and applied with `applyCommand` into per-market aggregates (no replies,
 * no idempotency entries: the shard's open adds those, see bench:recovery).
 */
export function replayThroughEngine(log: SegmentLog): { markets: Map<string, MarketAggregate>; frames: number } {
  const fold = new LogFold();
  let frames = 0;
  for (const frame of log.frames(0, { verify: "none" })) {
    fold.apply(decodeLoggedCommand(frame.payload).c, frame.position);
    frames += 1;
  }
  return { markets: new Map([...fold.markets].map(([id, market]) => [id, market.agg])), frames };
}
