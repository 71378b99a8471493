/**
 * How the client authenticates (spec §5), as the headers to add to one request:
 * - `{ kind: "bearer", token }`: a token got elsewhere, or a static MCP token (those the service
 *   accepts on `/mcp` only, spec §5.3);
 * - `{ kind: "hmac", actorId, secret }`: `service-hmac-v1` (spec §5.2), for operators; the request is
 *   signed with the exact body bytes sent and the client's clock (or a fixed `timestampSeconds`);
 * - an `Ed25519Session`: the challenge → token flow (spec §5.1), the token reused until shortly before
 *   it expires and then fetched again, so no request leaves with a token about to lapse.
 */
import { signHmacRequest } from "./hmac.js";
import { MarketServiceError } from "./service-error.js";
import type { AuthenticationTokenGrant } from "./wire/index.js";

/** What `provision` writes and `token` reads: an actor's identity and private key. Keep it 0600. */
export interface IdentityFile {
  url?: string;
  principalId: string;
  actorId: string;
  keyId: string;
  /** Unpadded base64url Ed25519 seed. */
  privateKey: string;
}

export type Credentials =
  | { readonly kind: "none" }
  | { readonly kind: "bearer"; readonly token: string }
  | { readonly kind: "hmac"; readonly actorId: string; readonly secret: string; readonly timestampSeconds?: number }
  | Ed25519Session;

/** The one request being authorized: HMAC signs its method, target and body bytes. */
export interface SignableRequest {
  readonly method: string;
  /** Path plus `?query`, exactly as sent. */
  readonly pathAndQuery: string;
  readonly body: string | undefined;
}

/** Where an Ed25519 session gets a token: the client's own challenge → token calls. */
export type TokenSource = (identity: Pick<IdentityFile, "actorId" | "keyId" | "privateKey">) => Promise<AuthenticationTokenGrant>;

/** By default a token is renewed once less than this is left of it. */
export const DEFAULT_REFRESH_BEFORE_MS = 60_000;

/** What `new Ed25519Session(identity, options)` takes besides the identity. */
export interface Ed25519SessionOptions {
  /** Renew the token once less than this is left of it (default DEFAULT_REFRESH_BEFORE_MS, 60 s). */
  readonly refreshBeforeMs?: number | undefined;
}

/**
 * An actor's Ed25519 key, turned into bearer tokens as needed. One session may serve many concurrent
 * requests: they share one token request. The private key stays in memory; it is never sent.
 */
export class Ed25519Session {
  readonly kind = "ed25519";
  private token: { accessToken: string; expiresAtMs: number } | undefined;
  private pending: Promise<{ accessToken: string; expiresAtMs: number }> | undefined;

  /** Renew once less than this is left before `expiresAt` (also covers clock skew and transit). */
  readonly refreshBeforeMs: number;

  constructor(
    readonly identity: Pick<IdentityFile, "actorId" | "keyId" | "privateKey">,
    options: Ed25519SessionOptions = {},
  ) {
    this.refreshBeforeMs = options.refreshBeforeMs ?? DEFAULT_REFRESH_BEFORE_MS;
    if (!(this.refreshBeforeMs >= 0)) throw new RangeError("refreshBeforeMs must be a non-negative number of milliseconds");
  }

  /** The bearer token to send now: the cached one, or a new one when it is about to expire. */
  async accessToken(source: TokenSource, nowMs: number): Promise<string> {
    const token = this.token;
    if (token !== undefined && nowMs < token.expiresAtMs - this.refreshBeforeMs) return token.accessToken;
    if (this.pending === undefined) {
      this.pending = source(this.identity)
        .then((grant) => {
          const expiresAtMs = Date.parse(grant.expiresAt);
          // The service's reply, not the caller's argument: a MarketServiceError as every bad reply is.
          if (!Number.isFinite(expiresAtMs)) {
            const serviceMessage = `the token grant's expiresAt is not a date-time: ${JSON.stringify(grant.expiresAt)}`;
            throw new MarketServiceError({ code: "unexpected_reply", status: 201, serviceMessage, action: "POST /v1/auth/tokens", message: `POST /v1/auth/tokens: ${serviceMessage}` });
          }
          this.token = { accessToken: grant.accessToken, expiresAtMs };
          return this.token;
        })
        .finally(() => {
          this.pending = undefined;
        });
    }
    return (await this.pending).accessToken;
  }

  /** When the current token expires (ms since the epoch), if one is held. */
  get expiresAtMs(): number | undefined {
    return this.token?.expiresAtMs;
  }

  /** Forget the token (the service refused it): the next request gets a new one. */
  invalidate(): void {
    this.token = undefined;
  }
}

/**
 * After the service refused `credentials` (401): drop what it refused so that the next request
 * gets new ones. True for an Ed25519 session (it signs in again); false for fixed credentials,
 * which a repeat cannot change.
 */
export function renewAfterRefusal(credentials: Credentials): boolean {
  if (credentials.kind !== "ed25519") return false;
  credentials.invalidate();
  return true;
}

/** The authentication headers of one request. */
export async function authorizationHeaders(credentials: Credentials, request: SignableRequest, source: TokenSource, nowMs: number): Promise<Record<string, string>> {
  switch (credentials.kind) {
    case "none":
      return {};
    case "bearer":
      return { authorization: `Bearer ${credentials.token}` };
    case "hmac": {
      const signed = signHmacRequest({
        actorId: credentials.actorId,
        secret: credentials.secret,
        method: request.method,
        uri: request.pathAndQuery,
        ...(request.body === undefined ? {} : { body: request.body }),
        timestampSeconds: credentials.timestampSeconds ?? Math.floor(nowMs / 1000),
      });
      return { "x-service-actor": signed["X-Service-Actor"], "x-service-timestamp": signed["X-Service-Timestamp"], authorization: signed.Authorization };
    }
    case "ed25519":
      return { authorization: `Bearer ${await credentials.accessToken(source, nowMs)}` };
  }
}
