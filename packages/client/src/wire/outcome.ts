/** Output types of MCP tools beyond the spec's result envelopes. */
import type { SealedBidReceipt } from "./auction.js";
import type { Commitment } from "./commitment.js";
import type { MarketId, PrincipalId } from "./shared.js";

/** get_my_market_outcome (and GET /v1/markets/{marketId}/my-outcome): one principal's own view. */
export interface MarketOutcome {
  marketId: MarketId;
  principalId: PrincipalId;
  /** The principal's accepted sealed bids (amount-free). */
  bidReceipts: SealedBidReceipt[];
  /** Commitments in which the principal is the participant or the creator. */
  commitments: Commitment[];
}
