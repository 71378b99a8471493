/**
 * The state a shard keeps per market: the public market and commitments (spec §2.3, §2.6), the private
 * sealed bids, and record bookkeeping. The aggregate is owned by one shard and updated in place, so a
 * claim storm costs O(1) per claim rather than copying 20,000 commitments per command:
 *  - `market` and its `mechanismState` are edited in place; anything handed out (a reply, a record)
 *    takes a `snapshotMarket` copy;
 *  - commitments and the principal set live in the market's storage (store.ts: the rules use its
 *    interface; engine/store/ keeps them as typed-array rows and an index); a `Commitment` object
 *    is built on demand for a reply or a read and belongs to whoever asked for it;
 *  - objects shared with events (creator, subject, mechanism) are never edited.
 */
import { type Commitment, type CommitmentTerms, DIRECT_CLAIM_PRESET, generatedIdOf, type Market, marketRef, ordinalWithin, SEALED_AUCTION_PRESET, type SealedAuctionResolution } from "@market-service/client/wire";
import type { CommitmentStore, MarketStorage, PrincipalSet } from "./store.js";
import { assert, assertNever } from "../common/assert.js";
import { isoFromMs } from "../common/time.js";

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
  /** Where this market's commitments and principal set are kept. */
  readonly storage: MarketStorage;
  /** In creation order: the commitment with ordinal n is at index n − 1. */
  readonly commitments: CommitmentStore;
  /** Private sealed bids in acceptance order: ordinal n at index n − 1. */
  bids: SealedBid[];
  /** The latest auction resolution (public, from `sealed_auction.resolved`), used to create the winner's commitment. */
  lastResolution: SealedAuctionResolution | undefined;
  /**
   * Derived, built on first use from the commitments or bids (`principalIndexOf`), so an idle market
   * carries no map and a restart does not rebuild a million entries before serving: for
   * direct-claim.v1, principal → ordinal of its active (awaiting or committed) commitment; for
   * sealed-forward-auction.v1, principal → ordinal of its bid.
   */
  principalIndex: PrincipalSet | undefined;
  /** Commands recorded in this market's record (accepted and rejected): the last command sequence. */
  commandCount: number;
  /** Events recorded in this market's record: the last event sequence. */
  eventCount: number;
}

/** A market's aggregate in `storage`; `commitments` is given when restoring one from a snapshot. */
export function newAggregate(market: Market, storage: MarketStorage, commitments: CommitmentStore = storage.newCommitments()): MarketAggregate {
  return {
    market,
    ref: marketRef(market.id),
    storage,
    commitments,
    bids: [],
    lastResolution: undefined,
    principalIndex: undefined,
    commandCount: 0,
    eventCount: 0,
  };
}

/** The principal set, built from the market's commitments or bids on first use. */
export function principalIndexOf(agg: MarketAggregate): PrincipalSet {
  agg.principalIndex ??= agg.storage.principals(
    agg.market.mechanism.presetId === DIRECT_CLAIM_PRESET
      ? { presetId: DIRECT_CLAIM_PRESET, commitments: agg.commitments }
      : { presetId: SEALED_AUCTION_PRESET, bids: agg.bids },
  );
  return agg.principalIndex;
}

/** The index, or undefined for a market with nothing to index yet (no index is built for it). */
function indexIfAny(agg: MarketAggregate): PrincipalSet | undefined {
  if (agg.principalIndex === undefined && agg.commitments.count === 0 && agg.bids.length === 0) return undefined;
  return principalIndexOf(agg);
}

/** Whether the principal holds an active commitment (direct claim) or a bid (auction). */
export function hasPrincipal(agg: MarketAggregate, principalId: string): boolean {
  return indexIfAny(agg)?.has(principalId) ?? false;
}

/** Principals in the index: active commitments (direct claim) or bidders (auction). */
export function principalCount(agg: MarketAggregate): number {
  return indexIfAny(agg)?.size ?? 0;
}

/** A copy of the market that later commands cannot change (for replies and records). */
export function snapshotMarket(market: Market): Market {
  const state = market.mechanismState;
  return { ...market, mechanismState: "allocated" in state ? { allocated: state.allocated } : { ...state } };
}

function termsOf(agg: MarketAggregate, index: number): CommitmentTerms {
  const market = agg.market;
  const presetId = market.mechanism.presetId;
  switch (presetId) {
    case DIRECT_CLAIM_PRESET:
      return { subject: market.subject, pricing: market.mechanism.config.pricing };
    case SEALED_AUCTION_PRESET: {
      const terms = agg.commitments.auctionTerms(index);
      assert(terms !== undefined, "an auction commitment has its winner's terms");
      return { subject: market.subject, winningBidId: terms.winningBidId, pricing: terms.pricing };
    }
    default:
      return assertNever(presetId, "mechanism preset");
  }
}

/** The public commitment at a 0-based index, built from its row (spec §2.6 member order). */
export function commitmentAt(agg: MarketAggregate, index: number): Commitment {
  const row = agg.commitments.row(index);
  const market = agg.market;
  const createdAt = isoFromMs(row.createdAtMs);
  const commitment: Commitment = {
    id: generatedIdOf("c", agg.ref, index + 1),
    version: row.version,
    marketId: market.id,
    marketVersion: row.marketVersion,
    creatorPrincipalId: market.creator.principalId,
    participantPrincipalId: row.participantPrincipalId,
    state: row.state,
    terms: termsOf(agg, index),
    requiredConfirmationPrincipalIds: row.requiredConfirmationPrincipalIds,
    confirmedPrincipalIds: row.confirmedPrincipalIds,
    createdAt,
    updatedAt: row.updatedAtMs === row.createdAtMs ? createdAt : isoFromMs(row.updatedAtMs),
  };
  if (row.expiresAtMs !== undefined) commitment.expiresAt = isoFromMs(row.expiresAtMs);
  return commitment;
}

/** Every commitment of the market, in ordinal order (for records and reads). */
export function commitmentsOf(agg: MarketAggregate): Commitment[] {
  const count = agg.commitments.count;
  const commitments = new Array<Commitment>(count);
  for (let index = 0; index < count; index += 1) commitments[index] = commitmentAt(agg, index);
  return commitments;
}

/** The commitment a generated id names, if it belongs to this market. */
export function findCommitment(agg: MarketAggregate, commitmentId: string): Commitment | undefined {
  const index = commitmentIndexOf(agg, commitmentId);
  return index !== undefined && index < agg.commitments.count ? commitmentAt(agg, index) : undefined;
}

/** The 0-based index of a commitment id of this market (the commitment may not exist yet). */
export function commitmentIndexOf(agg: MarketAggregate, commitmentId: string): number | undefined {
  const ordinal = ordinalWithin(commitmentId, "c", agg.ref);
  return ordinal === undefined ? undefined : ordinal - 1;
}
