/**
 * What "the same content" means for idempotency (spec §4: "an identical retry returns the original
 * result; the same commandId with different content gives idempotency_conflict"): the operation and
 * its arguments after parsing, not the bytes. Key order and whitespace do not matter, and the same
 * command sent over HTTP (id in the path) and over MCP (id in the tool input) is the same content.
 *
 * Fingerprint = SHA-256, base64url, first 22 characters (132 bits). Fingerprints are logged with
 * commands: changing these functions changes what "the same content" means for existing data.
 */
import canonicalize from "canonicalize";
import { hash } from "node:crypto";

const FINGERPRINT_CHARS = 22;

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE64URL_CODES: readonly number[] = Array.from(BASE64URL, (c) => c.charCodeAt(0));
const codes: number[] = new Array<number>(FINGERPRINT_CHARS).fill(0);

/**
 * The first 22 characters of the base64url SHA-256 digest, i.e. `hash(...).slice(0, 22)`, built as
 * one flat string: a slice would be a 32-byte view that keeps the whole 43-character digest alive,
 * and every fingerprint is retained by the idempotency index (~56 bytes more per command, measured).
 * One-shot `crypto.hash`: 4.5× cheaper than createHash().update().digest() for small inputs.
 */
function digest(text: string): string {
  const d = hash("sha256", text, "buffer");
  // 22 characters cover bytes 0..16: five whole 3-byte groups (20 characters), then bytes 15 and 16
  // give the next two characters exactly as in the full encoding.
  let c = 0;
  for (let i = 0; i < 15; i += 3) {
    const n = ((d[i] as number) << 16) | ((d[i + 1] as number) << 8) | (d[i + 2] as number);
    codes[c++] = BASE64URL_CODES[(n >>> 18) & 63] as number;
    codes[c++] = BASE64URL_CODES[(n >>> 12) & 63] as number;
    codes[c++] = BASE64URL_CODES[(n >>> 6) & 63] as number;
    codes[c++] = BASE64URL_CODES[n & 63] as number;
  }
  const n = ((d[15] as number) << 16) | ((d[16] as number) << 8);
  codes[c++] = BASE64URL_CODES[(n >>> 18) & 63] as number;
  codes[c++] = BASE64URL_CODES[(n >>> 12) & 63] as number;
  return String.fromCharCode(...codes);
}

/** For free-form arguments: SHA-256 over RFC 8785 canonical JSON of [operation, args]. */
export function commandFingerprint(operation: string, args: unknown): string {
  const text = canonicalize([operation, args]);
  if (text === undefined) throw new Error("fingerprint of an undefined value");
  return digest(text);
}

/**
 * For the hot path: the caller lists the fields in a fixed order (absent optional fields as null,
 * free-form objects already as canonical JSON text), so plain JSON of the list is deterministic and
 * no general canonicalizer runs per claim.
 */
export function orderedFingerprint(operation: string, fields: readonly unknown[]): string {
  return digest(JSON.stringify([operation, fields]));
}
