/**
 * Strict JSON for request bodies (spec §4: "strict JSON ... multiple JSON values are rejected"),
 * hardened against inputs that `JSON.parse` accepts but would silently change:
 *
 * - duplicate member names (JSON.parse keeps the last one, so a signed body could mean two things);
 *   names compare after unescaping, so `"a"` and `"\u0061"` are duplicates;
 * - integers beyond ±(2^53 − 1) and numbers beyond the double range (JSON.parse rounds them:
 *   `9007199254740993` becomes ...992, `1e300` is an integer no int64 field can hold exactly,
 *   `1e400` becomes Infinity); a non-zero literal that underflows to 0 (`1e-400`) is refused for
 *   the same reason. Non-integer numbers are ordinary doubles (`0.1` is accepted);
 * - `-0` is accepted and returned as 0: JSON output has no negative zero anyway, and keeping it
 *   would let two byte-different logs record the same request;
 * - lone UTF-16 surrogates, escaped (`"\ud800"`) or raw: they cannot be encoded as UTF-8, so they
 *   would be mangled in logs, hashes and records;
 * - nesting beyond a depth limit (bounded work and stack for every later recursive consumer);
 * - invalid UTF-8 and a leading byte order mark (RFC 8259 §8.1: UTF-8, no BOM);
 * - anything but one object at the top level (a second value or trailing bytes are refused).
 *
 * Escaped control characters (`"\u0000"`) are valid JSON and pass; the identifier validators refuse
 * them where the spec's fields need it.
 *
 * How: one validating scan over the decoded text (full grammar, duplicates, depth, numbers,
 * surrogate escapes) that allocates nothing on the common path, then native `JSON.parse` builds the
 * value. A hand-written parser that validates and builds in one pass was measured against it and
 * was slower on both a 120-byte claim and a 100 KB body (test/http/strict-json.bench.ts; numbers in
 * docs/http.md). `JSON.parse` makes plain objects (prototype `Object.prototype`, which the typia
 * validators expect) and defines a `"__proto__"` member as an own data property, so no prototype
 * is ever changed.
 *
 * The scanner keeps its state in module variables (no allocation per call); it is synchronous and
 * never re-entered, so that is safe.
 */
import { isAscii, isUtf8 } from "node:buffer";

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [member: string]: JsonValue;
}

export interface StrictJsonLimits {
  /** Containers nested in each other, the top-level object counting as 1. */
  maxDepth: number;
  /**
   * Also accept a top-level array (JSON-RPC batches on /mcp); request bodies are objects. A caller
   * that sets this must treat `value` as unknown: it may then be an array.
   */
  allowTopLevelArray?: boolean;
}

/**
 * 32 levels: a command body uses at most 4 (body → mechanism → config → price), which leaves a
 * client's `subject.data` about 28 levels of its own, more than real documents use, while bounding
 * the recursion of every consumer (validators, canonical JSON, msgpack) to a small stack.
 */
export const DEFAULT_MAX_JSON_DEPTH = 32;
export const DEFAULT_STRICT_JSON_LIMITS: StrictJsonLimits = { maxDepth: DEFAULT_MAX_JSON_DEPTH };

export type StrictJsonResult = { ok: true; value: JsonObject } | { ok: false; message: string };

/** Member paths in messages are cut here; a 32-level path of long names would flood logs. */
const MAX_PATH_CHARS = 200;
/** An integer part with at most this many digits is always below 2^53 (which has 16). */
const ALWAYS_SAFE_INTEGER_DIGITS = 15;
/** A non-zero fraction with at most this many digits is ≥ 1e-300, well above the smallest double. */
const NEVER_UNDERFLOWING_FRACTION_DIGITS = 300;
/** Up to this many members, duplicates are found by comparing name ranges in the text (no strings). */
const RANGE_COMPARE_MAX_MEMBERS = 16;

