/**
 * Unpadded base64url (RFC 4648 §5) over UTF-8, in plain code: the rules name generated ids after
 * their market's id this way and must not depend on Node's Buffer.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Map([...ALPHABET].map((char, value) => [char, value]));
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

/** The unpadded base64url text of `text`'s UTF-8 bytes. */
export function base64urlOfUtf8(text: string): string {
  const bytes = encoder.encode(text);
  let out = "";
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
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
