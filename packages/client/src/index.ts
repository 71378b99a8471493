/**
 * @market-service/client: the typed client of the market-service HTTP API (docs/client.md), for Node
 * 20 and browsers: `fetch`, Web Crypto, the @noble packages and msgpackr's portable decoder only
 * (test/client/import-graph.test.ts). Every wire shape it sends and receives is declared once, in
 * ./wire/ (also exported alone as @market-service/client/wire), and exported here as a type.
 *
 * The proof checks (proof files, key histories, Merkle proofs) are not exported here but from
 * @market-service/client/audit: `checkReceipt` loads them when it runs, so what a browser loads
 * first stays small.
 */
export { MarketClient, RECEIPT_HEADER, type Accepted, type CallOptions, type CheckReceiptOptions, type ClientClock, type CommandInput, type MarketClientOptions, type MyOutcomeOptions, type RequestOptions, type RetryNotice, type ServiceResponse, type SubscribeOptions, type UnauthenticatedCallOptions } from "./market-client.js";
export { subscribeMarketEvents, type MarketEventEnvelope, type MarketEventsBackoff, type MarketEventsOptions, type MarketEventsReconnect, type MarketEventsRequest, type MarketEventSubscription, type MarketStreamEvent } from "./market-events.js";
export { DEFAULT_REFRESH_BEFORE_MS, Ed25519Session, type Credentials, type Ed25519SessionOptions, type IdentityFile, type SignableRequest, type TokenSource } from "./credentials.js";
export { DEFAULT_RETRY, type RetryOptions } from "./retry-policy.js";
export { errorGuards, isMarketServiceError, MARKET_SERVICE_ERROR_CODES, MarketServiceError, REQUEST_ID_HEADER, SERVICE_ERROR_CODES, type ClientErrorCode, type ErrorGuard, type MarketServiceErrorCode, type MarketServiceErrorInit, type ServiceErrorCode } from "./service-error.js";
export type { PublicKeys, ReceiptCheck } from "./audit/receipt-check.js";
export type { ReceiptCommand } from "./audit/receipt-command.js";
export { explainProvisionRefusal, type ProvisionIds } from "./provision-refusal.js";
export { parseReceipt, type Receipt } from "./audit/receipt.js";
export { base64UrlDecode, base64UrlEncode } from "./wire/index.js";
export { generateKeyPair, publicKeyFromPrivateKey, signSigningPayload, type Ed25519KeyPair } from "./ed25519.js";
export { canonicalHmacString, signHmacRequest, type HmacSigningInput, type ServiceHmacHeaders } from "./hmac.js";
// The wire: requests, replies, events, errors, receipts' heads and proofs.
export type * from "./wire/index.js";
export { AUTHORITY_SCOPES, COMMAND_TYPES, DIRECT_CLAIM_PRESET, ERROR_CODES, EVENT_TYPES, isCreatorEvent, SEALED_AUCTION_PRESET, STREAM_END_CODES } from "./wire/index.js";