const CHAR_TAB = 0x09;
const CHAR_LF = 0x0a;
const CHAR_CR = 0x0d;
const CHAR_SPACE = 0x20;
const CHAR_QUOTE = 0x22;
const CHAR_PLUS = 0x2b;
const CHAR_COMMA = 0x2c;
const CHAR_MINUS = 0x2d;
const CHAR_DOT = 0x2e;
const CHAR_0 = 0x30;
const CHAR_1 = 0x31;
const CHAR_9 = 0x39;
const CHAR_COLON = 0x3a;
const CHAR_E_UPPER = 0x45;
const CHAR_LEFT_BRACKET = 0x5b;
const CHAR_BACKSLASH = 0x5c;
const CHAR_RIGHT_BRACKET = 0x5d;
const CHAR_E_LOWER = 0x65;
const CHAR_F_LOWER = 0x66;
const CHAR_N_LOWER = 0x6e;
const CHAR_T_LOWER = 0x74;
const CHAR_U_LOWER = 0x75;
const CHAR_LEFT_BRACE = 0x7b;
const CHAR_RIGHT_BRACE = 0x7d;

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Thrown inside the scanner only; turned into `{ ok: false }` before returning. */
class JsonRefusal {
  constructor(readonly message: string) {}
}

// ---- scanner state (see the module comment) ----
let text = "";
let pos = 0;
let maxDepth = DEFAULT_MAX_JSON_DEPTH;
let sawNegativeZero = false;
/** Set by scanString: whether the literal just scanned had escapes. */
let lastStringEscaped = false;
/** Deepest container reached, so cleanup touches only the per-depth slots that were used. */
let deepest = 0;
/**
 * True when the text can hold no raw lone surrogate (it came from UTF-8, or is well-formed): then
 * strings are skipped with native `indexOf` searches for '"' and '\\' instead of a per-character
 * loop. That search does not see raw control characters inside strings; JSON.parse refuses them,
 * and the text is then scanned again character by character for a precise message.
 */
let plainText = false;
/** Position of the next backslash at or after the last search (text length when none is left). */
let nextBackslash = -1;

/**
 * Per depth d: the member being scanned, for error paths. For an object, the name's range in the
 * text (`pathStart..pathEnd`, quotes excluded) and whether it has escapes; for an array, -1 and the
 * index in `pathEnd`.
 */
const pathStart: number[] = [0];
const pathEnd: number[] = [0];
const pathEscaped: boolean[] = [false];
/** Per depth: name ranges of the members seen so far in the object being scanned (range mode). */
const nameStarts: number[][] = [[]];
const nameEnds: number[][] = [[]];
/** Per depth: decoded names (set mode: large objects, or any escaped name). */
const nameSets: (Set<string> | undefined)[] = [undefined];

/** Parses a request body. Never throws for any bytes (only for invalid `limits`, a caller bug). */
export function parseStrictJson(bytes: Uint8Array, limits: StrictJsonLimits = DEFAULT_STRICT_JSON_LIMITS): StrictJsonResult {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { ok: false, message: "request body must not start with a UTF-8 byte order mark" };
  }
  // Most bodies are ASCII: a native (SIMD) check plus a latin1 copy is the cheapest exact decoding.
  const view = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let decoded: string;
  if (isAscii(view)) {
    decoded = view.toString("latin1");
  } else {
    if (!isUtf8(view)) return { ok: false, message: "request body is not valid UTF-8" };
    decoded = utf8Decoder.decode(view);
  }
  return parseText(decoded, limits, true);
}

/**
 * The same rules for a body that is already a string (for callers that decoded it themselves; a JS
 * string may hold raw lone surrogates, which UTF-8 input cannot, and they are refused too).
 */
export function parseStrictJsonText(input: string, limits: StrictJsonLimits = DEFAULT_STRICT_JSON_LIMITS): StrictJsonResult {
  return parseText(input, limits, (input as unknown as { isWellFormed(): boolean }).isWellFormed());
}

