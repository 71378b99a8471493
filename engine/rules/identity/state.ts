/**
 * The identity state: principals, actors, keys, delegations and live access tokens. It is mutated
 * only by `evolve` (and by the two pure housekeeping functions below, which drop tokens that can no
 * longer authenticate anything), and read by the decider, the authenticators and the authority
 * check.
 */
import { isoFromMs } from "../common/time.js";
import type { Actor, ActorKey, Delegation, Principal } from "@market-service/client/wire";
import type { ActorRecord, DelegationRecord, KeyRecord, PrincipalRecord, TokenEntry, TokenRecord } from "./types.js";

/**
 * Live tokens kept per key. Issuing one more revokes the oldest (documented in docs/auth.md): a
 * client that leaks or hoards tokens cannot grow memory without bound, and an honest client needs
 * one token at a time per process.
 */
export const MAX_LIVE_TOKENS_PER_KEY = 128;

export interface IdentityState {
  readonly principals: Map<string, PrincipalRecord>;
  readonly actors: Map<string, ActorRecord>;
  /** Key ids are global (one namespace for all actors). */
  readonly keys: Map<string, KeyRecord>;
  /** Public key text → key id: one public key is bound to one key id. */
  readonly keyIdByPublicKey: Map<string, string>;
  readonly delegations: Map<string, DelegationRecord>;
  /** Token hash → entry. */
  readonly tokens: Map<string, TokenEntry>;
  /** Key id → hashes of its tokens, oldest first. */
  readonly tokensByKey: Map<string, string[]>;
}

export function emptyIdentityState(): IdentityState {
  return {
    principals: new Map(),
    actors: new Map(),
    keys: new Map(),
    keyIdByPublicKey: new Map(),
    delegations: new Map(),
    tokens: new Map(),
    tokensByKey: new Map(),
  };
}

/**
 * A live token's entry, written member by member: entries made from issued tokens, from replayed
 * log events and from a snapshot then share one hidden class. Made with a spread of the record,
 * their shapes followed whichever object they were copied from, and the bearer check on every
 * request (bearer.ts) read them through megamorphic lookups (decision I13).
 */
export function tokenEntry(token: TokenRecord, actor: ActorRecord, key: KeyRecord): TokenEntry {
  return {
    hash: token.hash,
    actorId: token.actorId,
    keyId: token.keyId,
    audience: token.audience,
    issuedAtMs: token.issuedAtMs,
    expiresAtMs: token.expiresAtMs,
    actor,
    key,
  };
}

// ---------------------------------------------------------------------------------------------
// Views (spec §2.2): optional members are present only when set.
// ---------------------------------------------------------------------------------------------

export function principalView(record: PrincipalRecord): Principal {
  const view: Principal = { id: record.id, createdAt: isoFromMs(record.createdAtMs) };
  if (record.disabledAtMs !== undefined) view.disabledAt = isoFromMs(record.disabledAtMs);
  return view;
}

export function actorView(record: ActorRecord): Actor {
  const view: Actor = { id: record.id, createdAt: isoFromMs(record.createdAtMs) };
  if (record.disabledAtMs !== undefined) view.disabledAt = isoFromMs(record.disabledAtMs);
  return view;
}

export function keyView(record: KeyRecord): ActorKey {
  const view: ActorKey = {
    id: record.id,
    actorId: record.actorId,
    algorithm: "Ed25519",
    publicKey: record.publicKey,
    createdAt: isoFromMs(record.createdAtMs),
  };
  if (record.revokedAtMs !== undefined) view.revokedAt = isoFromMs(record.revokedAtMs);
  return view;
}

export function delegationView(record: DelegationRecord): Delegation {
  const view: Delegation = {
    id: record.id,
    principalId: record.principalId,
    actorId: record.actorId,
    scopes: [...record.scopes],
    validFrom: isoFromMs(record.validFromMs),
  };
  if (record.validUntilMs !== undefined) view.validUntil = isoFromMs(record.validUntilMs);
  if (record.revokedAtMs !== undefined) view.revokedAt = isoFromMs(record.revokedAtMs);
  return view;
}

// ---------------------------------------------------------------------------------------------
// Token housekeeping. A token with `expiresAtMs <= t` never authenticates at or after `t`, so
// dropping it changes no decision: these functions are pure memory management.
// ---------------------------------------------------------------------------------------------

/** Drops the key's tokens that expired at or before `atMs`. */
export function forgetExpiredTokensOfKey(state: IdentityState, keyId: string, atMs: number): void {
  const hashes = state.tokensByKey.get(keyId);
  if (hashes === undefined) return;
  let kept = 0;
  for (const hash of hashes) {
    const entry = state.tokens.get(hash);
    if (entry !== undefined && entry.expiresAtMs > atMs) {
      hashes[kept++] = hash;
    } else {
      state.tokens.delete(hash);
    }
  }
  hashes.length = kept;
  if (kept === 0) state.tokensByKey.delete(keyId);
}

/** Drops every token that expired at or before `atMs` (used before a snapshot and by a sweep). */
export function forgetExpiredTokens(state: IdentityState, atMs: number): void {
  for (const keyId of [...state.tokensByKey.keys()]) forgetExpiredTokensOfKey(state, keyId, atMs);
}
