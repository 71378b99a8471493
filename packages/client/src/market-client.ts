/**
 * The typed client of the service's HTTP API (docs/client.md): one method per endpoint of the spec
 * (§4.1) and of the documented extensions a client needs (my-outcome, audit keys, log heads and
 * proofs), credentials (credentials.ts), command ids, safe retries (retry-policy.ts), one error class
 * (service-error.ts) and receipts (audit/receipt.ts, checked by audit/receipt-check.ts).
 *
 * Browser-safe: `fetch`, Web Crypto's `randomUUID`, the @noble packages and msgpackr's decoder only;
 * request and response types are the wire declarations (./wire/), the very ones the service validates
 * against and replies with (one declaration of each shape). test/client/import-graph.test.ts keeps
 * it so. The receipt check (and with it the proof checks and msgpackr) is imported only when
 * `checkReceipt` runs, so a bundle of the client loads it only then.
 */
import { parseReceipt, type Receipt } from "./audit/receipt.js";
import type { PublicKeys, ReceiptCheck } from "./audit/receipt-check.js";
import type { ReceiptCommand } from "./audit/receipt-command.js";
import type { AuditKeyList, AuthenticationChallenge, AuthenticationTokenGrant, CommitmentActionBody, CreateChallengeBody, CreateMarketBody, Delegation, DirectClaimBody, HealthStatus, IssueDelegationBody, IssueTokenBody, LogConsistencyProof, LogHead, LogInclusionProof, Market, MarketActionResult, MarketOutcome, MarketRecord, MarketResult, ProvisionedIdentity, ProvisionIdentityBody, PublishMarketBody, RevokeDelegationBody, SealedBidBody } from "./wire/index.js";
import { authorizationHeaders, renewAfterRefusal, type Credentials, type IdentityFile } from "./credentials.js";
import { subscribeMarketEvents, type MarketEventsOptions, type MarketEventSubscription } from "./market-events.js";
import { generateKeyPair, signSigningPayload } from "./ed25519.js";
import { backoffMs, isRetryableStatus, retryAfterMs, retryOptionsOf, type RetryOptions } from "./retry-policy.js";
import { pathSegment } from "./path-segment.js";
import { strictBytesOfBase64url } from "./wire/base64url.js";
import { MarketServiceError, REQUEST_ID_HEADER } from "./service-error.js";
import { unreachable } from "./unreachable.js";

/** The response header of an accepted command's receipt (docs/proofs.md, "Receipts"). */
export const RECEIPT_HEADER = "market-receipt";

/** Time as the client sees it; tests inject one to move time without waiting. */
export interface ClientClock {
  nowMs(): number;
}

