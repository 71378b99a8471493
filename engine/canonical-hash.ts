/**
 * `sha256-canonical-json-v1` (spec §2.10): SHA-256 over the RFC 8785 (JCS) canonical JSON of a value,
 * written `sha256:<64 hex>`. Canonicalization is the `canonicalize` package by the RFC's co-author;
 * hashing is node:crypto (pure computation, no I/O).
 */
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";
import { assert } from "./assert.js";

export const RECORD_HASH_ALGORITHM = "sha256-canonical-json-v1";

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  assert(text !== undefined, "canonical JSON of a defined value");
  return text;
}

export function canonicalHash(value: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value), "utf8").digest("hex")}`;
}
