/**
 * What "the same content" means for idempotency (spec §4: "an identical retry returns the original
 * result; the same commandId with different content gives idempotency_conflict"): the operation and
 * its arguments after parsing, not the bytes. Key order and whitespace do not matter, and the same
 * command sent over HTTP (id in the path) and over MCP (id in the tool input) is the same content.
 *
 * Fingerprint = SHA-256, base64url, first 22 characters (132 bits). Fingerprints are logged with
 * commands: changing these functions changes what "the same content" means for existing data.
 */
import { hash } from "node:crypto";
import { canonicalJson } from "../canonical-hash.js";

const FINGERPRINT_CHARS = 22;

/** Reused for every fingerprint: 22 ASCII characters (base64url is ASCII, so latin1 is exact). */
const scratch = Buffer.alloc(FINGERPRINT_CHARS);

/**
 * The first 22 characters of the base64url SHA-256 digest, returned as one flat string: a `slice`
 * would be a view that keeps the whole 43-character digest alive, and every fingerprint is retained
 * by the idempotency index, so a flat copy is less than half the memory. Copying through a scratch
 * buffer costs a little more than the slice, less than a hand-written encoder. One-shot
 * `crypto.hash` is cheaper than createHash().update().digest() for small inputs.
 */
function digest(text: string): string {
  scratch.write(hash("sha256", text, "base64url"), 0, FINGERPRINT_CHARS, "latin1");
  return scratch.toString("latin1", 0, FINGERPRINT_CHARS);
}

/** For free-form arguments: SHA-256 over RFC 8785 canonical JSON of [operation, args]. */
export function commandFingerprint(operation: string, args: unknown): string {
  return digest(canonicalJson([operation, args]));
}

/**
 * For the hot path: the caller lists the fields in a fixed order (absent optional fields as null,
 * free-form objects already as canonical JSON text), so plain JSON of the list is deterministic and
 * no general canonicalizer runs per claim.
 */
export function orderedFingerprint(operation: string, fields: readonly unknown[]): string {
  return digest(JSON.stringify([operation, fields]));
}
