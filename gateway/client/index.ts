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
export { parseReceipt, type Receipt } from "@market-service/client/audit";
export type { SignedHead } from "@market-service/client/audit";
export { base64UrlDecode, base64UrlEncode } from "@market-service/client/wire";
export { generateKeyPair, publicKeyFromPrivateKey, signSigningPayload, type Ed25519KeyPair } from "./ed25519.js";
export { canonicalHmacString, signHmacRequest, type HmacSigningInput, type ServiceHmacHeaders } from "./hmac.js";
// The shapes of requests and replies: the service's own declarations.
export type { CommitmentActionBody, CreateMarketBody, DirectClaimBody, PublishMarketBody, SealedBidBody } from "@market-service/client/wire";
export type { MarketActionResult, MarketResult } from "@market-service/client/wire";
export type { Market } from "@market-service/client/wire";
export type { MarketRecord } from "@market-service/client/wire";
export type { Commitment } from "@market-service/client/wire";
export type { CreateChallengeBody, IssueDelegationBody, IssueTokenBody, ProvisionIdentityBody, RevokeDelegationBody } from "@market-service/client/wire";
export type { Delegation, ProvisionedIdentity } from "@market-service/client/wire";
export type { AuthenticationChallenge, AuthenticationTokenGrant } from "@market-service/client/wire";
export type { MarketOutcome } from "@market-service/client/wire";
export type { LogConsistencyProof, LogHead, LogInclusionProof } from "@market-service/client/wire";
export type { AuditKeyList } from "@market-service/client/wire";
