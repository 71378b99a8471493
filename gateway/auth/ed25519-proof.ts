/**
 * Spec §5.1: Ed25519 proof of key possession, exchanged for an opaque bearer token.
 *
 *   createChallenge({actorId, keyId}) → {id, nonce, expiresAt, signingPayload, ...}
 *   issueToken({challengeId, nonce, signature}) → {accessToken, tokenType: "Bearer", actorId, expiresAt}
 *
 * Every failure is the same 401 `unauthenticated` "request authentication failed", so a caller
 * learns nothing about which check failed (unknown actor, revoked key, wrong nonce, ...).
 * Signatures are verified with node:crypto (much faster than noble) using cached
 * KeyObjects.
 */
import { hash, randomBytes, timingSafeEqual, verify } from "node:crypto";
import { isoFromMs } from "../../engine/rules/time.js";
import type { CreateChallengeBody, IssueTokenBody } from "../../engine/identity/bodies.js";
import type { ActorRecord, ErrorReply, KeyRecord, Reply } from "../../engine/rules/identity/types.js";
import { decodeBase64UrlStrict, isIdentifier } from "../../engine/identity/validate.js";
import { temporarilyUnavailable, type TemporarilyUnavailable } from "../../engine/identity/unavailable.js";
import { ChallengeStore } from "./challenges.js";
import type { AuthConfig } from "./config.js";
import type { IdentitySource } from "./identity-source.js";
import { Ed25519KeyCache } from "./key-cache.js";
import { signingPayloadBytes } from "./signing-payload.js";
import { hashTokenText } from "./token-hash.js";
import {
  AUTHENTICATION_FAILED,
  type AuthenticationChallenge,
  type AuthenticationTokenGrant,
} from "./types.js";

/** Challenge ids: 16 random bytes (128 bits), unpadded base64url (22 characters). */
const CHALLENGE_ID_BYTES = 16;
const NONCE_BYTES = 32;
/** Access tokens: 32 random bytes (256 bits), unpadded base64url (43 characters). */
export const ACCESS_TOKEN_BYTES = 32;
export const ACCESS_TOKEN_TEXT_LENGTH = 43;
const ED25519_SIGNATURE_BYTES = 64;
const MS_PER_SECOND = 1000;
/** The store failed or closed: not the client's fault, so 500 rather than 401. */
const STORE_UNAVAILABLE: ErrorReply = { ok: false, code: "internal_error", message: "identity store is unavailable" };

/** The token could not be logged for now (cluster mode, identity log out of reach): the client may try again. */
const TOKEN_NOT_RECORDED = temporarilyUnavailable("the token could not be recorded now; retry later");

function sha256(text: string): Buffer {
  return hash("sha256", text, "buffer");
}

/** An actor key that may authenticate now: the key exists, belongs to the actor, neither is disabled. */
export function activeActorKey(
  identity: IdentitySource,
  actorId: string,
  keyId: string,
): { actor: ActorRecord; key: KeyRecord } | undefined {
  if (identity.unavailable) return undefined;
  const key = identity.state.keys.get(keyId);
  if (key === undefined || key.actorId !== actorId || key.revokedAtMs !== undefined) return undefined;
  const actor = identity.state.actors.get(actorId);
  if (actor === undefined || actor.disabledAtMs !== undefined) return undefined;
  return { actor, key };
}

export class Ed25519ProofAuthenticator {
  private readonly challenges: ChallengeStore;
  private readonly keyObjects = new Ed25519KeyCache();

  constructor(
    private readonly config: AuthConfig,
    private readonly identity: IdentitySource,
  ) {
    this.challenges = new ChallengeStore(config.maxChallenges);
  }

  /** Outstanding challenges (for tests and metrics). */
  get outstandingChallenges(): number {
    return this.challenges.size;
  }

