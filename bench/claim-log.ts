/**
 * A shard log as a claim storm leaves it, written through the real `ShardCore` (engine, msgpack,
 * append, one fdatasync per batch): `markets` direct-claim markets created and published, then
 * `claims` claims spread over them round-robin, every claim by its own participant. Shared by the
 * recovery bench (P4/P5) and the audit benches (a whole data directory of shards:
 * `writeShardedClaimLog`).
 */
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import type { Command } from "../engine/index.js";
import { ManualClock } from "../engine/clock.js";
import { buildMarketCommand } from "../gateway/api/market-api.js";
import { openFileShard, type ShardCore } from "../engine/runtime/shard-core.js";
import type { ShardRequest } from "../engine/shard-protocol/shard-protocol.js";
import { shardOfMarket } from "../engine/runtime/shard-routing.js";
import type { LogHeadsOptions } from "../engine/audit/heads/log-heads.js";

/** Commands per `processBatch`: one fdatasync each. */
export const BATCH = 1_000;
export const T0 = Date.parse("2026-03-01T12:00:00.000Z");

export const create = (marketId: string, capacity: number): Command =>
  buildMarketCommand("market.create_draft", "creator", "", {
    commandId: `create-${marketId}`, principalId: "creator", marketId,
    subject: { schema: "slot.v1", data: { dock: 7 } },
    mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
  } as never);
export const publish = (marketId: string): Command =>
  buildMarketCommand("market.publish", "creator", marketId, { commandId: `publish-${marketId}`, principalId: "creator", expectedVersion: 1 } as never);
/** Commands built by the gateway's own builder, so the log holds frames exactly as the service writes them. */
export const claim = (n: number, marketId: string): Command =>
  buildMarketCommand("direct_claim.submit", `participant-${n}`, marketId, { commandId: `claim-${n}`, principalId: `participant-${n}` });
export const req = (command: Command): ShardRequest => ({ kind: "command", command, fingerprint: "AAAAAAAAAAAAAAAAAAAAAA" });

/** Writes the log into `dir` (a shard directory) and returns the open shard; with `heads`, signed heads are recorded as the service records them. */
export async function buildShard(dir: string, markets: number, claims: number, capacity: number, clock: ManualClock, heads?: LogHeadsOptions): Promise<ShardCore> {
  const { core } = await openFileShard({ dir, shardIndex: 0, clock, ...(heads === undefined ? {} : { heads }) });
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
 * A stopped service's data directory (`<dataDir>/shards/NN`): `commands` claims over `markets`
 * markets, each market on the shard the service would place it on, written through ShardCore on the
 * real log (batches of BATCH commands, one fdatasync each), with a snapshot per shard.
 */
export async function writeShardedClaimLog(dataDir: string, options: { commands: number; markets: number; shards: number }): Promise<void> {
  const clock = new ManualClock(T0);
  const shards: Array<{ core: ShardCore; batch: ShardRequest[] }> = [];
  for (let index = 0; index < options.shards; index += 1) {
    const dir = path.join(dataDir, "shards", String(index).padStart(2, "0"));
    mkdirSync(dir, { recursive: true });
    shards.push({ core: (await openFileShard({ dir, shardIndex: index, clock })).core, batch: [] });
  }
  const flush = async (shard: (typeof shards)[number]): Promise<void> => {
    if (shard.batch.length === 0) return;
    clock.advance(1);
    await shard.core.processBatch(shard.batch);
    shard.batch = [];
  };
  const send = async (marketId: string, command: Command): Promise<void> => {
    const shard = shards[shardOfMarket(marketId, options.shards)];
    if (shard === undefined) throw new Error("no such shard");
    shard.batch.push(req(command));
    if (shard.batch.length >= BATCH) await flush(shard);
  };
  for (let m = 0; m < options.markets; m += 1) {
    const marketId = `market-${m}`;
    await send(marketId, create(marketId, options.commands));
    await send(marketId, publish(marketId));
  }
  for (let n = 0; n < options.commands; n += 1) {
    const marketId = `market-${n % options.markets}`;
    await send(marketId, claim(n, marketId));
  }
  for (const shard of shards) {
    await flush(shard);
    await shard.core.snapshot();
    shard.core.close();
  }
}
