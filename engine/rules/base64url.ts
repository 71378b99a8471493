/**
 * Unpadded base64url (RFC 4648 §5) over UTF-8, in plain code: the rules name generated ids after
 * their market's id this way and must not depend on Node's Buffer.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Map([...ALPHABET].map((char, value) => [char, value]));
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

/** ASCII codes of the alphabet, for writing an encoding as bytes. */
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0));

/**
 * The unpadded base64url text of `text`'s UTF-8 bytes. Written as ASCII bytes and decoded once, so
 * the result is one flat string: appending piece by piece makes V8 keep a rope (an object per
 * piece), and a market keeps its reference for its whole life.
 */
export function base64urlOfUtf8(text: string): string {
  const bytes = encoder.encode(text);
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
 * The text whose UTF-8 bytes `encoded` is, or undefined when `encoded` is not base64url (a character
 * outside the alphabet, a length no encoding has). Bytes that are not UTF-8 decode to U+FFFD: callers
 * that need the canonical form compare `base64urlOfUtf8` of the result with `encoded`.
 */
export function utf8OfBase64url(encoded: string): string | undefined {
  if (encoded.length % 4 === 1) return undefined;
  const bytes = new Uint8Array(Math.floor((encoded.length * 3) / 4));
  let bits = 0;
  let bitCount = 0;
  let at = 0;
  for (const char of encoded) {
    const value = VALUES.get(char);
    if (value === undefined) return undefined;
    bits = ((bits << 6) | value) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      bytes[at++] = (bits >> bitCount) & 0xff;
    }
  }
  return decoder.decode(bytes.subarray(0, at));
}
