/**
 * What every audit does with a fold of a log, whatever the log is (a shard's segment files, a
 * partition's stream, an export of it): each market's record rebuilt from its commands into an
 * audit line, and a snapshot's markets compared with the replayed state at the snapshot's point.
 */
import { buildMarketRecord } from "../record.js";
import { plainDeepEqual } from "../plain-equal.js";
import { commitmentsOf, type MarketAggregate } from "../rules/state/state.js";
import type { Command } from "../rules/types/command.js";
import { decodeShardSnapshot } from "../runtime/shard-snapshot.js";
import type { ShardMarket } from "../log-fold.js";
import type { MarketAudit } from "../pool/shard-audit.js";

/** A market's audit line: its record, rebuilt from `commands` (its record's, in order), and the record's hash. */
export function auditMarket(shard: number, marketId: string, commands: Command[], entry: ShardMarket): MarketAudit {
  const record = buildMarketRecord(commands, entry.agg);
  return {
    marketId,
    shard,
    commands: entry.positions.length,
    recordHash: record.integrity.recordHash,
    stateReconstructed: record.integrity.stateReconstructed,
  };
}

/** The problem line of a market that does not reconstruct from its events. */
export function notReconstructed(where: string, marketId: string): string {
  return `${where}: market ${JSON.stringify(marketId)} does not reconstruct from its events`;
}

/** The part of an aggregate a snapshot must reproduce exactly. */
function comparable(entry: ShardMarket): unknown {
  const agg: MarketAggregate = entry.agg;
  return {
    market: agg.market,
    commitments: commitmentsOf(agg),
    bids: agg.bids,
    lastResolution: agg.lastResolution ?? null,
    commandCount: agg.commandCount,
    eventCount: agg.eventCount,
    positions: entry.positions,
  };
}

/**
 * Compares a shard snapshot's payload (shard-snapshot.ts) with the replayed markets at its point
 * (`at`, e.g. "lsn 812"): the first difference, or `compared: false` for a snapshot in a format this
 * build does not read (a start does not use it either: nothing to compare).
 */
export function snapshotDivergence(where: string, at: string, payload: Uint8Array, live: ReadonlyMap<string, ShardMarket>): { compared: boolean; problem?: string } {
  const decoded = decodeShardSnapshot(payload);
  if ("unreadableVersion" in decoded) return { compared: false };
  const inSnapshot = new Map(decoded.markets.map((m) => [m.agg.market.id, m]));
  if (inSnapshot.size !== live.size) return { compared: true, problem: `${where}: snapshot at ${at} holds ${inSnapshot.size} markets, the log ${live.size}` };
  for (const [marketId, entry] of live) {
    const stored = inSnapshot.get(marketId);
    if (stored === undefined || !plainDeepEqual(comparable(stored), comparable(entry))) {
      return { compared: true, problem: `${where}: market ${JSON.stringify(marketId)} in the snapshot at ${at} differs from the replayed log` };
    }
  }
  return { compared: true };
}
