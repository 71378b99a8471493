/**
 * MCP tool inputs (spec §4.3): the HTTP request bodies plus the path id as an input field. They are
 * the single source of the tools' JSON Schemas (typia, see gateway/validation/templates/mcp.ts) and
 * of their strict validation; the JSDoc here becomes the field descriptions a model reads. One
 * exception: create_market's input is validated with its mechanism left open
 * (UncheckedCreateMarketBody, gateway/validation/templates/mcp.ts), as POST /v1/markets is.
 */
import type { AuthorityRef, CommitmentActionBody, CreateMarketBody, DirectClaimBody, GeneratedId, MarketId, PrincipalId, PublishMarketBody, SealedBidBody } from "@market-service/client/wire";

interface MarketTarget {
  /** Id of the market, as chosen by its creator. */
  marketId: MarketId;
}

interface CommitmentTarget {
  /** Id of the commitment (from a claim result, an auction resolution or get_my_market_outcome). */
  commitmentId: GeneratedId;
}

/** create_market: the body of POST /v1/markets. */
export type CreateMarketInput = CreateMarketBody;
/** publish_market */
export interface PublishMarketInput extends PublishMarketBody, MarketTarget {}
/** submit_direct_claim */
export interface SubmitDirectClaimInput extends DirectClaimBody, MarketTarget {}
/** submit_sealed_bid */
export interface SubmitSealedBidInput extends SealedBidBody, MarketTarget {}
/** confirm_commitment */
export interface ConfirmCommitmentInput extends CommitmentActionBody, CommitmentTarget {}
/** decline_commitment */
export interface DeclineCommitmentInput extends CommitmentActionBody, CommitmentTarget {}
/** get_market */
export interface GetMarketInput extends MarketTarget {}
/** get_market_record */
export interface GetMarketRecordInput extends MarketTarget {}
/** get_my_market_outcome */
export interface GetMyMarketOutcomeInput extends MarketTarget {
  /** Principal whose outcome to read; default: the authenticated actor itself. */
  principalId?: PrincipalId;
  /** Delegation (holding any market scope) to read another principal's outcome with. */
  authorityRef?: AuthorityRef;
}