function parseText(input: string, limits: StrictJsonLimits, wellFormed: boolean): StrictJsonResult {
  const first = scanAndParse(input, limits, wellFormed);
  if (first.ok || !wellFormed || !refusedByJsonParse) return first;
  // JSON.parse refused what the fast scan let through (a raw control character in a string):
  // scan again one character at a time for a message with a member path.
  const second = scanAndParse(input, limits, false);
  return refusedByJsonParse ? first : second;
}

/** Whether the last `scanAndParse` failure came from JSON.parse rather than from the scan. */
let refusedByJsonParse = false;

function scanAndParse(input: string, limits: StrictJsonLimits, fastStrings: boolean): StrictJsonResult {
  if (!(Number.isSafeInteger(limits.maxDepth) && limits.maxDepth >= 1)) {
    throw new RangeError(`maxDepth must be a positive integer, got ${limits.maxDepth}`);
  }
  text = input;
  pos = 0;
  maxDepth = limits.maxDepth;
  sawNegativeZero = false;
  deepest = 0;
  nextBackslash = -1;
  plainText = fastStrings;
  refusedByJsonParse = false;
  try {
    skipWhitespace();
    if (pos >= text.length) return refused("request body is empty");
    const topLevelArray = limits.allowTopLevelArray === true && text.charCodeAt(pos) === CHAR_LEFT_BRACKET;
    if (topLevelArray) {
      scanArray(1);
    } else {
      if (text.charCodeAt(pos) !== CHAR_LEFT_BRACE) return refused("request body must be a JSON object");
      scanObject(1);
    }
    skipWhitespace();
    if (pos < text.length) return refused(`invalid JSON: unexpected data after the top-level ${topLevelArray ? "array" : "object"} at position ${pos}`);
  } catch (error) {
    if (error instanceof JsonRefusal) return refused(error.message);
    // Only a stack overflow from an absurd caller-chosen maxDepth can land here.
    return refused(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    text = "";
    for (let d = 1; d <= deepest; d++) nameSets[d]?.clear();
  }
  try {
    const value = (sawNegativeZero ? JSON.parse(input, normalizeNegativeZero) : JSON.parse(input)) as JsonObject;
    return { ok: true, value };
  } catch (error) {
    refusedByJsonParse = true;
    return refused(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function refused(message: string): StrictJsonResult {
  return { ok: false, message };
}

/** JSON.parse reviver, used only when the scan saw a negative zero (rare: it is slower). */
function normalizeNegativeZero(_key: string, value: unknown): unknown {
  return value === 0 ? 0 : value;
}

function scanValue(depth: number): void {
  const c = text.charCodeAt(pos);
  if (c === CHAR_QUOTE) scanString(depth, "string");
  else if (c === CHAR_LEFT_BRACE) scanObject(depth + 1);
  else if (c === CHAR_LEFT_BRACKET) scanArray(depth + 1);
  else if (c === CHAR_MINUS || (c >= CHAR_0 && c <= CHAR_9)) scanNumber(depth);
  else if (c === CHAR_T_LOWER && text.startsWith("true", pos)) pos += 4;
  else if (c === CHAR_F_LOWER && text.startsWith("false", pos)) pos += 5;
  else if (c === CHAR_N_LOWER && text.startsWith("null", pos)) pos += 4;
  else throw syntaxError("expected a value", depth);
}

/** Depth check and per-depth storage for a container being entered. */
function enter(depth: number): void {
  if (depth > maxDepth) throw new JsonRefusal(`JSON nested deeper than ${maxDepth} levels at ${pathTo(depth - 1)}`);
  if (depth > deepest) {
    deepest = depth;
    if (nameStarts[depth] === undefined) {
      nameStarts[depth] = [];
      nameEnds[depth] = [];
    }
  }
}

/** `depth` is this object's own nesting level (top-level object = 1). Cursor is on '{'. */
function scanObject(depth: number): void {
  enter(depth);
  pos++;
  skipWhitespace();
  if (text.charCodeAt(pos) === CHAR_RIGHT_BRACE) {
    pos++;
    return;
  }
  const starts = nameStarts[depth] as number[];
  const ends = nameEnds[depth] as number[];
  let count = 0;
  let names: Set<string> | undefined; // set mode
  for (;;) {
    if (text.charCodeAt(pos) !== CHAR_QUOTE) throw syntaxError("expected a member name in double quotes", depth - 1);
    const start = pos + 1;
    scanString(depth - 1, "member name");
    const end = pos - 1;
    const escaped = lastStringEscaped;
    pathStart[depth] = start;
    pathEnd[depth] = end;
    pathEscaped[depth] = escaped;
    if (names === undefined && (escaped || count === RANGE_COMPARE_MAX_MEMBERS)) {
      // Switch to decoded names: escapes make equal names differ in the text ("a" vs "\u0061").
      names = nameSets[depth] ?? new Set<string>();
      nameSets[depth] = names;
      names.clear();
      for (let k = 0; k < count; k++) names.add(text.slice(starts[k], ends[k]));
    }
    if (names === undefined) {
      const length = end - start;
      for (let k = 0; k < count; k++) {
        const otherStart = starts[k] as number;
        if ((ends[k] as number) - otherStart === length && sameChars(otherStart, start, length)) {
          throw new JsonRefusal(`duplicate member at ${pathTo(depth)}`);
        }
      }
      starts[count] = start;
      ends[count] = end;
    } else {
      const name = escaped ? decodeName(start, end) : text.slice(start, end);
      if (names.has(name)) throw new JsonRefusal(`duplicate member at ${pathTo(depth)}`);
      names.add(name);
    }
    count++;
    skipWhitespace();
    if (text.charCodeAt(pos) !== CHAR_COLON) throw syntaxError("expected ':' after a member name", depth);
    pos++;
    skipWhitespace();
    scanValue(depth);
    skipWhitespace();
    const c = text.charCodeAt(pos);
    if (c === CHAR_COMMA) {
      pos++;
      skipWhitespace();
      continue;
    }
    if (c === CHAR_RIGHT_BRACE) {
      pos++;
      names?.clear();
      return;
    }
    throw syntaxError("expected ',' or '}' after a member", depth);
  }
}

function sameChars(a: number, b: number, length: number): boolean {
  const source = text;
  for (let k = 0; k < length; k++) {
    if (source.charCodeAt(a + k) !== source.charCodeAt(b + k)) return false;
  }
  return true;
}

function decodeName(start: number, end: number): string {
  return JSON.parse(text.slice(start - 1, end + 1)) as string;
}

function scanArray(depth: number): void {
  enter(depth);
  pos++;
  skipWhitespace();
  if (text.charCodeAt(pos) === CHAR_RIGHT_BRACKET) {
    pos++;
    return;
  }
  pathStart[depth] = -1;
  for (let index = 0; ; index++) {
    pathEnd[depth] = index;
    scanValue(depth);
    skipWhitespace();
    const c = text.charCodeAt(pos);
    if (c === CHAR_COMMA) {
      pos++;
      skipWhitespace();
      continue;
    }
    if (c === CHAR_RIGHT_BRACKET) {
      pos++;
      return;
    }
    throw syntaxError("expected ',' or ']' after an element", depth);
  }
}

/** Advances past a string literal (cursor on the opening quote); sets `lastStringEscaped`. */
function scanString(depth: number, what: string): void {
  if (!plainText) return scanStringByChar(depth, what);
  const source = text;
  let p = pos + 1;
  let escaped = false;
  for (;;) {
    const quote = source.indexOf('"', p);
    if (quote < 0) {
      pos = source.length;
      throw syntaxError(`unterminated ${what}`, depth);
    }
    let backslash = nextBackslash;
    if (backslash < p) {
      backslash = source.indexOf("\\", p);
      if (backslash < 0) backslash = source.length;
      nextBackslash = backslash;
    }
    if (backslash > quote) {
      pos = quote + 1;
      lastStringEscaped = escaped;
      return;
    }
    escaped = true;
    p = scanEscape(backslash, depth, what);
  }
}

/** Validates the escape at `at` (a backslash) and returns the position after it. */
function scanEscape(at: number, depth: number, what: string): number {
  const source = text;
  const e = source.charCodeAt(at + 1);
  if (e === CHAR_U_LOWER) {
    const unit = hex4(at + 2);
    if (unit < 0) {
      pos = at;
      throw syntaxError(`invalid \\u escape in a ${what}`, depth);
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) throw loneSurrogate(depth, what);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = source.charCodeAt(at + 6) === CHAR_BACKSLASH && source.charCodeAt(at + 7) === CHAR_U_LOWER ? hex4(at + 8) : -1;
      if (!(low >= 0xdc00 && low <= 0xdfff)) throw loneSurrogate(depth, what);
      return at + 12;
    }
    return at + 6;
  }
  // " \ / b f n r t
  if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
    return at + 2;
  }
  pos = at;
  throw syntaxError(`invalid escape in a ${what}`, depth);
}

/** The same, one character at a time, for text with raw control characters or surrogates. */
function scanStringByChar(depth: number, what: string): void {
  const source = text;
  const end = source.length;
  let p = pos + 1;
  let escaped = false;
  for (;;) {
    if (p >= end) {
      pos = p;
      throw syntaxError(`unterminated ${what}`, depth);
    }
    const c = source.charCodeAt(p);
    if (c === CHAR_QUOTE) break;
    if (c >= CHAR_SPACE && c !== CHAR_BACKSLASH && (c & 0xf800) !== 0xd800) {
      p++;
      continue;
    }
    if (c < CHAR_SPACE) {
      pos = p;
      throw syntaxError(`raw control character in a ${what} (must be escaped)`, depth);
    }
    if (c !== CHAR_BACKSLASH) {
      // A raw surrogate (only from a JS-string caller): a well-formed pair is fine.
      const next = source.charCodeAt(p + 1);
      if (!(c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff)) throw loneSurrogate(depth, what);
      p += 2;
      continue;
    }
    escaped = true;
    p = scanEscape(p, depth, what);
  }
  pos = p + 1;
  lastStringEscaped = escaped;
}

/** The value of 4 hex digits at `at`, or -1. */
function hex4(at: number): number {
  if (at + 4 > text.length) return -1;
  let value = 0;
  for (let k = at; k < at + 4; k++) {
    const c = text.charCodeAt(k);
    let digit: number;
    if (c >= 0x30 && c <= 0x39) digit = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) digit = c - 0x61 + 10;
    else if (c >= 0x41 && c <= 0x46) digit = c - 0x41 + 10;
    else return -1;
    value = value * 16 + digit;
  }
  return value;
}

function scanNumber(depth: number): void {
  const source = text;
  const start = pos;
  const negative = source.charCodeAt(pos) === CHAR_MINUS;
  if (negative) pos++;
  const integerStart = pos;
  let c = source.charCodeAt(pos);
  if (c === CHAR_0) {
    pos++;
  } else if (c >= CHAR_1 && c <= CHAR_9) {
    do c = source.charCodeAt(++pos);
    while (c >= CHAR_0 && c <= CHAR_9);
  } else {
    throw syntaxError("expected a digit", depth);
  }
  const integerDigits = pos - integerStart;
  let fractionStart = pos;
  c = source.charCodeAt(pos);
  if (c === CHAR_DOT) {
    fractionStart = ++pos;
    c = source.charCodeAt(pos);
    if (!(c >= CHAR_0 && c <= CHAR_9)) throw syntaxError("expected a digit after '.'", depth);
    do c = source.charCodeAt(++pos);
    while (c >= CHAR_0 && c <= CHAR_9);
  }
  const fractionEnd = pos;
  let hasExponent = false;
  if (c === CHAR_E_LOWER || c === CHAR_E_UPPER) {
    hasExponent = true;
    c = source.charCodeAt(++pos);
    if (c === CHAR_PLUS || c === CHAR_MINUS) c = source.charCodeAt(++pos);
    if (!(c >= CHAR_0 && c <= CHAR_9)) throw syntaxError("expected a digit in the exponent", depth);
    do c = source.charCodeAt(++pos);
    while (c >= CHAR_0 && c <= CHAR_9);
  }
  if (!hasExponent && integerDigits <= ALWAYS_SAFE_INTEGER_DIGITS && fractionEnd - fractionStart <= NEVER_UNDERFLOWING_FRACTION_DIGITS) {
    // Fast path, no conversion: |value| < 1e15 (finite, and an integer value is safe) and a non-zero
    // fraction of at most 300 digits is ≥ 1e-300, far from underflow. Only -0 needs a note.
    if (negative && integerDigits === 1 && source.charCodeAt(integerStart) === CHAR_0 && allZeroDigits(fractionStart, fractionEnd)) {
      sawNegativeZero = true;
    }
    return;
  }
  const literal = source.slice(start, pos);
  const value = Number(literal);
  if (!Number.isFinite(value)) throw new JsonRefusal(`number at ${pathTo(depth)} is out of range`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new JsonRefusal(
      `number at ${pathTo(depth)} cannot be represented exactly: integers must be between -9007199254740991 and 9007199254740991`,
    );
  }
  if (value === 0) {
    if (hasNonZeroMantissaDigit(literal)) throw new JsonRefusal(`number at ${pathTo(depth)} is too small (it would round to 0)`);
    if (negative) sawNegativeZero = true;
  }
}

function allZeroDigits(from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (text.charCodeAt(k) !== CHAR_0) return false;
  return true;
}

function hasNonZeroMantissaDigit(literal: string): boolean {
  for (let k = 0; k < literal.length; k++) {
    const c = literal.charCodeAt(k);
    if (c === CHAR_E_LOWER || c === CHAR_E_UPPER) return false;
    if (c >= CHAR_1 && c <= CHAR_9) return true;
  }
  return false;
}

function skipWhitespace(): void {
  for (;;) {
    const c = text.charCodeAt(pos);
    if (c === CHAR_SPACE || c === CHAR_LF || c === CHAR_CR || c === CHAR_TAB) pos++;
    else return;
  }
}

function syntaxError(expectation: string, depth: number): JsonRefusal {
  const found = pos >= text.length ? "end of input" : describeChar(text.charCodeAt(pos));
  return new JsonRefusal(`invalid JSON at ${pathTo(depth)}: ${expectation}, found ${found} at position ${pos}`);
}

function loneSurrogate(depth: number, what: string): JsonRefusal {
  return new JsonRefusal(`${what} at ${pathTo(depth)} contains a lone UTF-16 surrogate`);
}

function describeChar(c: number): string {
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `$.a.b[3]["odd name"]` for the members being scanned at depths 1..depth. */
function pathTo(depth: number): string {
  let path = "$";
  for (let d = 1; d <= depth; d++) {
    const start = pathStart[d] ?? -1;
    const end = pathEnd[d] ?? 0;
    if (start < 0) {
      path += `[${end}]`;
    } else {
      let name: string;
      try {
        name = pathEscaped[d] === true ? decodeName(start, end) : text.slice(start, end);
      } catch {
        name = text.slice(start, end);
      }
      path += IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
    }
    if (path.length > MAX_PATH_CHARS) return `${path.slice(0, MAX_PATH_CHARS)}…`;
  }
  return path;
}
