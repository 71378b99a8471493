/**
 * Identity resources (spec §2.2), the authentication challenge and token grant, and the request
 * bodies of the identity, delegation and authentication endpoints (spec §4.2), written with typia
 * tags so that the HTTP layer's validators (and the MCP/OpenAPI schemas) are generated from these
 * declarations. Nothing here calls typia: the tags are types only.
 *
 * The identity store re-checks what a schema cannot express (a public key that decodes to 32 bytes
 * and is a curve point, the reserved `@system` identifier, a strict calendar date) before it claims
 * an idempotency key; see the service's engine/identity/validate.ts.
 */
import type { tags } from "typia";
import type {
  ActorId,
  AuthorityScope,
  CommandId,
  DateTime,
  DelegationId,
  Identifier,
  KeyId,
  PrincipalId,
} from "./shared.js";

/** Unpadded base64url of a 32-byte Ed25519 public key: always exactly 43 characters. */
export type PublicKeyText = string & tags.MinLength<43> & tags.MaxLength<43> & tags.Pattern<"^[A-Za-z0-9_-]{43}$">;

/** POST /v1/admin/identities (operator actors only). */
export interface ProvisionIdentityBody {
  commandId: CommandId;
  principalId: PrincipalId;
  actorId: ActorId;
  keyId: KeyId;
  publicKey: PublicKeyText;
}

/** POST /v1/delegations (self-representing principal only). */
export interface IssueDelegationBody {
  commandId: CommandId;
  delegationId: DelegationId;
  principalId: PrincipalId;
  delegateActorId: ActorId;
  /** At least one, no repeats; seven scopes exist, so at most seven. */
  scopes: AuthorityScope[] & tags.MinItems<1> & tags.UniqueItems & tags.MaxItems<7>;
  /** Must be after the server command time (`validFrom`). */
  validUntil?: DateTime;
}

/** POST /v1/delegations/{delegationId}/revoke (the owning self-representing principal only). */
export interface RevokeDelegationBody {
  commandId: CommandId;
  principalId: PrincipalId;
}

/**
 * Operator commands that the spec does not route (key rotation and account management are not
 * offered) but that an operator needs to cut off a compromised actor, principal or key. The
 * integrator may expose them through the CLI; they go through the same idempotency and log.
 */
export interface DisableActorBody {
  commandId: CommandId;
  actorId: ActorId;
}
export interface DisablePrincipalBody {
  commandId: CommandId;
  principalId: PrincipalId;
}
export interface RevokeKeyBody {
  commandId: CommandId;
  keyId: KeyId;
}

/** POST /v1/auth/challenges (unauthenticated). */
export interface CreateChallengeBody {
  actorId: ActorId;
  keyId: KeyId;
}

/** POST /v1/auth/tokens (unauthenticated). */
export interface IssueTokenBody {
  challengeId: Identifier;
  /** The challenge nonce, unpadded base64url of 32 bytes. */
  nonce: string & tags.MinLength<1> & tags.MaxLength<64>;
  /** Unpadded base64url of the 64-byte Ed25519 signature over the decoded signing payload. */
  signature: string & tags.MinLength<1> & tags.MaxLength<128>;
}

// ---------------------------------------------------------------------------------------------
// Resources as clients see them (spec §2.2).
// ---------------------------------------------------------------------------------------------

export interface Principal {
  id: string;
  createdAt: string;
  disabledAt?: string;
}

export interface Actor {
  id: string;
  createdAt: string;
  disabledAt?: string;
}

export interface ActorKey {
  id: string;
  actorId: string;
  algorithm: "Ed25519";
  /** Unpadded base64url of the 32-byte public key. */
  publicKey: string;
  createdAt: string;
  revokedAt?: string;
}

export interface Delegation {
  id: string;
  principalId: string;
  /** The delegate. */
  actorId: string;
  scopes: AuthorityScope[];
  validFrom: string;
  validUntil?: string;
  revokedAt?: string;
}

/** 201 body of POST /v1/admin/identities. */
export interface ProvisionedIdentity {
  principal: Principal;
  actor: Actor;
  key: ActorKey;
}

// ---------------------------------------------------------------------------------------------
// Authentication (spec §2.2).
// ---------------------------------------------------------------------------------------------

export interface AuthenticationChallenge {
  id: string;
  actorId: string;
  keyId: string;
  audience: string;
  /** Unpadded base64url of 32 random bytes. */
  nonce: string;
  expiresAt: string;
  /** Unpadded base64url of the exact bytes to sign (layout: signing-payload.ts, docs/auth.md). */
  signingPayload: string;
}

export interface AuthenticationTokenGrant {
  accessToken: string;
  tokenType: "Bearer";
  actorId: string;
  expiresAt: string;
}
