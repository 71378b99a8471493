/**
 * market-service/client: the typed client SDK (docs/client.md). Node 20 and browsers: `fetch`, Web
 * Crypto and the @noble packages only (test/client/import-graph.test.ts).
 */
export { MarketClient, RECEIPT_HEADER, type Accepted, type CallOptions, type ClientClock, type CommandInput, type MarketClientOptions, type RetryNotice, type ServiceResponse, type SubscribeOptions } from "./market-client.js";
export { MarketEventsError, subscribeMarketEvents, type MarketEventEnvelope, type MarketEventsBackoff, type MarketEventsOptions, type MarketEventSubscription, type MarketStreamEvent } from "./market-events.js";
export { DEFAULT_REFRESH_BEFORE_MS, Ed25519Session, type Credentials, type IdentityFile } from "./credentials.js";
export { DEFAULT_RETRY, type RetryOptions } from "./retry-policy.js";
export { errorGuards, isMarketServiceError, MarketServiceError, REQUEST_ID_HEADER, SERVICE_ERROR_CODES, type ErrorGuard, type ServiceErrorCode } from "./service-error.js";
export { ServiceUnreachableError } from "./unreachable.js";
export { checkReceiptProof, publicKeysOf, type PublicKeys, type ReceiptCheck, type ReceiptCommand } from "./receipt-check.js";
export { parseReceipt, type Receipt } from "../../engine/audit/heads/receipt.js";
export type { SignedHead } from "../../engine/audit/heads/signed-head.js";
export { base64UrlDecode, base64UrlEncode } from "../../engine/rules/base64url.js";
export { generateKeyPair, publicKeyFromPrivateKey, signSigningPayload, type Ed25519KeyPair } from "./ed25519.js";
export { canonicalHmacString, signHmacRequest, type HmacSigningInput, type ServiceHmacHeaders } from "./hmac.js";
// The shapes of requests and replies: the service's own declarations.
export type { CommitmentActionBody, CreateMarketBody, DirectClaimBody, PublishMarketBody, SealedBidBody } from "../../engine/rules/types/command.js";
export type { MarketActionResult, MarketResult } from "../../engine/rules/types/results.js";
export type { Market } from "../../engine/rules/types/market.js";
export type { MarketRecord } from "../../engine/rules/types/record.js";
export type { Commitment } from "../../engine/rules/types/commitment.js";
export type { CreateChallengeBody, IssueDelegationBody, IssueTokenBody, ProvisionIdentityBody, RevokeDelegationBody } from "../../engine/identity/bodies.js";
export type { Delegation, ProvisionedIdentity } from "../../engine/rules/identity/types.js";
export type { AuthenticationChallenge, AuthenticationTokenGrant } from "../auth/types.js";
export type { MarketOutcome } from "../mcp/tool-outputs.js";
export type { LogConsistencyProof, LogHead, LogInclusionProof } from "../routes/audit-log-routes.js";
export type { AuditKeyList } from "../routes/audit-routes.js";
