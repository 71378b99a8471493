/**
 * What "the same content" means for idempotency (spec §4: "an identical retry returns the original
 * result; the same commandId with different content gives idempotency_conflict"): the operation and
 * its arguments after parsing, not the bytes. Key order and whitespace do not matter, and the same
 * command sent over HTTP (id in the path) and over MCP (id in the tool input) is the same content.
 *
 * Fingerprint = first 16 bytes of SHA-256 over RFC 8785 canonical JSON of [operation, arguments],
 * base64url (22 characters).
 */
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";

export function commandFingerprint(operation: string, args: unknown): string {
  const text = canonicalize([operation, args]);
  if (text === undefined) throw new Error("fingerprint of an undefined value");
  return createHash("sha256").update(text, "utf8").digest().subarray(0, 16).toString("base64url");
}
