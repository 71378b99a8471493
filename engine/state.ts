/**
 * The state a shard keeps per market: the public market and commitments (spec §2.3, §2.6), the private
 * sealed bids, and record bookkeeping. The aggregate is owned by one shard and updated in place, so a
 * claim storm costs O(1) per claim rather than copying 20,000 commitments per command:
 *  - `market` and its `mechanismState` are edited in place; anything handed out (a reply, a record)
 *    takes a `snapshotMarket` copy;
 *  - each commitment is immutable and replaced on change, so replies may hold commitments as they are;
 *  - objects shared with events (creator, subject, mechanism) are never edited.
 */
import type { SealedAuctionResolution } from "./types/auction.js";
import type { Commitment, DirectClaimCommitmentTerms } from "./types/commitment.js";
import type { Market } from "./types/market.js";
import { marketRef, ordinalWithin } from "./ids.js";

/** A sealed bid with its amount. Private: never part of any public view while the auction is open. */
export interface SealedBid {
  bidId: string;
  /** 1-based acceptance order: the tie-break between equal amounts. */
  ordinal: number;
  principalId: string;
  amountMinor: number;
  currency: string;
  submittedAtMs: number;
  /** Market version after the bid was accepted (for its receipt). */
  marketVersion: number;
}

export interface MarketAggregate {
  market: Market;
  /** `marketRef(market.id)`, kept because every generated id of the market embeds it. */
  readonly ref: string;
  /** In creation order: the commitment with ordinal n is at index n − 1. */
  commitments: Commitment[];
  /** Private sealed bids in acceptance order: ordinal n at index n − 1. */
  bids: SealedBid[];
  /** The latest auction resolution (public, from `sealed_auction.resolved`), used to create the winner's commitment. */
  lastResolution: SealedAuctionResolution | undefined;
  /**
   * Derived, created on first use so an idle market carries no map: for direct-claim.v1, principal →
   * ordinal of its active (awaiting or committed) commitment; for sealed-forward-auction.v1,
   * principal → ordinal of its bid.
   */
  principalIndex: Map<string, number> | undefined;
  /** direct-claim.v1: the terms every commitment of the market shares (one object, not one per claim). */
  claimTerms: DirectClaimCommitmentTerms | undefined;
  /** Commands recorded in this market's record (accepted and rejected): the last command sequence. */
  commandCount: number;
  /** Events recorded in this market's record: the last event sequence. */
  eventCount: number;
}

export function newAggregate(market: Market): MarketAggregate {
  return {
    market,
    ref: marketRef(market.id),
    commitments: [],
    bids: [],
    lastResolution: undefined,
    principalIndex: undefined,
    claimTerms: undefined,
    commandCount: 0,
    eventCount: 0,
  };
}

/** The principal index, created on first use. */
export function principalIndexOf(agg: MarketAggregate): Map<string, number> {
  agg.principalIndex ??= new Map();
  return agg.principalIndex;
}

/** A copy of the market that later commands cannot change (for replies and records). */
export function snapshotMarket(market: Market): Market {
  const state = market.mechanismState;
  return { ...market, mechanismState: "allocated" in state ? { allocated: state.allocated } : { ...state } };
}

/** The commitment a generated id names, if it belongs to this market. */
export function findCommitment(agg: MarketAggregate, commitmentId: string): Commitment | undefined {
  const ordinal = ordinalWithin(commitmentId, "c", agg.ref);
  const commitment = ordinal === undefined ? undefined : agg.commitments[ordinal - 1];
  return commitment !== undefined && commitment.id === commitmentId ? commitment : undefined;
}

/** The 0-based index of a commitment id of this market in `commitments` (it may not exist yet). */
export function commitmentIndexOf(agg: MarketAggregate, commitmentId: string): number | undefined {
  const ordinal = ordinalWithin(commitmentId, "c", agg.ref);
  return ordinal === undefined ? undefined : ordinal - 1;
}
