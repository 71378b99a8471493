/**
 * @market-service/client: the typed client of the market-service HTTP API (docs/client.md), for Node
 * 20 and browsers: `fetch`, Web Crypto, the @noble packages and msgpackr's portable decoder only
 * (test/client/import-graph.test.ts). Every wire shape it sends and receives is declared once, in
 * ./wire/ (also exported alone as @market-service/client/wire), and exported here as a type.
 */
export { MarketClient, RECEIPT_HEADER, type Accepted, type CallOptions, type ClientClock, type CommandInput, type MarketClientOptions, type RetryNotice, type ServiceResponse, type SubscribeOptions } from "./market-client.js";
export { MarketEventsError, subscribeMarketEvents, type MarketEventEnvelope, type MarketEventsBackoff, type MarketEventsOptions, type MarketEventSubscription, type MarketStreamEvent } from "./market-events.js";
export { DEFAULT_REFRESH_BEFORE_MS, Ed25519Session, type Credentials, type IdentityFile } from "./credentials.js";
export { DEFAULT_RETRY, type RetryOptions } from "./retry-policy.js";
export { errorGuards, isMarketServiceError, MarketServiceError, REQUEST_ID_HEADER, SERVICE_ERROR_CODES, type ErrorGuard, type ServiceErrorCode } from "./service-error.js";
export { ServiceUnreachableError } from "./unreachable.js";
export { checkReceiptProof, publicKeysOf, type PublicKeys, type ReceiptCheck, type ReceiptCommand } from "./receipt-check.js";
export { explainProvisionRefusal, type ProvisionIds } from "./provision-refusal.js";
export { parseReceipt, type Receipt, type SignedHead } from "./audit/index.js";
export { base64UrlDecode, base64UrlEncode } from "./wire/index.js";
export { generateKeyPair, publicKeyFromPrivateKey, signSigningPayload, type Ed25519KeyPair } from "./ed25519.js";
export { canonicalHmacString, signHmacRequest, type HmacSigningInput, type ServiceHmacHeaders } from "./hmac.js";
// The wire: requests, replies, events, errors, receipts' heads and proofs.
export type * from "./wire/index.js";
export { AUTHORITY_SCOPES, COMMAND_TYPES, DIRECT_CLAIM_PRESET, ERROR_CODES, EVENT_TYPES, isCreatorEvent, SEALED_AUCTION_PRESET } from "./wire/index.js";
