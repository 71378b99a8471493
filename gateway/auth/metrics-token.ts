/**
 * The metrics token (decisions.md T10): a bearer credential accepted on GET /metrics only, compared
 * by its SHA-256 like the static MCP tokens, so the token itself is never kept.
 */
import { MAX_SECRET_LENGTH, MIN_SECRET_LENGTH } from "./config-error.js";
import { hashTokenText } from "./token-hash.js";

export function isMetricsToken(expectedHash: string | undefined, token: string): boolean {
  if (expectedHash === undefined || token.length < MIN_SECRET_LENGTH || token.length > MAX_SECRET_LENGTH) return false;
  return hashTokenText(token) === expectedHash;
}
