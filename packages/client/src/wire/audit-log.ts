/**
 * The replies of the audit endpoints (beyond the spec, docs/endpoints.md "Audit logs" and
 * "GET /v1/audit/keys"; docs/proofs.md): the signing key history, a log's signed head, and its
 * inclusion and consistency proofs.
 */

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

/** GET /v1/audit/logs/{logId}/head: a head signed now over the log's whole tree (docs/proofs.md, "Signed heads"). */
export interface LogHead {
  /** `shard-<n>`, or `partition-<p>` in a cluster. */
  logId: string;
  /** Entries the tree holds. */
  treeSize: number;
  /** MTH of the log's entries 1…treeSize, 64 lowercase hex digits. */
  rootHash: string;
  /** When it was signed, milliseconds since the Unix epoch. */
  timeMs: number;
  /** Which published key (GET /v1/audit/keys) signed it. */
  keyId: string;
  /** Ed25519 signature over the head's bytes, 128 lowercase hex digits. */
  signature: string;
}

/** GET /v1/audit/logs/{logId}/inclusion: leaf `leafIndex`'s audit path in the tree of `treeSize` entries. */
export interface LogInclusionProof {
  leafIndex: number;
  treeSize: number;
  /** RFC 9162 PATH, lowest node first, each 64 lowercase hex digits. */
  path: string[];
  /** SHA-256(0x00 ‖ entry payload), 64 lowercase hex digits: the leaf the path starts from. */
  leafHash: string;
  /** The entry's payload (unpadded base64url) when the caller may see it, else null. */
  entry: string | null;
}

/** GET /v1/audit/logs/{logId}/consistency: the tree of `oldSize` entries is a prefix of the tree of `newSize`. */
export interface LogConsistencyProof {
  oldSize: number;
  newSize: number;
  /** RFC 9162 PROOF, each 64 lowercase hex digits. */
  path: string[];
}
