/**
 * The records the identity store keeps (the resources clients see, spec §2.2, are
 * @market-service/client's wire declarations: packages/client/src/wire/identity.ts), and the commands, events and
 * decisions of the identity decider.
 *
 * Records keep times as epoch milliseconds (authentication and authority checks compare numbers on
 * the hot path); resources are rendered with ISO strings only when a reply is built.
 */
import type { Actor, ActorKey, AuthorityScope, Delegation, ErrorCode, Principal, ProvisionedIdentity, Rejection } from "@market-service/client/wire";

// ---------------------------------------------------------------------------------------------
// Replies.
// ---------------------------------------------------------------------------------------------

export interface OkReply<Body> {
  ok: true;
  status: 200 | 201;
  body: Body;
}

export interface ErrorReply {
  ok: false;
  code: ErrorCode;
  message: string;
}

export type Reply<Body> = OkReply<Body> | ErrorReply;

/** Any reply of an identity command (what `replyAt` reproduces from the log). */
export type IdentityReply = Reply<ProvisionedIdentity | Principal | Actor | ActorKey | Delegation>;

export function errorReply(rejection: Rejection): ErrorReply {
  return { ok: false, code: rejection.code, message: rejection.message };
}

// ---------------------------------------------------------------------------------------------
// Records (mutable, owned by the state; `evolve` updates them in place so that references held by
// token entries see disable/revoke at once).
// ---------------------------------------------------------------------------------------------

export interface PrincipalRecord {
  readonly id: string;
  readonly createdAtMs: number;
  disabledAtMs: number | undefined;
  /** The actor and key this principal was provisioned with (the binding checked on re-provision). */
  readonly actorId: string;
  readonly keyId: string;
}

export interface ActorRecord {
  readonly id: string;
  readonly createdAtMs: number;
  disabledAtMs: number | undefined;
  readonly principalId: string;
  readonly keyId: string;
}

export interface KeyRecord {
  readonly id: string;
  readonly actorId: string;
  readonly publicKey: string;
  readonly createdAtMs: number;
  revokedAtMs: number | undefined;
}

export interface DelegationRecord {
  readonly id: string;
  readonly principalId: string;
  readonly actorId: string;
  /** In canonical AUTHORITY_SCOPES order. */
  readonly scopes: readonly AuthorityScope[];
  readonly validFromMs: number;
  readonly validUntilMs: number | undefined;
  revokedAtMs: number | undefined;
}

/** What is persisted about an access token: never the token, only its SHA-256. */
export interface TokenRecord {
  /** Unpadded base64url SHA-256 of the token's ASCII text. */
  readonly hash: string;
  readonly actorId: string;
  readonly keyId: string;
  readonly audience: string;
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
}

/** A live token with direct references to its actor and key: bearer checks do one Map lookup. */
export interface TokenEntry extends TokenRecord {
  readonly actor: ActorRecord;
  readonly key: KeyRecord;
}

// ---------------------------------------------------------------------------------------------
// Commands. `args` is exactly what the idempotency fingerprint covers (normalized, path ids
// included, commandId excluded because it is the key).
// ---------------------------------------------------------------------------------------------

export interface CommandMeta {
  commandId: string;
  /** The authenticated actor that submitted the command. */
  actorId: string;
  /** Server command time (epoch ms), stamped by the store. */
  atMs: number;
}

export interface ProvisionArgs {
  principalId: string;
  actorId: string;
  keyId: string;
  publicKey: string;
}

export interface IssueDelegationArgs {
  delegationId: string;
  principalId: string;
  delegateActorId: string;
  /** Canonical order (AUTHORITY_SCOPES), so a reordered retry is the same content. */
  scopes: AuthorityScope[];
  /** Normalized RFC 3339 UTC with milliseconds. */
  validUntil?: string;
}

export interface RevokeDelegationArgs {
  delegationId: string;
  principalId: string;
}

export type IdentityCommand =
  | { type: "identity.provision"; meta: CommandMeta; args: ProvisionArgs }
  | { type: "delegation.issue"; meta: CommandMeta; args: IssueDelegationArgs }
  | { type: "delegation.revoke"; meta: CommandMeta; args: RevokeDelegationArgs }
  | { type: "actor.disable"; meta: CommandMeta; args: { actorId: string } }
  | { type: "principal.disable"; meta: CommandMeta; args: { principalId: string } }
  | { type: "key.revoke"; meta: CommandMeta; args: { keyId: string } };

export type IdentityCommandType = IdentityCommand["type"];

/** Internal command of the authentication flow: no commandId, no idempotency, no reply. */
export interface TokenIssueCommand {
  type: "token.issue";
  meta: { actorId: string; atMs: number };
  args: TokenRecord;
}

export type AnyIdentityCommand = IdentityCommand | TokenIssueCommand;

// ---------------------------------------------------------------------------------------------
// Events: what `evolve` applies. They carry everything needed, so replay never re-decides.
// ---------------------------------------------------------------------------------------------

export type IdentityEvent =
  | { type: "identity.provisioned"; principalId: string; actorId: string; keyId: string; publicKey: string; atMs: number }
  | {
      type: "delegation.issued";
      delegationId: string;
      principalId: string;
      actorId: string;
      scopes: AuthorityScope[];
      validFromMs: number;
      validUntilMs?: number;
    }
  | { type: "delegation.revoked"; delegationId: string; atMs: number }
  | { type: "actor.disabled"; actorId: string; atMs: number }
  | { type: "principal.disabled"; principalId: string; atMs: number }
  | { type: "key.revoked"; keyId: string; atMs: number }
  | { type: "token.issued"; token: TokenRecord };

export type Decision =
  | { accepted: true; events: IdentityEvent[]; reply: OkReply<unknown> }
  | { accepted: false; rejection: Rejection };
