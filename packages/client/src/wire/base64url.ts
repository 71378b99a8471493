/**
 * The service's one base64url (RFC 4648 §5, unpadded), in plain code with no Node Buffer, so the
 * rules (generated ids name their market this way), the audit key history, receipts, identities'
 * keys and signatures and the client helpers all use it, in Node and in browsers alike.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Map([...ALPHABET].map((char, value) => [char, value]));
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

/** ASCII codes of the alphabet, for writing an encoding as bytes. */
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0));

/**
 * The unpadded base64url text of `bytes`. Written as ASCII bytes and decoded once, so the result is
 * one flat string: appending piece by piece makes V8 keep a rope (an object per piece), and a
 * market keeps its reference for its whole life.
 */
export function base64UrlEncode(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil((bytes.length * 4) / 3));
  let o = 0;
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out[o++] = ALPHABET_CODES[n >> 18] as number;
    out[o++] = ALPHABET_CODES[(n >> 12) & 63] as number;
    out[o++] = ALPHABET_CODES[(n >> 6) & 63] as number;
    out[o++] = ALPHABET_CODES[n & 63] as number;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = ((bytes[i] as number) << 16) | (rest === 2 ? (bytes[i + 1] as number) << 8 : 0);
    out[o++] = ALPHABET_CODES[n >> 18] as number;
    out[o++] = ALPHABET_CODES[(n >> 12) & 63] as number;
    if (rest === 2) out[o++] = ALPHABET_CODES[(n >> 6) & 63] as number;
  }
  return decoder.decode(out.subarray(0, o));
}

/**
 * The bytes `text` encodes, and whether its trailing bits are the canonical zeros; undefined when it
 * is not base64url at all (a character outside the alphabet, a length no encoding has).
 */
function decodeBytes(text: string): { bytes: Uint8Array; canonical: boolean } | undefined {
  if (text.length % 4 === 1) return undefined;
  const bytes = new Uint8Array(Math.floor((text.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let at = 0;
  for (const char of text) {
    const value = VALUES.get(char);
    if (value === undefined) return undefined;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (buffer >> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  return { bytes: bytes.subarray(0, at), canonical: buffer === 0 };
}

/** The bytes of unpadded base64url `text`, strictly (URL alphabet only, no padding, canonical trailing bits: one text per byte string), or undefined. */
export function strictBytesOfBase64url(text: string): Uint8Array | undefined {
  const decoded = decodeBytes(text);
  return decoded?.canonical === true ? decoded.bytes : undefined;
}

/** The bytes of unpadded base64url `text`, strictly as `strictBytesOfBase64url`; throws saying why when it is not. */
export function base64UrlDecode(text: string): Uint8Array {
  const decoded = decodeBytes(text);
  if (decoded === undefined) throw new Error(text.length % 4 === 1 ? "not unpadded base64url: a length no encoding has" : "not unpadded base64url: a character outside the URL alphabet");
  if (!decoded.canonical) throw new Error("not unpadded base64url: non-canonical trailing bits");
  return decoded.bytes;
}

/** The unpadded base64url text of `text`'s UTF-8 bytes. */
export function base64urlOfUtf8(text: string): string {
  return base64UrlEncode(encoder.encode(text));
}

/**
 * The text whose UTF-8 bytes `encoded` is, or undefined when `encoded` is not base64url (a character
 * outside the alphabet, a length no encoding has). Bytes that are not UTF-8 decode to U+FFFD, and
 * trailing bits are not checked: callers that need the canonical form compare `base64urlOfUtf8` of
 * the result with `encoded`.
 */
export function utf8OfBase64url(encoded: string): string | undefined {
  const decoded = decodeBytes(encoded);
  return decoded === undefined ? undefined : decoder.decode(decoded.bytes);
}
