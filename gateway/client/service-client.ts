/**
 * A small client for the service's HTTP API (fetch + the pure-JS signing helpers): used by the
 * `provision`/`token` commands, the black-box tests and the benchmarks. It signs exactly the bytes it
 * sends, so HMAC verification sees the same body.
 */
import { generateKeyPair, signSigningPayload } from "./ed25519.js";
import { signHmacRequest } from "./hmac.js";

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

export class ServiceClient {
  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
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
    const response = await this.fetchImpl(`${this.baseUrl}${pathAndQuery}`, { method, headers, ...(text === undefined ? {} : { body: text }) });
    const responseText = await response.text();
    let parsed: unknown;
    try {
      parsed = responseText === "" ? undefined : JSON.parse(responseText);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text: responseText };
  }

  /** Provision a principal, actor and a fresh key pair through the HMAC-signed admin endpoint. */
  async provision(operator: { actorId: string; secret: string; timestampSeconds?: number }, ids: { principalId: string; actorId?: string; keyId?: string; commandId?: string }): Promise<IdentityFile> {
    const actorId = ids.actorId ?? ids.principalId;
    const keyId = ids.keyId ?? `${actorId}-key-1`;
    const keys = generateKeyPair();
    const response = await this.request(
      "POST",
      "/v1/admin/identities",
      { commandId: ids.commandId ?? `provision-${actorId}-${keyId}`, principalId: ids.principalId, actorId, keyId, publicKey: keys.publicKey },
      { kind: "hmac", ...operator },
    );
    if (response.status !== 201) throw new Error(`provisioning failed: ${response.status} ${response.text}`);
    return { url: this.baseUrl, principalId: ids.principalId, actorId, keyId, privateKey: keys.privateKey };
  }

  /** The Ed25519 challenge → token flow (spec §5.1); resolves with the bearer token. */
  async token(identity: Pick<IdentityFile, "actorId" | "keyId" | "privateKey">): Promise<{ accessToken: string; expiresAt: string }> {
    const challenge = await this.request("POST", "/v1/auth/challenges", { actorId: identity.actorId, keyId: identity.keyId });
    if (challenge.status !== 201) throw new Error(`challenge failed: ${challenge.status} ${challenge.text}`);
    const signature = signSigningPayload(challenge.body.signingPayload, identity.privateKey);
    const grant = await this.request("POST", "/v1/auth/tokens", { challengeId: challenge.body.id, nonce: challenge.body.nonce, signature });
    if (grant.status !== 201) throw new Error(`token failed: ${grant.status} ${grant.text}`);
    return { accessToken: grant.body.accessToken, expiresAt: grant.body.expiresAt };
  }
}
