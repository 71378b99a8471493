/**
 * Unpadded base64url (RFC 4648 §5) of bytes in plain JavaScript (no Buffer), so the client helpers
 * and the audit key history (engine/audit/signing/) run anywhere, browsers included. Decoding is
 * strict: URL alphabet only, no padding, canonical trailing bits. (engine/rules/base64url.ts is the
 * rules' own, over UTF-8 text.)
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Map<string, number>([...ALPHABET].map((char, index) => [char, index]));

export function base64UrlEncode(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

export function base64UrlDecode(text: string): Uint8Array {
  if (text.length % 4 === 1) throw new Error("not unpadded base64url: bad length");
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (const char of text) {
    const value = VALUES.get(char);
    if (value === undefined) throw new Error("not unpadded base64url: bad character");
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  if (buffer !== 0) throw new Error("not unpadded base64url: non-canonical trailing bits");
  return out;
}
