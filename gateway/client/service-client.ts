/**
 * A small client for the service's HTTP API (fetch + the pure-JS signing helpers): used by the
 * `provision`/`token` commands, the black-box tests and the benchmarks. It signs exactly the bytes it
 * sends, so HMAC verification sees the same body.
 */
import { generateKeyPair, signSigningPayload } from "./ed25519.js";
import { signHmacRequest } from "./hmac.js";
import { unreachable } from "./unreachable.js";

export type Credentials =
  | { kind: "none" }
  | { kind: "bearer"; token: string }
  | { kind: "hmac"; actorId: string; secret: string; timestampSeconds?: number };

export interface ServiceResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body (every reply of the service is JSON). */
  body: any;
  /** The raw body text. */
  text: string;
}

/** What `provision` writes and `token` reads: an actor's identity and private key. Keep it 0600. */
export interface IdentityFile {
  url?: string;
  principalId: string;
  actorId: string;
  keyId: string;
  /** Unpadded base64url Ed25519 seed. */
  privateKey: string;
}

/** The service answered, but not with success: its status and error body, kept for the caller. */
export class ServiceReplyError extends Error {
  override readonly name = "ServiceReplyError";
  constructor(
    /** What was being done, e.g. `provisioning`. */
    readonly action: string,
    readonly status: number,
    /** The spec's error code, when the body was an error body. */
    readonly code: string | undefined,
    readonly serviceMessage: string,
  ) {
    super(`${action} failed: ${status}${code === undefined ? "" : ` ${code}`}: ${serviceMessage}`);
  }

  static of(action: string, response: ServiceResponse): ServiceReplyError {
    const error = (response.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const code = typeof error?.code === "string" ? error.code : undefined;
    const message = typeof error?.message === "string" ? error.message : response.text.slice(0, 200);
    return new ServiceReplyError(action, response.status, code, message);
  }
}

export interface ServiceClientOptions {
  /** Give up on a request after this long (the CLI sets it; tests and benchmarks wait). */
  timeoutMs?: number;
}

export class ServiceClient {
  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly options: ServiceClientOptions = {},
  ) {}

  async request(method: "GET" | "POST" | "PUT" | "DELETE", pathAndQuery: string, body?: unknown, credentials: Credentials = { kind: "none" }, extraHeaders: Record<string, string> = {}): Promise<ServiceResponse> {
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = { ...extraHeaders };
    if (text !== undefined) headers["content-type"] = "application/json";
    if (credentials.kind === "bearer") headers["authorization"] = `Bearer ${credentials.token}`;
    if (credentials.kind === "hmac") {
      const signed = signHmacRequest({
        actorId: credentials.actorId,
        secret: credentials.secret,
        method,
        uri: pathAndQuery,
        ...(text === undefined ? {} : { body: text }),
        timestampSeconds: credentials.timestampSeconds ?? Math.floor(Date.now() / 1000),
      });
      headers["x-service-actor"] = signed["X-Service-Actor"];
      headers["x-service-timestamp"] = signed["X-Service-Timestamp"];
      headers["authorization"] = signed.Authorization;
    }
    const { timeoutMs } = this.options;
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${pathAndQuery}`, {
        method,
        headers,
        ...(text === undefined ? {} : { body: text }),
        ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
      });
    } catch (error) {
      // No HTTP answer at all: name the service and the cause instead of fetch's "fetch failed".
      throw unreachable(this.baseUrl, error, timeoutMs);
    }
    const responseText = await response.text();
    let parsed: unknown;
    try {
      parsed = responseText === "" ? undefined : JSON.parse(responseText);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text: responseText };
  }

  /**
   * Provision a principal, actor and a fresh key pair through the HMAC-signed admin endpoint. The
   * default command id names the key pair, so a retry of this call is idempotent and a later call
   * (a new key pair) is decided on its content: an existing identity is `identity_conflict`.
   */
  async provision(operator: { actorId: string; secret: string; timestampSeconds?: number }, ids: { principalId: string; actorId?: string; keyId?: string; commandId?: string }): Promise<IdentityFile> {
    const actorId = ids.actorId ?? ids.principalId;
    const keyId = ids.keyId ?? `${actorId}-key-1`;
    const keys = generateKeyPair();
    const response = await this.request(
      "POST",
      "/v1/admin/identities",
      { commandId: ids.commandId ?? `provision-${keys.publicKey}`, principalId: ids.principalId, actorId, keyId, publicKey: keys.publicKey },
      { kind: "hmac", ...operator },
    );
    if (response.status !== 201) throw ServiceReplyError.of("provisioning", response);
    return { url: this.baseUrl, principalId: ids.principalId, actorId, keyId, privateKey: keys.privateKey };
  }

  /** The Ed25519 challenge → token flow (spec §5.1); resolves with the bearer token. */
  async token(identity: Pick<IdentityFile, "actorId" | "keyId" | "privateKey">): Promise<{ accessToken: string; expiresAt: string }> {
    const challenge = await this.request("POST", "/v1/auth/challenges", { actorId: identity.actorId, keyId: identity.keyId });
    if (challenge.status !== 201) throw ServiceReplyError.of("challenge", challenge);
    const signature = signSigningPayload(challenge.body.signingPayload, identity.privateKey);
    const grant = await this.request("POST", "/v1/auth/tokens", { challengeId: challenge.body.id, nonce: challenge.body.nonce, signature });
    if (grant.status !== 201) throw ServiceReplyError.of("token", grant);
    return { accessToken: grant.body.accessToken, expiresAt: grant.body.expiresAt };
  }
}
