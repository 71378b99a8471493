/**
 * GET /v1/audit/keys (beyond the spec, docs/endpoints.md): the audit signing key history, the key in
 * force last, for anyone who checks signed log heads. Public keys are public: no authentication.
 * The body never changes while the service runs, so it is serialised once.
 */
import type { KeyHistory } from "../../engine/audit/signing/key-history.js";
import type { HttpRoute } from "../http/route.js";

/** The reply body: `{ keys }`, exactly the history's entries (docs/proofs.md, "Signing keys"). */
export interface AuditKeyList {
  keys: Array<{
    /** Lowercase hex of the first 16 bytes of SHA-256 over the raw public key. */
    keyId: string;
    /** The raw 32-byte Ed25519 public key, unpadded base64url. */
    publicKey: string;
    /** From when the key signs, ms since the epoch; 0 for a first key in force since the log began. */
    activatedAtMs: number;
    /** The previous key's Ed25519 signature endorsing this one (unpadded base64url); null for the first key. */
    endorsement: string | null;
  }>;
}

export function auditRoutes(history: KeyHistory): HttpRoute[] {
  const body: AuditKeyList = { keys: history.keys.map((key) => ({ ...key })) };
  const json = JSON.stringify(body);
  return [{ method: "GET", pattern: "/v1/audit/keys", handler: () => ({ status: 200, json }) }];
}
