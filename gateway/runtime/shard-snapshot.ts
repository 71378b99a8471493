/**
 * The shard snapshot payload: every market's aggregate and the log positions of its recorded
 * commands. Commitment terms repeat the market's subject, so the subject is stored once and
 * re-attached on load. Derived indexes (principal → commitment, principal → bid, the market ref) are
 * rebuilt rather than stored.
 */
import { Packr } from "msgpackr";
import { newAggregate, type MarketAggregate } from "../../engine/state.js";
import type { Commitment } from "../../engine/types/commitment.js";
import type { SealedBid } from "../../engine/state.js";
import type { SealedAuctionResolution } from "../../engine/types/auction.js";
import type { Market } from "../../engine/types/market.js";

export const SHARD_SNAPSHOT_VERSION = 1;

export interface ShardMarket {
  agg: MarketAggregate;
  /** Log positions of the commands in this market's record, in record order. */
  positions: number[];
}

interface StoredMarket {
  market: Market;
  /** Commitments with `terms.subject` removed (it is always the market's subject). */
  commitments: Array<Omit<Commitment, "terms"> & { terms: Record<string, unknown> }>;
  bids: SealedBid[];
  lastResolution: SealedAuctionResolution | null;
  commandCount: number;
  eventCount: number;
  positions: number[];
}

interface StoredShard {
  v: typeof SHARD_SNAPSHOT_VERSION;
  shardIndex: number;
  lastStampMs: number;
  /** Log end position when the snapshot was taken: sealed segments before it need no rescan. */
  endPosition: number;
  markets: StoredMarket[];
}

const packr = new Packr({ useRecords: false, moreTypes: false });

export interface ShardSnapshotHeader {
  shardIndex: number;
  lastStampMs: number;
  endPosition: number;
}

export function encodeShardSnapshot(header: ShardSnapshotHeader, markets: Iterable<ShardMarket>): Buffer {
  const stored: StoredMarket[] = [];
  for (const { agg, positions } of markets) {
    stored.push({
      market: agg.market,
      commitments: agg.commitments.map((commitment) => {
        const { subject: _subject, ...terms } = commitment.terms;
        return { ...commitment, terms };
      }),
      bids: agg.bids,
      lastResolution: agg.lastResolution ?? null,
      commandCount: agg.commandCount,
      eventCount: agg.eventCount,
      positions,
    });
  }
  const payload: StoredShard = { v: SHARD_SNAPSHOT_VERSION, ...header, markets: stored };
  return packr.pack(payload);
}

export interface DecodedShardSnapshot extends ShardSnapshotHeader {
  markets: ShardMarket[];
}

export function decodeShardSnapshot(payload: Uint8Array): DecodedShardSnapshot {
  const stored = packr.unpack(payload) as StoredShard;
  if (stored?.v !== SHARD_SNAPSHOT_VERSION) throw new Error("shard snapshot of an unknown version");
  const markets = stored.markets.map((m): ShardMarket => {
    const agg = newAggregate(m.market);
    for (const c of m.commitments) {
      // Subject first, as the engine builds terms, so replies after a restart are byte-identical.
      const commitment = { ...c, terms: { subject: m.market.subject, ...c.terms } } as Commitment;
      agg.commitments.push(commitment);
      const active = commitment.state === "awaiting_confirmations" || commitment.state === "committed";
      if (active && m.market.mechanism.presetId === "direct-claim.v1") {
        agg.activeCommitmentByPrincipal.set(commitment.participantPrincipalId, agg.commitments.length);
      }
    }
    for (const bid of m.bids) {
      agg.bids.push(bid);
      agg.bidByPrincipal.set(bid.principalId, bid.ordinal);
    }
    agg.lastResolution = m.lastResolution ?? undefined;
    agg.commandCount = m.commandCount;
    agg.eventCount = m.eventCount;
    return { agg, positions: m.positions };
  });
  return { shardIndex: stored.shardIndex, lastStampMs: stored.lastStampMs, endPosition: stored.endPosition, markets };
}
