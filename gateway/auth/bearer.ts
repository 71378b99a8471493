/**
 * Bearer token check, on the hot path of every request (≥ 50k/s): one SHA-256 and one Map lookup.
 * The token entry holds references to its actor and key records, which `evolve` updates in place, so
 * disabling the actor or revoking the key takes effect without further lookups.
 */
import type { IdentitySource } from "./identity-source.js";
import { ACCESS_TOKEN_TEXT_LENGTH } from "./ed25519-proof.js";
import { hashTokenText } from "./token-hash.js";

export function authenticateBearerToken(
  identity: IdentitySource,
  audience: string,
  token: string,
  nowMs: number,
): string | undefined {
  // Issued tokens are always 43 characters; anything else is not worth hashing.
  if (token.length !== ACCESS_TOKEN_TEXT_LENGTH || identity.unavailable) return undefined;
  const entry = identity.state.tokens.get(hashTokenText(token));
  if (
    entry === undefined ||
    entry.audience !== audience ||
    nowMs >= entry.expiresAtMs ||
    entry.actor.disabledAtMs !== undefined ||
    entry.key.revokedAtMs !== undefined
  ) {
    return undefined;
  }
  return entry.actorId;
}
