/**
 * Identity snapshot payload: the whole state (expired tokens dropped) plus the idempotency entries
 * of every logged command before it, so recovery needs only the frames after the snapshot.
 * Token entries are stored per key in issue order, which rebuilds `tokensByKey` exactly.
 */
import { Packr } from "msgpackr";
import { assert } from "../rules/common/assert.js";
import type { AuthorityScope } from "@market-service/client/wire";
import { emptyIdentityState, forgetExpiredTokens, tokenEntry, type IdentityState } from "../rules/identity/state.js";
import type { TokenRecord } from "../rules/identity/types.js";

export const IDENTITY_SNAPSHOT_VERSION = 1;

/** `[actorId, commandId, fingerprint, log position]` of a logged command. */
export type LoggedCommandKey = [actorId: string, commandId: string, fingerprint: string, position: number];

interface StoredSnapshot {
  v: typeof IDENTITY_SNAPSHOT_VERSION;
  lastStampMs: number;
  /** [id, createdAtMs, disabledAtMs | -1, actorId, keyId] */
  principals: Array<[string, number, number, string, string]>;
  /** [id, createdAtMs, disabledAtMs | -1, principalId, keyId] */
  actors: Array<[string, number, number, string, string]>;
  /** [id, actorId, publicKey, createdAtMs, revokedAtMs | -1] */
  keys: Array<[string, string, string, number, number]>;
  /** [id, principalId, actorId, scopes, validFromMs, validUntilMs | -1, revokedAtMs | -1] */
  delegations: Array<[string, string, string, AuthorityScope[], number, number, number]>;
  tokens: TokenRecord[];
  commands: LoggedCommandKey[];
}

export interface DecodedIdentitySnapshot {
  state: IdentityState;
  lastStampMs: number;
  commands: LoggedCommandKey[];
}

const packr = new Packr({ useRecords: false, moreTypes: false });

// Times are epoch ms of real instants, never negative in practice; -1 marks "not set" so that
// every tuple has a fixed shape. A negative time would be ambiguous, so it is asserted away.
const NONE = -1;
const toStored = (ms: number | undefined): number => {
  assert(ms === undefined || ms >= 0, "snapshot times must be non-negative");
  return ms ?? NONE;
};
const fromStored = (value: number): number | undefined => (value === NONE ? undefined : value);

/**
 * Encodes the state as of `lastStampMs`. Tokens expired by then are dropped first (they can never
 * authenticate again), which is the only place besides issuance where the token set shrinks.
 */
export function encodeIdentitySnapshot(
  state: IdentityState,
  lastStampMs: number,
  commands: readonly LoggedCommandKey[],
): Buffer {
  forgetExpiredTokens(state, lastStampMs);
  const stored: StoredSnapshot = {
    v: IDENTITY_SNAPSHOT_VERSION,
    lastStampMs,
    principals: [...state.principals.values()].map((p) => [p.id, p.createdAtMs, toStored(p.disabledAtMs), p.actorId, p.keyId]),
    actors: [...state.actors.values()].map((a) => [a.id, a.createdAtMs, toStored(a.disabledAtMs), a.principalId, a.keyId]),
    keys: [...state.keys.values()].map((k) => [k.id, k.actorId, k.publicKey, k.createdAtMs, toStored(k.revokedAtMs)]),
    delegations: [...state.delegations.values()].map((d) => [
      d.id,
      d.principalId,
      d.actorId,
      [...d.scopes],
      d.validFromMs,
      toStored(d.validUntilMs),
      toStored(d.revokedAtMs),
    ]),
    tokens: [],
    commands: [...commands],
  };
  for (const hashes of state.tokensByKey.values()) {
    for (const hash of hashes) {
      const entry = state.tokens.get(hash);
      assert(entry !== undefined, "tokensByKey lists only live tokens");
      const { hash: h, actorId, keyId, audience, issuedAtMs, expiresAtMs } = entry;
      stored.tokens.push({ hash: h, actorId, keyId, audience, issuedAtMs, expiresAtMs });
    }
  }
  return packr.pack(stored);
}

export function decodeIdentitySnapshot(payload: Uint8Array): DecodedIdentitySnapshot {
  const stored = packr.unpack(payload) as StoredSnapshot | null;
  if (stored?.v !== IDENTITY_SNAPSHOT_VERSION) throw new Error("identity snapshot of an unknown version");
  const state = emptyIdentityState();
  for (const [id, createdAtMs, disabledAtMs, actorId, keyId] of stored.principals) {
    state.principals.set(id, { id, createdAtMs, disabledAtMs: fromStored(disabledAtMs), actorId, keyId });
  }
  for (const [id, createdAtMs, disabledAtMs, principalId, keyId] of stored.actors) {
    state.actors.set(id, { id, createdAtMs, disabledAtMs: fromStored(disabledAtMs), principalId, keyId });
  }
  for (const [id, actorId, publicKey, createdAtMs, revokedAtMs] of stored.keys) {
    state.keys.set(id, { id, actorId, publicKey, createdAtMs, revokedAtMs: fromStored(revokedAtMs) });
    state.keyIdByPublicKey.set(publicKey, id);
  }
  for (const [id, principalId, actorId, scopes, validFromMs, validUntilMs, revokedAtMs] of stored.delegations) {
    state.delegations.set(id, {
      id,
      principalId,
      actorId,
      scopes,
      validFromMs,
      validUntilMs: fromStored(validUntilMs),
      revokedAtMs: fromStored(revokedAtMs),
    });
  }
  for (const token of stored.tokens) {
    const actor = state.actors.get(token.actorId);
    const key = state.keys.get(token.keyId);
    assert(actor !== undefined && key !== undefined, "snapshot token must name an existing actor key");
    state.tokens.set(token.hash, tokenEntry(token, actor, key));
    let hashes = state.tokensByKey.get(token.keyId);
    if (hashes === undefined) {
      hashes = [];
      state.tokensByKey.set(token.keyId, hashes);
    }
    hashes.push(token.hash);
  }
  return { state, lastStampMs: stored.lastStampMs, commands: stored.commands };
}
