/**
 * String literals (values and member names): the escapes JSON allows, and no lone UTF-16
 * surrogate, escaped (`"\ud800"`) or raw. A lone surrogate cannot be encoded as UTF-8, so it would
 * be mangled in logs, hashes and records. The cursor starts on the opening quote and ends after
 * the closing one; `what` ("string" or "member name") is the word the messages use.
 */
import {
  CHAR_0, CHAR_A_LOWER, CHAR_A_UPPER, CHAR_B_LOWER, CHAR_BACKSLASH, CHAR_F_LOWER, CHAR_F_UPPER, CHAR_N_LOWER,
  CHAR_QUOTE, CHAR_R_LOWER, CHAR_SLASH, CHAR_SPACE, CHAR_T_LOWER, CHAR_U_LOWER, isDigit,
} from "./chars.js";
import { pathTo, syntaxError } from "./messages.js";
import { JsonRefusal, type ScanState } from "./scan-state.js";

/**
 * Advances past a string literal (cursor on its opening quote) one character at a time; sets
 * `lastStringEscaped`. For text that may hold raw surrogates or raw control characters; the common
 * case, text that holds neither, is skipped faster by scanner.ts (scanString).
 */
export function scanStringByChar(s: ScanState, depth: number, what: string): void {
  const source = s.text;
  const end = source.length;
  let p = s.pos + 1;
  let escaped = false;
  for (;;) {
    if (p >= end) {
      s.pos = p;
      throw syntaxError(s, `unterminated ${what}`, depth);
    }
    const c = source.charCodeAt(p);
    if (c === CHAR_QUOTE) break;
    if (c >= CHAR_SPACE && c !== CHAR_BACKSLASH && (c & 0xf800) !== 0xd800) {
      p++;
      continue;
    }
    if (c < CHAR_SPACE) {
      s.pos = p;
      throw syntaxError(s, `raw control character in a ${what} (must be escaped)`, depth);
    }
    if (c === CHAR_BACKSLASH) {
      escaped = true;
      p = scanEscape(s, p, depth, what);
    } else {
      p = skipRawSurrogatePair(s, p, depth, what);
    }
  }
  s.pos = p + 1;
  s.lastStringEscaped = escaped;
}

/** A raw surrogate at `at` (only from a JS-string caller): a well-formed pair is fine. */
function skipRawSurrogatePair(s: ScanState, at: number, depth: number, what: string): number {
  const c = s.text.charCodeAt(at);
  const next = s.text.charCodeAt(at + 1);
  if (!(c <= 0xdbff && isLowSurrogate(next))) throw loneSurrogate(s, depth, what);
  return at + 2;
}

/** Validates the escape at `at` (a backslash) and returns the position after it. */
export function scanEscape(s: ScanState, at: number, depth: number, what: string): number {
  const e = s.text.charCodeAt(at + 1);
  if (e === CHAR_U_LOWER) return scanUnicodeEscape(s, at, depth, what);
  if (
    e === CHAR_QUOTE ||
    e === CHAR_BACKSLASH ||
    e === CHAR_SLASH ||
    e === CHAR_B_LOWER ||
    e === CHAR_F_LOWER ||
    e === CHAR_N_LOWER ||
    e === CHAR_R_LOWER ||
    e === CHAR_T_LOWER
  ) {
    return at + 2;
  }
  s.pos = at;
  throw syntaxError(s, `invalid escape in a ${what}`, depth);
}

/** `\uXXXX` at `at`: a high surrogate must be followed at once by an escaped low one. */
function scanUnicodeEscape(s: ScanState, at: number, depth: number, what: string): number {
  const unit = hex4(s.text, at + 2);
  if (unit < 0) {
    s.pos = at;
    throw syntaxError(s, `invalid \\u escape in a ${what}`, depth);
  }
  if (isLowSurrogate(unit)) throw loneSurrogate(s, depth, what);
  if (unit < 0xd800 || unit > 0xdbff) return at + 6;
  const source = s.text;
  const hasEscapeAfter = source.charCodeAt(at + 6) === CHAR_BACKSLASH && source.charCodeAt(at + 7) === CHAR_U_LOWER;
  if (!(hasEscapeAfter && isLowSurrogate(hex4(source, at + 8)))) throw loneSurrogate(s, depth, what);
  return at + 12;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** The value of the 4 hex digits at `at`, or -1. */
function hex4(source: string, at: number): number {
  if (at + 4 > source.length) return -1;
  let value = 0;
  for (let k = at; k < at + 4; k++) {
    const digit = hexDigit(source.charCodeAt(k));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

function hexDigit(c: number): number {
  if (isDigit(c)) return c - CHAR_0;
  if (c >= CHAR_A_LOWER && c <= CHAR_F_LOWER) return c - CHAR_A_LOWER + 10;
  if (c >= CHAR_A_UPPER && c <= CHAR_F_UPPER) return c - CHAR_A_UPPER + 10;
  return -1;
}

function loneSurrogate(s: ScanState, depth: number, what: string): JsonRefusal {
  return new JsonRefusal(`${what} at ${pathTo(s, depth)} contains a lone UTF-16 surrogate`);
}
