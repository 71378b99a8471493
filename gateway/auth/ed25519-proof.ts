/**
 * Spec §5.1: Ed25519 proof of key possession, exchanged for an opaque bearer token.
 *
 *   createChallenge({actorId, keyId}) → {id, nonce, expiresAt, signingPayload, ...}
 *   issueToken({challengeId, nonce, signature}) → {accessToken, tokenType: "Bearer", actorId, expiresAt}
 *
 * Every failure is the same 401 `unauthenticated` "request authentication failed", so a caller
 * learns nothing about which check failed (unknown actor, revoked key, wrong nonce, ...).
 * Signatures are verified with node:crypto (much faster than noble) using cached
 * KeyObjects. The same logic serves one node and a cluster: only the challenge store differs
 * (challenge-store.ts), and in cluster mode an actor or key unknown here is looked up again once
 * this node has caught up with the identity log (`catchUp`), since another node may have
 * provisioned it a moment ago.
 */
import { hash, randomBytes, timingSafeEqual, verify } from "node:crypto";
import { isoFromMs } from "../../engine/rules/common/time.js";
import { type AuthenticationChallenge, type AuthenticationTokenGrant, type CreateChallengeBody, type IssueTokenBody } from "@market-service/client/wire";
import type { ActorRecord, ErrorReply, KeyRecord, Reply } from "../../engine/rules/identity/types.js";
import { decodeBase64UrlStrict, isIdentifier } from "../../engine/identity/validate.js";
import { temporarilyUnavailable, type TemporarilyUnavailable } from "../../engine/identity/unavailable.js";
import type { ChallengeStore, FoundChallenge } from "./challenge-store.js";
import type { AuthConfig } from "./config.js";
import type { IdentitySource } from "./identity-source.js";
import { Ed25519KeyCache } from "./key-cache.js";
import { MemoryChallengeStore } from "./memory-challenge-store.js";
import { signingPayloadBytes } from "./signing-payload.js";
import { hashTokenText } from "./token-hash.js";
import { AUTHENTICATION_FAILED } from "./types.js";

/** Challenge ids: 16 random bytes (128 bits), unpadded base64url (22 characters). */
const CHALLENGE_ID_BYTES = 16;
/** The form of every challenge id this service issues: anything else names no challenge. */
const CHALLENGE_ID = /^[A-Za-z0-9_-]{22}$/;
const NONCE_BYTES = 32;
/** Access tokens: 32 random bytes (256 bits), unpadded base64url (43 characters). */
export const ACCESS_TOKEN_BYTES = 32;
export const ACCESS_TOKEN_TEXT_LENGTH = 43;
const ED25519_SIGNATURE_BYTES = 64;
const MS_PER_SECOND = 1000;
/** The store failed or closed: not the client's fault, so 500 rather than 401. */
const STORE_UNAVAILABLE: ErrorReply = { ok: false, code: "internal_error", message: "identity store is unavailable" };

// Cluster mode: infrastructure out of reach for now. Not the client's fault, so 503 (+ Retry-After)
// rather than 401, and in each case nothing was used up: the same request may be sent again.
/** The token could not be logged (the identity log out of reach). The challenge was not consumed. */
const TOKEN_NOT_RECORDED = temporarilyUnavailable("the token could not be recorded now; retry later");
const CHALLENGE_NOT_RECORDED = temporarilyUnavailable("the challenge could not be recorded now; retry later");
const CHALLENGE_UNREADABLE = temporarilyUnavailable("the challenge could not be read now; retry later");
/** The consumption's outcome is unknown; no token was handed out. */
const CHALLENGE_NOT_CONSUMED = temporarilyUnavailable("the challenge's use could not be recorded now; no token was issued, retry later");
const IDENTITY_BEHIND = temporarilyUnavailable("this node could not catch up with the identity log now; retry later");

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

export interface Ed25519ProofOptions {
  /** Where outstanding challenges are kept; default: this process's memory (one node). */
  readonly challenges?: ChallengeStore;
  /**
   * Cluster mode: waits, bounded, until this node has applied everything the shared identity log
   * holds now; resolves false if it could not (log out of reach, too slow, too many waiting).
   * Without it (one node, the only writer of its log) an unknown actor or key is refused at once.
   */
  readonly catchUp?: () => Promise<boolean>;
}

type KeyLookup = { actor: ActorRecord; key: KeyRecord } | "inactive" | "behind" | "store-failed";

export class Ed25519ProofAuthenticator {
  private readonly challenges: ChallengeStore;
  private readonly catchUp: (() => Promise<boolean>) | undefined;
  private readonly keyObjects = new Ed25519KeyCache();

  constructor(
    private readonly config: AuthConfig,
    private readonly identity: IdentitySource,
    options: Ed25519ProofOptions = {},
  ) {
    this.challenges = options.challenges ?? new MemoryChallengeStore(config.maxChallenges);
    this.catchUp = options.catchUp;
  }

  /** Outstanding challenges (for tests and metrics), where the store counts them. */
  get outstandingChallenges(): number | undefined {
    return this.challenges.size;
  }

