/** Spec §2.7: sealed-auction types. */
import type {
  Currency,
  DateTime,
  GeneratedId,
  MarketId,
  NonNegativeAmountMinor,
  PositiveSafeUint64,
  PrincipalId,
} from "./shared.js";

/** Amount-free acknowledgement of an accepted sealed bid. */
export interface SealedBidReceipt {
  bidId: GeneratedId;
  marketId: MarketId;
  marketVersion: PositiveSafeUint64;
  state: "active";
  submittedAt: DateTime;
}

export interface SealedAuctionClearingPrice {
  rule: "second_price";
  /** Second-highest eligible bid, or the reserve when higher; zero with one bidder and no reserve. */
  amountMinor: NonNegativeAmountMinor;
  currency: Currency;
}

export type SealedAuctionResolution = NoTradeResolution | WinnerSelectedResolution;
export interface NoTradeResolution {
  outcome: "no_trade";
}
export interface WinnerSelectedResolution {
  outcome: "winner_selected";
  winningBidId: GeneratedId;
  winnerPrincipalId: PrincipalId;
  clearingPrice: SealedAuctionClearingPrice;
}