  /** POST /v1/auth/challenges → 201 AuthenticationChallenge, or 401. */
  createChallenge(body: CreateChallengeBody, nowMs: number): Reply<AuthenticationChallenge> {
    if (!isIdentifier(body.actorId) || !isIdentifier(body.keyId)) return AUTHENTICATION_FAILED;
    if (this.identity.unavailable) return STORE_UNAVAILABLE;
    if (activeActorKey(this.identity, body.actorId, body.keyId) === undefined) return AUTHENTICATION_FAILED;
    const id = randomBytes(CHALLENGE_ID_BYTES).toString("base64url");
    const nonce = randomBytes(NONCE_BYTES).toString("base64url");
    const expiresAtMs = nowMs + this.config.challengeTtlSeconds * MS_PER_SECOND;
    const expiresAt = isoFromMs(expiresAtMs);
    const audience = this.config.audience;
    const payload = signingPayloadBytes({ audience, challengeId: id, actorId: body.actorId, keyId: body.keyId, nonce, expiresAt });
    this.challenges.add(
      id,
      { actorId: body.actorId, keyId: body.keyId, nonceHash: sha256(nonce), expiresAtMs, expiresAt, audience },
      nowMs,
    );
    return {
      ok: true,
      status: 201,
      body: {
        id,
        actorId: body.actorId,
        keyId: body.keyId,
        audience,
        nonce,
        expiresAt,
        signingPayload: payload.toString("base64url"),
      },
    };
  }

  /**
   * POST /v1/auth/tokens → 201 AuthenticationTokenGrant once the token's hash is durable, 401 on any
   * failed check, 500 if the identity store cannot persist it. The challenge is consumed by the
   * first attempt, whatever its outcome: a wrong nonce or signature cannot be retried against the
   * same challenge.
   */
  async issueToken(body: IssueTokenBody, nowMs: number): Promise<Reply<AuthenticationTokenGrant> | TemporarilyUnavailable> {
    if (typeof body.challengeId !== "string" || typeof body.nonce !== "string" || typeof body.signature !== "string") {
      return AUTHENTICATION_FAILED;
    }
    const challenge = this.challenges.take(body.challengeId);
    if (challenge === undefined || nowMs >= challenge.expiresAtMs) return AUTHENTICATION_FAILED;
    if (!timingSafeEqual(sha256(body.nonce), challenge.nonceHash)) return AUTHENTICATION_FAILED;
    const signature = decodeBase64UrlStrict(body.signature);
    if (signature === undefined || signature.length !== ED25519_SIGNATURE_BYTES) return AUTHENTICATION_FAILED;
    if (this.identity.unavailable) return STORE_UNAVAILABLE;
    const active = activeActorKey(this.identity, challenge.actorId, challenge.keyId);
    if (active === undefined) return AUTHENTICATION_FAILED;

    // The payload is rebuilt from the presented nonce (only its hash was kept); it matched above.
    const payload = signingPayloadBytes({
      audience: challenge.audience,
      challengeId: body.challengeId,
      actorId: challenge.actorId,
      keyId: challenge.keyId,
      nonce: body.nonce,
      expiresAt: challenge.expiresAt,
    });
    let valid = false;
    try {
      valid = verify(null, payload, this.keyObjects.get(active.key.publicKey), signature);
    } catch {
      valid = false;
    }
    if (!valid) return AUTHENTICATION_FAILED;

    const accessToken = randomBytes(ACCESS_TOKEN_BYTES).toString("base64url");
    const expiresAtMs = nowMs + this.config.tokenTtlSeconds * MS_PER_SECOND;
    const recording = await this.identity.recordToken({
      hash: hashTokenText(accessToken),
      actorId: challenge.actorId,
      keyId: challenge.keyId,
      audience: this.config.audience,
      issuedAtMs: nowMs,
      expiresAtMs,
    });
    if (recording === "refused") return AUTHENTICATION_FAILED;
    // Not logged: the store failed (500), or the cluster's identity log is out of reach for now (503).
    if (recording === "unavailable") return this.identity.unavailable ? STORE_UNAVAILABLE : TOKEN_NOT_RECORDED;
    return {
      ok: true,
      status: 201,
      body: { accessToken, tokenType: "Bearer", actorId: challenge.actorId, expiresAt: isoFromMs(expiresAtMs) },
    };
  }
}