  /** POST /v1/auth/challenges → 201 AuthenticationChallenge, or 401 (503 in cluster mode: see above). */
  async createChallenge(body: CreateChallengeBody, nowMs: number): Promise<Reply<AuthenticationChallenge> | TemporarilyUnavailable> {
    if (!isIdentifier(body.actorId) || !isIdentifier(body.keyId)) return AUTHENTICATION_FAILED;
    if (this.identity.unavailable) return STORE_UNAVAILABLE;
    const active = await this.activeKey(body.actorId, body.keyId);
    if (active === "store-failed") return STORE_UNAVAILABLE;
    if (active === "behind") return IDENTITY_BEHIND;
    if (active === "inactive") return AUTHENTICATION_FAILED;
    const id = randomBytes(CHALLENGE_ID_BYTES).toString("base64url");
    const nonce = randomBytes(NONCE_BYTES).toString("base64url");
    const expiresAtMs = nowMs + this.config.challengeTtlSeconds * MS_PER_SECOND;
    const expiresAt = isoFromMs(expiresAtMs);
    const audience = this.config.audience;
    const payload = signingPayloadBytes({ audience, challengeId: id, actorId: body.actorId, keyId: body.keyId, nonce, expiresAt });
    const added = await this.challenges.add(
      id,
      { actorId: body.actorId, keyId: body.keyId, nonceHash: sha256(nonce), expiresAtMs, expiresAt, audience },
      nowMs,
    );
    if (added === "unavailable") return CHALLENGE_NOT_RECORDED;
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
   * POST /v1/auth/tokens → 201 AuthenticationTokenGrant once the token's hash is durable and the
   * challenge consumed, 401 on any failed check, 500 if the identity store failed, 503 (cluster
   * mode) if something out of reach stopped it. Single use: a failed check consumes the challenge
   * too, so a wrong nonce or signature cannot be retried against it; a successful one consumes it
   * by a compare-and-swap after the token is recorded, so of all attempts on one challenge, on any
   * nodes, at most one gets a token (another's token was recorded but is never handed out). A 503
   * leaves the challenge unconsumed (unless the consumption itself timed out), so a retry works.
   */
  async issueToken(body: IssueTokenBody, nowMs: number): Promise<Reply<AuthenticationTokenGrant> | TemporarilyUnavailable> {
    if (typeof body.challengeId !== "string" || typeof body.nonce !== "string" || typeof body.signature !== "string") {
      return AUTHENTICATION_FAILED;
    }
    const challengeId = body.challengeId;
    if (!CHALLENGE_ID.test(challengeId)) return AUTHENTICATION_FAILED;
    const found = await this.challenges.find(challengeId);
    if (found === "unavailable") return CHALLENGE_UNREADABLE;
    if (found === undefined) return AUTHENTICATION_FAILED;
    const refuse = (): Promise<ErrorReply> => this.consumeAndRefuse(challengeId, found);
    const challenge = found.challenge;
    // Expired: it can never be used again, so there is nothing to consume (the store forgets it).
    if (nowMs >= challenge.expiresAtMs) return AUTHENTICATION_FAILED;
    if (!timingSafeEqual(sha256(body.nonce), challenge.nonceHash)) return refuse();
    const signature = decodeBase64UrlStrict(body.signature);
    if (signature === undefined || signature.length !== ED25519_SIGNATURE_BYTES) return refuse();
    if (this.identity.unavailable) return STORE_UNAVAILABLE;
    const active = await this.activeKey(challenge.actorId, challenge.keyId);
    if (active === "store-failed") return STORE_UNAVAILABLE;
    if (active === "behind") return IDENTITY_BEHIND;
    if (active === "inactive") return refuse();

    // The payload is rebuilt from the presented nonce (only its hash was kept); it matched above.
    const payload = signingPayloadBytes({
      audience: challenge.audience,
      challengeId,
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
    if (!valid) return refuse();

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
    if (recording === "refused") return refuse();
    // Not logged: the store failed (500), or the cluster's identity log is out of reach for now (503).
    if (recording === "unavailable") return this.identity.unavailable ? STORE_UNAVAILABLE : TOKEN_NOT_RECORDED;
    const consumed = await this.challenges.consume(challengeId, found);
    // Another attempt consumed it meanwhile: this token is recorded but never handed out.
    if (consumed === "gone") return AUTHENTICATION_FAILED;
    if (consumed === "unavailable") return CHALLENGE_NOT_CONSUMED;
    return {
      ok: true,
      status: 201,
      body: { accessToken, tokenType: "Bearer", actorId: challenge.actorId, expiresAt: isoFromMs(expiresAtMs) },
    };
  }

  /**
   * A failed attempt uses the challenge up, then gets the one 401. The consumption is best effort:
   * if it cannot be recorded the answer is still the 401 this attempt earned.
   */
  private async consumeAndRefuse(challengeId: string, found: FoundChallenge): Promise<ErrorReply> {
    await this.challenges.consume(challengeId, found);
    return AUTHENTICATION_FAILED;
  }

  /** The actor's active key; in cluster mode looked up again after catching up with the identity log. */
  private async activeKey(actorId: string, keyId: string): Promise<KeyLookup> {
    const now = activeActorKey(this.identity, actorId, keyId);
    if (now !== undefined) return now;
    if (this.catchUp === undefined) return "inactive";
    if (!(await this.catchUp())) return "behind";
    if (this.identity.unavailable) return "store-failed";
    return activeActorKey(this.identity, actorId, keyId) ?? "inactive";
  }
}
