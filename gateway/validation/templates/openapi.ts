/**
 * typia template (not compiled directly): `npm run generate` turns it into
 * gateway/validation/generated/openapi.ts — OpenAPI 3.1 component schemas for every request and
 * response body, from the same types the gateway validates with.
 */
import typia from "typia";
import type { AuditKeyList, AuthenticationChallenge, AuthenticationTokenGrant, CommitmentActionBody, CreateChallengeBody, CreateMarketBody, Delegation, DirectClaimBody, ErrorBody, HealthStatus, IssueDelegationBody, IssueTokenBody, LogConsistencyProof, LogHead, LogInclusionProof, Market, MarketActionResult, MarketOutcome, MarketRecord, MarketResult, ProvisionedIdentity, ProvisionIdentityBody, PublishMarketBody, RevokeDelegationBody, SealedBidBody } from "@market-service/client/wire";

export const openApiComponents = typia.json.schemas<
  [
    HealthStatus,
    CreateChallengeBody,
    AuthenticationChallenge,
    IssueTokenBody,
    AuthenticationTokenGrant,
    ProvisionIdentityBody,
    ProvisionedIdentity,
    IssueDelegationBody,
    RevokeDelegationBody,
    Delegation,
    CreateMarketBody,
    PublishMarketBody,
    DirectClaimBody,
    SealedBidBody,
    CommitmentActionBody,
    MarketResult,
    MarketActionResult,
    Market,
    MarketRecord,
    MarketOutcome,
    AuditKeyList,
    LogHead,
    LogInclusionProof,
    LogConsistencyProof,
    ErrorBody,
  ],
  "3.1"
>();
