/**
 * Spec §5.3: provisioned static opaque bearer tokens, each mapping to one actor, accepted on `/mcp`
 * only (the caller says which transport the request came in on). Only their SHA-256 hashes are kept.
 */
import { MAX_SECRET_LENGTH, MIN_SECRET_LENGTH } from "./config-error.js";
import { hashTokenText } from "./token-hash.js";

export function authenticateStaticToken(tokenHashes: ReadonlyMap<string, string>, token: string): string | undefined {
  if (tokenHashes.size === 0 || token.length < MIN_SECRET_LENGTH || token.length > MAX_SECRET_LENGTH) return undefined;
  return tokenHashes.get(hashTokenText(token));
}
