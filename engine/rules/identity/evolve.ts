/**
 * Applies one decided event to the identity state, in place. Used both live (right after a
 * decision) and on replay, so it must depend on nothing but the state and the event.
 */
import { assert, assertNever } from "../common/assert.js";
import { MAX_LIVE_TOKENS_PER_KEY, forgetExpiredTokensOfKey, tokenEntry, type IdentityState } from "./state.js";
import type { IdentityEvent, TokenRecord } from "./types.js";

export function evolve(state: IdentityState, event: IdentityEvent): void {
  switch (event.type) {
    case "identity.provisioned": {
      assert(
        !state.principals.has(event.principalId) &&
          !state.actors.has(event.actorId) &&
          !state.keys.has(event.keyId) &&
          !state.keyIdByPublicKey.has(event.publicKey),
        "provisioned identifiers must be new",
      );
      state.principals.set(event.principalId, {
        id: event.principalId,
        createdAtMs: event.atMs,
        disabledAtMs: undefined,
        actorId: event.actorId,
        keyId: event.keyId,
      });
      state.actors.set(event.actorId, {
        id: event.actorId,
        createdAtMs: event.atMs,
        disabledAtMs: undefined,
        principalId: event.principalId,
        keyId: event.keyId,
      });
      state.keys.set(event.keyId, {
        id: event.keyId,
        actorId: event.actorId,
        publicKey: event.publicKey,
        createdAtMs: event.atMs,
        revokedAtMs: undefined,
      });
      state.keyIdByPublicKey.set(event.publicKey, event.keyId);
      return;
    }
    case "delegation.issued": {
      assert(!state.delegations.has(event.delegationId), "delegation ids are unique");
      state.delegations.set(event.delegationId, {
        id: event.delegationId,
        principalId: event.principalId,
        actorId: event.actorId,
        scopes: [...event.scopes],
        validFromMs: event.validFromMs,
        validUntilMs: event.validUntilMs,
        revokedAtMs: undefined,
      });
      return;
    }
    case "delegation.revoked": {
      const delegation = state.delegations.get(event.delegationId);
      assert(delegation !== undefined && delegation.revokedAtMs === undefined, "revoked delegation must be active");
      delegation.revokedAtMs = event.atMs;
      return;
    }
    case "actor.disabled": {
      const actor = state.actors.get(event.actorId);
      assert(actor !== undefined && actor.disabledAtMs === undefined, "disabled actor must be enabled");
      actor.disabledAtMs = event.atMs;
      return;
    }
    case "principal.disabled": {
      const principal = state.principals.get(event.principalId);
      assert(principal !== undefined && principal.disabledAtMs === undefined, "disabled principal must be enabled");
      principal.disabledAtMs = event.atMs;
      return;
    }
    case "key.revoked": {
      const key = state.keys.get(event.keyId);
      assert(key !== undefined && key.revokedAtMs === undefined, "revoked key must be active");
      key.revokedAtMs = event.atMs;
      return;
    }
    case "token.issued": {
      applyTokenIssued(state, event.token);
      return;
    }
    default:
      assertNever(event, "identity event");
  }
}

function applyTokenIssued(state: IdentityState, token: TokenRecord): void {
  const actor = state.actors.get(token.actorId);
  const key = state.keys.get(token.keyId);
  assert(actor !== undefined && key !== undefined && key.actorId === actor.id, "token must name an existing actor key");
  assert(!state.tokens.has(token.hash), "token hashes are unique");
  // Per-key bound, decided from event data only (issue time), so replay evicts the same tokens.
  forgetExpiredTokensOfKey(state, token.keyId, token.issuedAtMs);
  let hashes = state.tokensByKey.get(token.keyId);
  if (hashes === undefined) {
    hashes = [];
    state.tokensByKey.set(token.keyId, hashes);
  }
  while (hashes.length >= MAX_LIVE_TOKENS_PER_KEY) {
    const oldest = hashes.shift();
    if (oldest !== undefined) state.tokens.delete(oldest);
  }
  hashes.push(token.hash);
  state.tokens.set(token.hash, tokenEntry(token, actor, key));
}
