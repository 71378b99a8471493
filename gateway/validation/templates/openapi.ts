/**
 * typia template (not compiled directly): `npm run generate` turns it into
 * gateway/validation/generated/openapi.ts — OpenAPI 3.1 component schemas for every request and
 * response body, from the same types the gateway validates with.
 */
import typia from "typia";
import type {
  CommitmentActionBody,
  CreateMarketBody,
  DirectClaimBody,
  PublishMarketBody,
  SealedBidBody,
} from "../../../engine/rules/types/command.js";
import type { ErrorBody } from "../../../engine/rules/types/errors.js";
import type { Market } from "../../../engine/rules/types/market.js";
import type { MarketRecord } from "../../../engine/rules/types/record.js";
import type { MarketActionResult, MarketResult } from "../../../engine/rules/types/results.js";
import type { AuthenticationChallenge, AuthenticationTokenGrant } from "../../auth/types.js";
import type { CreateChallengeBody, IssueDelegationBody, IssueTokenBody, ProvisionIdentityBody, RevokeDelegationBody } from "../../../engine/identity/bodies.js";
import type { Delegation, ProvisionedIdentity } from "../../../engine/rules/identity/types.js";
import type { MarketOutcome } from "../../mcp/tool-outputs.js";
import type { HealthStatus } from "../../openapi/health-status.js";
import type { AuditKeyList } from "../../routes/audit-routes.js";
import type { LogConsistencyProof, LogHead, LogInclusionProof } from "../../routes/audit-log-routes.js";

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
