/** Spec §2.8: result envelopes. */
import type { SealedAuctionResolution, SealedBidReceipt } from "./auction.js";
import type { Commitment } from "./commitment.js";
import type { Event } from "./event.js";
import type { Market } from "./market.js";

export interface MarketResult {
  market: Market;
  events: Event[];
}

export interface MarketActionResult {
  market: Market;
  /** Commitments created or changed by the command. */
  commitments: Commitment[];
  events: Event[];
  bidReceipts?: SealedBidReceipt[];
  auctionResolution?: SealedAuctionResolution;
}