export interface MarketClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080` (a trailing slash is dropped). */
  readonly baseUrl: string;
  /** The credentials of every call that does not pass its own; default none. */
  readonly credentials?: Credentials;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Give up on one attempt after this long (it then counts as a network error, which is retried). */
  readonly timeoutMs?: number;
  /** Retries of commands and reads (retry-policy.ts); `false` switches them off. */
  readonly retry?: RetryOptions | false;
  /** Default: the system clock. */
  readonly clock?: ClientClock;
  /** How to wait between attempts (default: a timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the backoff's jitter (default Math.random). */
  readonly random?: () => number;
  /** A command id for a command given none (default: Web Crypto's randomUUID). */
  readonly newCommandId?: () => string;
  /** Told before each wait for a retry: what failed, and how long until the next attempt. */
  readonly onRetry?: (retry: RetryNotice) => void;
}

/** What `onRetry` is told. */
export interface RetryNotice {
  /** What the client was doing, e.g. `POST /v1/markets/m/direct-claims`. */
  readonly action: string;
  /** The attempt that failed (1 for the first). */
  readonly attempt: number;
  /** The wait before the next attempt. */
  readonly delayMs: number;
  /** Why: the 503 or 429 reply, or no answer (code `unreachable`). */
  readonly failure: MarketServiceError;
}

/** Per call: other credentials than the client's, and extra request headers. */
export interface CallOptions {
  readonly credentials?: Credentials;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What `getMyOutcome` takes: the principal to ask for (one that delegated to the actor), and the call's options. */
export interface MyOutcomeOptions extends CallOptions {
  /** Another principal than the actor's own, and the delegation that lets the actor act for it. */
  readonly forPrincipal?: { readonly principalId: string; readonly authorityRef: string } | undefined;
}

/** What `checkReceipt` takes: the command the receipt is for, and the call's options. */
export interface CheckReceiptOptions extends CallOptions {
  /** The command you sent: the proven entry must be it. */
  readonly command: ReceiptCommand;
  /** `false`: do not fetch a head signed now and the consistency proof to it. */
  readonly laterHead?: boolean | undefined;
}

/** What the low-level `request` takes: a body (a string is sent as is, anything else as its JSON), credentials, headers. */
export interface RequestOptions {
  readonly body?: unknown;
  /** Default: the client's. */
  readonly credentials?: Credentials | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * What the unauthenticated calls take (health, createChallenge, issueToken, signIn, auditKeys): the
 * call's options without credentials, which those requests never carry.
 */
export type UnauthenticatedCallOptions = Omit<CallOptions, "credentials">;

/** What `subscribe` takes: the stream's options, other credentials than the client's, and extra request headers. */
export type SubscribeOptions = Omit<MarketEventsOptions, "baseUrl" | "marketId" | "headers" | "fetch" | "renewCredentials"> & CallOptions;

/** One HTTP exchange as it happened: the low-level `request` answers with it. */
export interface ServiceResponse {
  status: number;
  headers: Headers;
  /**
   * The parsed JSON body (every reply of the service is JSON), undefined when there is none. Untyped
   * on purpose: `request` is the escape hatch for what the typed methods do not cover (tests of
   * malformed requests, raw replies); the typed methods give their declared types.
   */
  body: any;
  /** The raw body text. */
  text: string;
}

/** A command's body with its `commandId` optional: the client makes one when none is given. */
export type CommandInput<Body extends { commandId: string }> = Omit<Body, "commandId"> & { commandId?: Body["commandId"] };

/** An accepted command: the spec's body, plus what the client learned about it. */
export interface Accepted<Body> {
  readonly body: Body;
  readonly status: number;
  /** The command id sent (given, or made by the client); every attempt carried it. */
  readonly commandId: string;
  /**
   * The parsed `Market-Receipt` header, plain JSON (it survives JSON.stringify and JSON.parse, and
   * `checkReceipt` takes it back); null when there was none (or it could not be read: see receiptText).
   */
  readonly receipt: Receipt | null;
  /** The header's text as sent, to save as is; null when there was none. */
  readonly receiptText: string | null;
  readonly requestId: string | undefined;
  /** Attempts made (1 when no retry was needed). */
  readonly attempts: number;
}

type Method = "GET" | "POST" | "PUT" | "DELETE";

interface Exchange {
  method: Method;
  pathAndQuery: string;
  body: string | undefined;
  credentials: Credentials;
  headers: Readonly<Record<string, string>>;
  /** A repeat cannot do anything twice (a read, or a command with its commandId): retry even after no answer. */
  idempotent: boolean;
  /** 2xx statuses that mean success. */
  success: readonly number[];
}

export class MarketClient {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retry: Required<RetryOptions>;
  private readonly clock: ClientClock;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly newCommandId: () => string;

  constructor(readonly options: MarketClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.retry = retryOptionsOf(options.retry);
    this.clock = options.clock ?? { nowMs: () => Date.now() };
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.newCommandId = options.newCommandId ?? (() => globalThis.crypto.randomUUID());
  }

  /** The same client with other default credentials (shares nothing mutable but an Ed25519 session's token). */
  withCredentials(credentials: Credentials): MarketClient {
    return new MarketClient({ ...this.options, credentials });
  }

  // ------------------------------------------------------------------------------------------
  // Health and authentication (spec §4.2, §5.1).
  // ------------------------------------------------------------------------------------------

  /** GET /healthz: `{status: "ok"}` once the service takes requests. */
  health(options: UnauthenticatedCallOptions = {}): Promise<HealthStatus> {
    return this.read("/healthz", { ...options, credentials: { kind: "none" } });
  }

  /** POST /v1/auth/challenges (unauthenticated). */
  async createChallenge(body: CreateChallengeBody, options: UnauthenticatedCallOptions = {}): Promise<AuthenticationChallenge> {
    return (await this.exchange<AuthenticationChallenge>({ ...this.plain("POST", "/v1/auth/challenges", body, options), credentials: { kind: "none" }, idempotent: true, success: [201] })).body;
  }

  /** POST /v1/auth/tokens (unauthenticated): consumes the challenge, so it is not repeated after a lost answer. */
  async issueToken(body: IssueTokenBody, options: UnauthenticatedCallOptions = {}): Promise<AuthenticationTokenGrant> {
    return (await this.exchange<AuthenticationTokenGrant>({ ...this.plain("POST", "/v1/auth/tokens", body, options), credentials: { kind: "none" }, idempotent: false, success: [201] })).body;
  }

  /** The whole Ed25519 flow: a challenge, its payload signed with the identity's key, a token. */
  async signIn(identity: Pick<IdentityFile, "actorId" | "keyId" | "privateKey">, options: UnauthenticatedCallOptions = {}): Promise<AuthenticationTokenGrant> {
    const challenge = await this.createChallenge({ actorId: identity.actorId, keyId: identity.keyId }, options);
    // The payload is the service's reply: one that is not base64url is the reply's fault, not the
    // caller's, so it is a MarketServiceError (a malformed private key stays a plain Error).
    if (strictBytesOfBase64url(challenge.signingPayload) === undefined) {
      const serviceMessage = "the challenge's signingPayload is not unpadded base64url";
      throw new MarketServiceError({ code: "unexpected_reply", status: 201, serviceMessage, action: "POST /v1/auth/challenges", message: `POST /v1/auth/challenges: ${serviceMessage}` });
    }
    const signature = signSigningPayload(challenge.signingPayload, identity.privateKey);
    return this.issueToken({ challengeId: challenge.id, nonce: challenge.nonce, signature }, options);
  }

  // ------------------------------------------------------------------------------------------
  // Identities and delegations (spec §4.2).
  // ------------------------------------------------------------------------------------------

  /** POST /v1/admin/identities (operator actors, HMAC). */
  provisionIdentity(body: CommandInput<ProvisionIdentityBody>, options: CallOptions = {}): Promise<Accepted<ProvisionedIdentity>> {
    return this.command(() => "/v1/admin/identities", body, [201], options);
  }

  /**
   * A fresh Ed25519 key pair provisioned as principal + actor + key: the identity file to keep (it
   * holds the private key). The default command id names the key pair, so a repeat of this call is
   * idempotent and a later call (a new key pair) meets `identity_conflict` for ids that exist.
   */
  async provisionNewIdentity(ids: { principalId: string; actorId?: string; keyId?: string; commandId?: string }, options: CallOptions = {}): Promise<IdentityFile> {
    const actorId = ids.actorId ?? ids.principalId;
    const keyId = ids.keyId ?? `${actorId}-key-1`;
    const keys = generateKeyPair();
    await this.provisionIdentity({ commandId: ids.commandId ?? `provision-${keys.publicKey}`, principalId: ids.principalId, actorId, keyId, publicKey: keys.publicKey }, options);
    return { url: this.baseUrl, principalId: ids.principalId, actorId, keyId, privateKey: keys.privateKey };
  }

  /** POST /v1/delegations. */
  issueDelegation(body: CommandInput<IssueDelegationBody>, options: CallOptions = {}): Promise<Accepted<Delegation>> {
    return this.command(() => "/v1/delegations", body, [201], options);
  }

  /** POST /v1/delegations/{delegationId}/revoke. */
  revokeDelegation(delegationId: string, body: CommandInput<RevokeDelegationBody>, options: CallOptions = {}): Promise<Accepted<Delegation>> {
    return this.command(() => `/v1/delegations/${pathSegment("delegationId", delegationId)}/revoke`, body, [200], options);
  }

  // ------------------------------------------------------------------------------------------
  // Markets and commitments (spec §4.2).
  // ------------------------------------------------------------------------------------------

  /** POST /v1/markets: a draft. */
  createMarket(body: CommandInput<CreateMarketBody>, options: CallOptions = {}): Promise<Accepted<MarketResult>> {
    return this.command(() => "/v1/markets", body, [201], options);
  }

  /** POST /v1/markets/{marketId}/publish. */
  publishMarket(marketId: string, body: CommandInput<PublishMarketBody>, options: CallOptions = {}): Promise<Accepted<MarketResult>> {
    return this.command(() => `/v1/markets/${pathSegment("marketId", marketId)}/publish`, body, [200], options);
  }

  /** POST /v1/markets/{marketId}/direct-claims. */
  submitDirectClaim(marketId: string, body: CommandInput<DirectClaimBody>, options: CallOptions = {}): Promise<Accepted<MarketActionResult>> {
    return this.command(() => `/v1/markets/${pathSegment("marketId", marketId)}/direct-claims`, body, [200], options);
  }

  /** POST /v1/markets/{marketId}/sealed-bids. */
  submitSealedBid(marketId: string, body: CommandInput<SealedBidBody>, options: CallOptions = {}): Promise<Accepted<MarketActionResult>> {
    return this.command(() => `/v1/markets/${pathSegment("marketId", marketId)}/sealed-bids`, body, [200], options);
  }

  /** POST /v1/commitments/{commitmentId}/confirm. */
  confirmCommitment(commitmentId: string, body: CommandInput<CommitmentActionBody>, options: CallOptions = {}): Promise<Accepted<MarketActionResult>> {
    return this.command(() => `/v1/commitments/${pathSegment("commitmentId", commitmentId)}/confirm`, body, [200], options);
  }

  /** POST /v1/commitments/{commitmentId}/decline. */
  declineCommitment(commitmentId: string, body: CommandInput<CommitmentActionBody>, options: CallOptions = {}): Promise<Accepted<MarketActionResult>> {
    return this.command(() => `/v1/commitments/${pathSegment("commitmentId", commitmentId)}/decline`, body, [200], options);
  }

  /** GET /v1/markets/{marketId}. */
  async getMarket(marketId: string, options: CallOptions = {}): Promise<Market> {
    return this.read(`/v1/markets/${pathSegment("marketId", marketId)}`, options);
  }

  /** GET /v1/markets/{marketId}/record (the creator only). */
  async getMarketRecord(marketId: string, options: CallOptions = {}): Promise<MarketRecord> {
    return this.read(`/v1/markets/${pathSegment("marketId", marketId)}/record`, options);
  }

  /** GET /v1/markets/{marketId}/my-outcome (docs/endpoints.md): the actor's own principal, or one that delegated to it. */
  async getMyOutcome(marketId: string, options: MyOutcomeOptions = {}): Promise<MarketOutcome> {
    const { forPrincipal } = options;
    const query = forPrincipal === undefined ? "" : `?principalId=${encodeURIComponent(forPrincipal.principalId)}&authorityRef=${encodeURIComponent(forPrincipal.authorityRef)}`;
    return this.read(`/v1/markets/${pathSegment("marketId", marketId)}/my-outcome${query}`, options);
  }

  /**
   * GET /v1/markets/{marketId}/events: the market's live events (docs/events.md), as this client's
   * credentials may see them, resuming after the last sequence seen across reconnects. Iterate the
   * result, or pass `onEvent`. Every (re)connection is authorized as the methods above are (a
   * session's token renewed, HMAC signed over the request it makes), and a 401 is met as a command
   * meets it: a session signs in again once, and the subscription goes on. A market id no URL can
   * name (`.`, `..`) throws MarketServiceError `invalid_request` before anything is sent; the
   * subscription ends with a MarketServiceError when retrying cannot help (its `code` says why).
   */
  subscribe(marketId: string, options: SubscribeOptions = {}): MarketEventSubscription {
    const credentials = options.credentials ?? this.options.credentials ?? { kind: "none" };
    return subscribeMarketEvents({
      ...options,
      baseUrl: this.baseUrl,
      marketId,
      fetch: this.fetchImpl,
      // The caller's headers under the credentials', as every other call merges them.
      headers: async (request) => ({ ...options.headers, ...(await authorizationHeaders(credentials, { method: request.method, pathAndQuery: request.pathAndQuery, body: undefined }, (identity) => this.signIn(identity), this.clock.nowMs())) }),
      renewCredentials: () => renewAfterRefusal(credentials),
    });
  }

  // ------------------------------------------------------------------------------------------
  // Audit: keys, signed heads, proofs, receipts (docs/proofs.md; docs/endpoints.md).
  // ------------------------------------------------------------------------------------------

  /** GET /v1/audit/keys (unauthenticated): the keys that sign log heads, oldest first. */
  auditKeys(options: UnauthenticatedCallOptions = {}): Promise<AuditKeyList> {
    return this.read("/v1/audit/keys", { ...options, credentials: { kind: "none" } });
  }

  /** GET /v1/audit/logs/{logId}/head: a head signed now over the log's whole tree. */
  async logHead(logId: string, options: CallOptions = {}): Promise<LogHead> {
    return this.read(`/v1/audit/logs/${pathSegment("logId", logId)}/head`, options);
  }

  /** GET /v1/audit/logs/{logId}/inclusion: leaf `leafIndex`'s path in the tree of `treeSize` entries. */
  async inclusionProof(logId: string, leafIndex: number, treeSize: number, options: CallOptions = {}): Promise<LogInclusionProof> {
    return this.read(`/v1/audit/logs/${pathSegment("logId", logId)}/inclusion?leafIndex=${leafIndex}&treeSize=${treeSize}`, options);
  }

  /** GET /v1/audit/logs/{logId}/consistency: the tree of `from` entries is a prefix of the tree of `to`. */
  async consistencyProof(logId: string, from: number, to: number, options: CallOptions = {}): Promise<LogConsistencyProof> {
    return this.read(`/v1/audit/logs/${pathSegment("logId", logId)}/consistency?from=${from}&to=${to}`, options);
  }

  /**
   * Checks a receipt against the service's public keys (a map keyId → raw key, or the audit key list
   * you trust, whose endorsement chain is checked): fetches its inclusion proof and, unless
   * `laterHead: false`, a head signed now and the consistency proof to it, then runs the offline
   * checker (packages/client/src/audit/proof-file.ts), which also requires the proven entry to be `command`,
   * the command you sent (any leaf has a valid proof: only its content ties the receipt's index to
   * your command). Resolves with the outcome and the proof file to keep; a proof the service cannot
   * give (a log shorter than the receipt's head) is a failed check; a service out of reach rejects
   * (code `unreachable`: nothing could be checked).
   *
   * `receipt`: an accepted command's `receipt` (or that object after JSON.stringify and JSON.parse),
   * or the header's text; either is checked member by member before use.
   */
  async checkReceipt(receipt: Receipt | string, publicKeys: PublicKeys, options: CheckReceiptOptions): Promise<ReceiptCheck> {
    // Loaded here, not at the top: most users never check a receipt, and bundlers split a dynamic
    // import into a chunk of its own, so they never load the proof checks either.
    const { checkReceiptProof, checkedKeysOf } = await import("./audit/receipt-check.js");
    // Keys that cannot be used make every check pointless: said before asking the service anything.
    const usable = checkedKeysOf(publicKeys);
    if (!usable.ok) return { outcome: "unusable", reason: usable.reason };
    const keys = usable.keys;
    const parsed = parseReceipt(typeof receipt === "string" ? receipt : JSON.stringify(receipt));
    if (!parsed.ok) return { outcome: "unusable", reason: `receipt: ${parsed.message}` };
    const { head, leafIndex } = parsed.receipt;
    const file: Record<string, unknown> = { receipt: parsed.receipt, command: options.command };
    try {
      file["inclusion"] = await this.inclusionProof(head.logId, leafIndex, head.treeSize, options);
    } catch (error) {
      // A refusal says the service has no such proof; no answer, 429 and 5xx say nothing about it.
      if (!(error instanceof MarketServiceError) || error.code === "unreachable" || error.status === 429 || error.status >= 500) throw error;
      return { outcome: "failed", check: "inclusion proof", reason: `the service gives no inclusion proof of leaf ${leafIndex} in a tree of ${head.treeSize}: ${error.serviceMessage}` };
    }
    if (options.laterHead !== false) {
      const later = await this.logHead(head.logId, options);
      if (later.treeSize < head.treeSize) {
        return { outcome: "failed", check: "later head", reason: `log ${head.logId} now has ${later.treeSize} entries, fewer than the ${head.treeSize} the receipt's head signs`, proofFile: file };
      }
      if (later.treeSize > head.treeSize) {
        file["head"] = later;
        file["consistency"] = await this.consistencyProof(head.logId, head.treeSize, later.treeSize, options);
      }
    }
    return checkReceiptProof(file, keys);
  }

  // ------------------------------------------------------------------------------------------
  // The exchange: one request, its credentials, retries and errors.
  // ------------------------------------------------------------------------------------------

  /**
   * One raw HTTP exchange, no retry, whatever the status: the escape hatch for what the typed
   * methods do not cover. `body` is sent as is when a string, else as its JSON; `credentials`
   * default to the client's.
   */
  async request(method: Method, pathAndQuery: string, options: RequestOptions = {}): Promise<ServiceResponse> {
    const { body } = options;
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const credentials = options.credentials ?? this.options.credentials ?? { kind: "none" };
    const { response, text: responseText } = await this.attempt({ method, pathAndQuery, body: text, credentials, headers: options.headers ?? {}, idempotent: false });
    let parsed: unknown;
    try {
      parsed = responseText === "" ? undefined : JSON.parse(responseText);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text: responseText };
  }

  private plain(method: Method, pathAndQuery: string, body: unknown, options: CallOptions): Omit<Exchange, "idempotent" | "success"> {
    return {
      method,
      pathAndQuery,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: options.credentials ?? this.options.credentials ?? { kind: "none" },
      headers: options.headers ?? {},
    };
  }

  private async read<Body>(pathAndQuery: string, options: CallOptions): Promise<Body> {
    return (await this.exchange<Body>({ ...this.plain("GET", pathAndQuery, undefined, options), idempotent: true, success: [200] })).body;
  }

  /**
   * A command: its id fixed once, into the body bytes every attempt sends again. Every error the
   * SDK throws for it carries that id (`commandId`), so the caller can repeat the command safely to
   * learn its outcome. `pathAndQuery` is computed inside, so a refused id does too.
   */
  private async command<Body>(pathAndQuery: () => string, input: { commandId?: string }, success: readonly number[], options: CallOptions): Promise<Accepted<Body>> {
    const commandId = input.commandId ?? this.newCommandId();
    let reply: { body: Body; response: Response; attempts: number };
    try {
      reply = await this.exchange<Body>({ ...this.plain("POST", pathAndQuery(), { ...input, commandId }, options), idempotent: true, success });
    } catch (error) {
      throw error instanceof MarketServiceError ? error.forCommand(commandId) : error;
    }
    const receiptText = reply.response.headers.get(RECEIPT_HEADER);
    const parsed = receiptText === null ? undefined : parseReceipt(receiptText);
    return {
      body: reply.body,
      status: reply.response.status,
      commandId,
      receipt: parsed?.ok === true ? parsed.receipt : null,
      receiptText,
      requestId: reply.response.headers.get(REQUEST_ID_HEADER) ?? undefined,
      attempts: reply.attempts,
    };
  }

  /** Attempts until success, a refusal, or the retry budget is spent; the last failure is thrown. */
  private async exchange<Body>(exchange: Exchange): Promise<{ body: Body; response: Response; attempts: number }> {
    const action = `${exchange.method} ${exchange.pathAndQuery}`;
    const startedMs = this.clock.nowMs();
    let refreshedToken = false;
    for (let attempts = 1; ; attempts += 1) {
      let waitMs: number | undefined;
      let failure: MarketServiceError;
      try {
        const { response, text } = await this.attempt(exchange);
        if (exchange.success.includes(response.status)) return { body: successBody<Body>(action, response, text), response, attempts };
        failure = MarketServiceError.fromReply(action, response.status, response.headers, text);
        if (response.status === 401 && !refreshedToken && renewAfterRefusal(exchange.credentials)) {
          // A token the service no longer takes (expired by its clock, or revoked): get another once.
          refreshedToken = true;
          attempts -= 1;
          continue;
        }
        if (!isRetryableStatus(response.status)) throw failure;
        waitMs = retryAfterMs(response.headers.get("retry-after"), this.clock.nowMs());
      } catch (error) {
        if (!(error instanceof MarketServiceError) || error.code !== "unreachable" || !exchange.idempotent || error.lasting) throw error;
        failure = error;
      }
      if (attempts >= this.retry.maxAttempts) throw failure;
      const delay = waitMs ?? backoffMs(this.retry, attempts, this.random);
      if (this.clock.nowMs() + delay - startedMs > this.retry.maxElapsedMs) throw failure;
      this.options.onRetry?.({ action, attempt: attempts, delayMs: delay, failure });
      await this.sleep(delay);
    }
  }

  /** One request on the wire; a request that gets no HTTP answer throws MarketServiceError `unreachable`. */
  private async attempt(exchange: Omit<Exchange, "success">): Promise<{ response: Response; text: string }> {
    const auth = await authorizationHeaders(exchange.credentials, exchange, (identity) => this.signIn(identity), this.clock.nowMs());
    const headers: Record<string, string> = { ...exchange.headers, ...auth };
    if (exchange.body !== undefined) headers["content-type"] = "application/json";
    const { timeoutMs } = this.options;
    let response: Response;
    let text: string;
    const attemptStartedMs = this.clock.nowMs();
    try {
      response = await this.fetchImpl(`${this.baseUrl}${exchange.pathAndQuery}`, {
        method: exchange.method,
        headers,
        ...(exchange.body === undefined ? {} : { body: exchange.body }),
        ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
      });
      text = await response.text();
    } catch (error) {
      // No (whole) HTTP answer: name the service and the cause instead of fetch's "fetch failed".
      throw unreachable(this.baseUrl, `${exchange.method} ${exchange.pathAndQuery}`, error, timeoutMs, this.clock.nowMs() - attemptStartedMs);
    }
    return { response, text };
  }
}

/** A success reply's JSON; a body that is not JSON (a proxy's page) is a MarketServiceError `unexpected_reply`. */
function successBody<Body>(action: string, response: Response, text: string): Body {
  try {
    return JSON.parse(text) as Body;
  } catch {
    throw MarketServiceError.fromReply(action, response.status, response.headers, text);
  }
}
