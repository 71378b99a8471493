/**
 * Decision 4: sealed second-price resolution. Eligible bids (at or above the reserve, not excluded)
 * are ranked by amount descending, ties by earlier acceptance; the first wins and pays the larger of
 * the reserve and the second eligible amount (the reserve, or 0 without one, for a sole bid).
 */
import { assert } from "../common/assert.js";
import type { SealedBid } from "../state/state.js";
import type { SealedAuctionConfig, SealedAuctionResolution } from "@market-service/client/wire";

function ranksBefore(a: SealedBid, b: SealedBid): boolean {
  return a.amountMinor > b.amountMinor || (a.amountMinor === b.amountMinor && a.ordinal < b.ordinal);
}

export function resolveSecondPrice(
  bids: readonly SealedBid[],
  excludedBidIds: readonly string[],
  config: SealedAuctionConfig,
): SealedAuctionResolution {
  const reserve = config.reserveAmountMinor ?? 0;
  const excluded = new Set(excludedBidIds);
  // One pass for the top two: O(n), no sort, deterministic by the total order `ranksBefore`.
  let first: SealedBid | undefined;
  let second: SealedBid | undefined;
  for (const bid of bids) {
    if (bid.amountMinor < reserve || excluded.has(bid.bidId)) continue;
    assert(bid.currency === config.currency, "accepted bids are in the market currency");
    if (first === undefined || ranksBefore(bid, first)) {
      second = first;
      first = bid;
    } else if (second === undefined || ranksBefore(bid, second)) {
      second = bid;
    }
  }
  if (first === undefined) return { outcome: "no_trade" };
  const amountMinor = Math.max(reserve, second?.amountMinor ?? 0);
  assert(amountMinor <= first.amountMinor && amountMinor >= reserve, "clearing price lies between reserve and winning bid");
  return {
    outcome: "winner_selected",
    winningBidId: first.bidId,
    winnerPrincipalId: first.principalId,
    clearingPrice: { rule: "second_price", amountMinor, currency: config.currency },
  };
}
