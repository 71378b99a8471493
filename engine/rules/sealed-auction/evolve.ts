/** Folding sealed-auction events. */
import { assert } from "../common/assert.js";
import type { BidSubmittedDomainEvent } from "../decision/decision.js";
import { msOfNormalized } from "../common/time.js";
import { principalIndexOf, type MarketAggregate } from "../state/state.js";
import { type AuctionResolvedEvent, SEALED_AUCTION_PRESET, type SealedAuctionState } from "@market-service/client/wire";

function auctionState(agg: MarketAggregate): SealedAuctionState {
  assert(agg.market.mechanism.presetId === SEALED_AUCTION_PRESET, "auction event in an auction market");
  return agg.market.mechanismState as SealedAuctionState;
}

export function evolveBidSubmitted(agg: MarketAggregate, event: BidSubmittedDomainEvent): void {
  const state = auctionState(agg);
  assert(event.data.bidCount === state.bidCount + 1, "bids are counted one by one");
  state.bidCount = event.data.bidCount;
  // Only the engine's own events carry the amount; a fold of public events keeps the public state only.
  if (event.sealedBid !== undefined) {
    const submittedAtMs = msOfNormalized(event.occurredAt);
    // Indexed before the bid is pushed, as a claim's principal is before its row: `add` asserts one bid per principal.
    principalIndexOf(agg).add(event.principalId, agg.bids.length + 1);
    agg.bids.push({
      bidId: event.data.bidId,
      ordinal: agg.bids.length + 1,
      principalId: event.principalId,
      amountMinor: event.sealedBid.amountMinor,
      currency: event.sealedBid.currency,
      submittedAtMs,
      marketVersion: event.marketVersion,
    });
  }
}

export function evolveResolved(agg: MarketAggregate, event: AuctionResolvedEvent): void {
  const state = auctionState(agg);
  const resolution = event.data;
  const next: SealedAuctionState = {
    bidCount: state.bidCount,
    resolution: resolution.outcome,
    ...(resolution.outcome === "winner_selected" ? { winningBidId: resolution.winningBidId } : {}),
    ...(state.excludedBidIds === undefined ? {} : { excludedBidIds: state.excludedBidIds }),
  };
  agg.market.state = "closed";
  agg.market.mechanismState = next;
  agg.lastResolution = resolution;
}

/** A declined or expired winner: its bid is excluded before the next resolution is folded. */
export function evolveWinnerReleased(agg: MarketAggregate, commitmentIndex: number): void {
  const state = auctionState(agg);
  const terms = agg.commitments.auctionTerms(commitmentIndex);
  assert(terms !== undefined, "an auction commitment names its winning bid");
  assert(state.winningBidId === terms.winningBidId, "the released commitment is the current winner's");
  const excludedBidIds = [...(state.excludedBidIds ?? []), terms.winningBidId];
  const { winningBidId: _released, ...rest } = state;
  agg.market.mechanismState = { ...rest, excludedBidIds };
}
