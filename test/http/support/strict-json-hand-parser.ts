/**
 * The alternative that was measured against gateway/http/strict-json.ts and lost: a hand-written
 * parser that validates and builds the value in one pass (no JSON.parse). It implements the same
 * rules with the same messages, so it is kept for two jobs only:
 * - test/http/strict-json.bench.ts compares the two (docs/http.md has the numbers);
 * - test/http/strict-json.test.ts checks that the two agree on random input (differential test).
 * Production code must not import it.
 */
import { isAscii, isUtf8 } from "node:buffer";
import {
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_STRICT_JSON_LIMITS,
  type JsonObject,
  type JsonValue,
  type StrictJsonLimits,
  type StrictJsonResult,
} from "../../../gateway/http/strict-json/index.js";

/** Member paths in messages are cut here; a 32-level path of long names would flood logs. */
const MAX_PATH_CHARS = 200;
/** An integer literal with at most this many digits is always a safe integer (2^53 has 16). */
const ALWAYS_SAFE_INTEGER_DIGITS = 15;

const CHAR_TAB = 0x09;
const CHAR_LF = 0x0a;
const CHAR_CR = 0x0d;
const CHAR_SPACE = 0x20;
const CHAR_QUOTE = 0x22;
const CHAR_PLUS = 0x2b;
const CHAR_COMMA = 0x2c;
const CHAR_MINUS = 0x2d;
const CHAR_DOT = 0x2e;
const CHAR_SLASH = 0x2f;
const CHAR_0 = 0x30;
const CHAR_1 = 0x31;
const CHAR_9 = 0x39;
const CHAR_COLON = 0x3a;
const CHAR_E_UPPER = 0x45;
const CHAR_LEFT_BRACKET = 0x5b;
const CHAR_BACKSLASH = 0x5c;
const CHAR_RIGHT_BRACKET = 0x5d;
const CHAR_B_LOWER = 0x62;
const CHAR_E_LOWER = 0x65;
const CHAR_F_LOWER = 0x66;
const CHAR_N_LOWER = 0x6e;
const CHAR_R_LOWER = 0x72;
const CHAR_T_LOWER = 0x74;
const CHAR_U_LOWER = 0x75;
const CHAR_LEFT_BRACE = 0x7b;
const CHAR_RIGHT_BRACE = 0x7d;

const PROTO = "__proto__";

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Thrown inside the parser only; `parseStrictJsonText` turns it into `{ ok: false }`. */
class JsonRefusal {
  constructor(readonly message: string) {}
}

// ---- parser state (see the module comment) ----
let text = "";
let pos = 0;
let maxDepth = DEFAULT_MAX_JSON_DEPTH;
/** `pathSegments[d]`: member name or element index being parsed in the container at depth d. */
const pathSegments: (string | number)[] = [0];
/** Deepest container reached, so cleanup touches only the slots that were used. */
let deepest = 0;

/** Parses a request body. Never throws, whatever the bytes. */
export function handParseStrictJson(bytes: Uint8Array, limits: StrictJsonLimits = DEFAULT_STRICT_JSON_LIMITS): StrictJsonResult {
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
  return handParseStrictJsonText(decoded, limits);
}

/**
 * The same rules for a body that is already a string (for callers that decoded it themselves; a JS
 * string may hold raw lone surrogates, which UTF-8 input cannot, and they are refused too).
 */
export function handParseStrictJsonText(input: string, limits: StrictJsonLimits = DEFAULT_STRICT_JSON_LIMITS): StrictJsonResult {
  if (!(Number.isSafeInteger(limits.maxDepth) && limits.maxDepth >= 1)) {
    throw new RangeError(`maxDepth must be a positive integer, got ${limits.maxDepth}`);
  }
  text = input;
  pos = 0;
  maxDepth = limits.maxDepth;
  deepest = 0;
  try {
    skipWhitespace();
    if (pos >= text.length) return { ok: false, message: "request body is empty" };
    if (text.charCodeAt(pos) !== CHAR_LEFT_BRACE) return { ok: false, message: "request body must be a JSON object" };
    const value = parseObject(1);
    skipWhitespace();
    if (pos < text.length) {
      return { ok: false, message: `invalid JSON: unexpected data after the top-level object at position ${pos}` };
    }
    return { ok: true, value };
  } catch (error) {
    if (error instanceof JsonRefusal) return { ok: false, message: error.message };
    // Only a stack overflow from an absurd caller-chosen maxDepth can land here.
    return { ok: false, message: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    releaseParserState();
  }
}

/** Member names may be V8 slices of the body; keeping them (or `text`) would pin up to 1 MiB. */
function releaseParserState(): void {
  text = "";
  for (let d = 1; d <= deepest; d++) pathSegments[d] = 0;
}

// ---- grammar ----

function parseValue(depth: number): JsonValue {
  const c = text.charCodeAt(pos);
  if (c === CHAR_QUOTE) return parseString(depth, "string");
  if (c === CHAR_LEFT_BRACE) return parseObject(depth + 1);
  if (c === CHAR_LEFT_BRACKET) return parseArray(depth + 1);
  if (c === CHAR_MINUS || (c >= CHAR_0 && c <= CHAR_9)) return parseNumber(depth);
  if (c === CHAR_T_LOWER && text.startsWith("true", pos)) {
    pos += 4;
    return true;
  }
  if (c === CHAR_F_LOWER && text.startsWith("false", pos)) {
    pos += 5;
    return false;
  }
  if (c === CHAR_N_LOWER && text.startsWith("null", pos)) {
    pos += 4;
    return null;
  }
  throw syntaxError("expected a value", depth);
}

/** `depth` is this object's own nesting level (top-level object = 1). Cursor is on '{'. */
function parseObject(depth: number): JsonObject {
  if (depth > maxDepth) throw new JsonRefusal(`JSON nested deeper than ${maxDepth} levels at ${pathTo(depth - 1)}`);
  if (depth > deepest) deepest = depth;
  pos++;
  skipWhitespace();
  const object: JsonObject = {};
  if (text.charCodeAt(pos) === CHAR_RIGHT_BRACE) {
    pos++;
    return object;
  }
  for (;;) {
    if (text.charCodeAt(pos) !== CHAR_QUOTE) throw syntaxError("expected a member name in double quotes", depth - 1);
    const name = parseString(depth - 1, "member name");
    pathSegments[depth] = name;
    if (Object.hasOwn(object, name)) throw new JsonRefusal(`duplicate member at ${pathTo(depth)}`);
    skipWhitespace();
    if (text.charCodeAt(pos) !== CHAR_COLON) throw syntaxError("expected ':' after a member name", depth);
    pos++;
    skipWhitespace();
    const value = parseValue(depth);
    if (name === PROTO) {
      // Assignment would call the __proto__ setter and change the prototype; define it as data.
      Object.defineProperty(object, PROTO, { value, writable: true, enumerable: true, configurable: true });
    } else {
      object[name] = value;
    }
    skipWhitespace();
    const c = text.charCodeAt(pos);
    if (c === CHAR_COMMA) {
      pos++;
      skipWhitespace();
      continue;
    }
    if (c === CHAR_RIGHT_BRACE) {
      pos++;
      return object;
    }
    throw syntaxError("expected ',' or '}' after a member", depth);
  }
}

function parseArray(depth: number): JsonValue[] {
  if (depth > maxDepth) throw new JsonRefusal(`JSON nested deeper than ${maxDepth} levels at ${pathTo(depth - 1)}`);
  if (depth > deepest) deepest = depth;
  pos++;
  skipWhitespace();
  const array: JsonValue[] = [];
  if (text.charCodeAt(pos) === CHAR_RIGHT_BRACKET) {
    pos++;
    return array;
  }
  for (let index = 0; ; index++) {
    pathSegments[depth] = index;
    array.push(parseValue(depth));
    skipWhitespace();
    const c = text.charCodeAt(pos);
    if (c === CHAR_COMMA) {
      pos++;
      skipWhitespace();
      continue;
    }
    if (c === CHAR_RIGHT_BRACKET) {
      pos++;
      return array;
    }
    throw syntaxError("expected ',' or ']' after an element", depth);
  }
}

/**
 * A string literal at the cursor (on the opening quote), unescaped. `depth` names the path reported
 * on failure. The common case (no escapes) is one scan and one slice.
 */
function parseString(depth: number, what: string): string {
  const source = text;
  const end = source.length;
  const start = ++pos;
  let c = 0;
  while (pos < end) {
    c = source.charCodeAt(pos);
    if (c === CHAR_QUOTE || c === CHAR_BACKSLASH || c < CHAR_SPACE || (c & 0xf800) === 0xd800) break;
    pos++;
  }
  if (pos < end && c === CHAR_QUOTE) {
    pos++;
    return source.slice(start, pos - 1);
  }
  return parseStringSlow(source.slice(start, pos), depth, what);
}

/** Continues a string that has escapes (or raw surrogates, or is malformed) from the cursor. */
function parseStringSlow(prefix: string, depth: number, what: string): string {
  const source = text;
  const end = source.length;
  let out = prefix;
  for (;;) {
    if (pos >= end) throw syntaxError(`unterminated ${what}`, depth);
    const c = source.charCodeAt(pos);
    if (c === CHAR_QUOTE) {
      pos++;
      return out;
    }
    if (c < CHAR_SPACE) throw syntaxError(`raw control character in a ${what} (must be escaped)`, depth);
    if (c !== CHAR_BACKSLASH) {
      if ((c & 0xf800) === 0xd800) {
        // Raw surrogates only reach here from a JS-string caller; a valid pair is fine.
        const next = source.charCodeAt(pos + 1);
        if (!(c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff)) throw loneSurrogate(depth, what);
        out += source.slice(pos, pos + 2);
        pos += 2;
        continue;
      }
      const runStart = pos;
      do pos++;
      while (pos < end && isPlainStringChar(source.charCodeAt(pos)));
      out += source.slice(runStart, pos);
      continue;
    }
    const e = source.charCodeAt(pos + 1);
    if (e === CHAR_U_LOWER) {
      const unit = hex4(pos + 2);
      if (unit < 0) throw syntaxError(`invalid \\u escape in a ${what}`, depth);
      pos += 6;
      if (unit >= 0xdc00 && unit <= 0xdfff) throw loneSurrogate(depth, what);
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const low =
          source.charCodeAt(pos) === CHAR_BACKSLASH && source.charCodeAt(pos + 1) === CHAR_U_LOWER ? hex4(pos + 2) : -1;
        if (!(low >= 0xdc00 && low <= 0xdfff)) throw loneSurrogate(depth, what);
        pos += 6;
        out += String.fromCharCode(unit, low);
      } else {
        out += String.fromCharCode(unit);
      }
      continue;
    }
    const unescaped = simpleEscape(e);
    if (unescaped === undefined) throw syntaxError(`invalid escape in a ${what}`, depth);
    out += unescaped;
    pos += 2;
  }
}

function isPlainStringChar(c: number): boolean {
  return c !== CHAR_QUOTE && c !== CHAR_BACKSLASH && c >= CHAR_SPACE && (c & 0xf800) !== 0xd800;
}

function simpleEscape(c: number): string | undefined {
  switch (c) {
    case CHAR_QUOTE:
      return '"';
    case CHAR_BACKSLASH:
      return "\\";
    case CHAR_SLASH:
      return "/";
    case CHAR_B_LOWER:
      return "\b";
    case CHAR_F_LOWER:
      return "\f";
    case CHAR_N_LOWER:
      return "\n";
    case CHAR_R_LOWER:
      return "\r";
    case CHAR_T_LOWER:
      return "\t";
    default:
      return undefined;
  }
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

function parseNumber(depth: number): number {
  const source = text;
  const start = pos;
  const negative = source.charCodeAt(pos) === CHAR_MINUS;
  if (negative) pos++;
  const integerStart = pos;
  let c = source.charCodeAt(pos);
  let integer = 0;
  if (c === CHAR_0) {
    pos++;
  } else if (c >= CHAR_1 && c <= CHAR_9) {
    do {
      integer = integer * 10 + (c - CHAR_0);
      c = source.charCodeAt(++pos);
    } while (c >= CHAR_0 && c <= CHAR_9);
  } else {
    throw syntaxError("expected a digit", depth);
  }
  const integerDigits = pos - integerStart;
  let plainInteger = true;
  c = source.charCodeAt(pos);
  if (c === CHAR_DOT) {
    plainInteger = false;
    c = source.charCodeAt(++pos);
    if (!(c >= CHAR_0 && c <= CHAR_9)) throw syntaxError("expected a digit after '.'", depth);
    do c = source.charCodeAt(++pos);
    while (c >= CHAR_0 && c <= CHAR_9);
  }
  if (c === CHAR_E_LOWER || c === CHAR_E_UPPER) {
    plainInteger = false;
    c = source.charCodeAt(++pos);
    if (c === CHAR_PLUS || c === CHAR_MINUS) c = source.charCodeAt(++pos);
    if (!(c >= CHAR_0 && c <= CHAR_9)) throw syntaxError("expected a digit in the exponent", depth);
    do c = source.charCodeAt(++pos);
    while (c >= CHAR_0 && c <= CHAR_9);
  }
  // Up to 15 digits the accumulated value is exact; "-0" becomes 0 here.
  if (plainInteger && integerDigits <= ALWAYS_SAFE_INTEGER_DIGITS) return negative && integer !== 0 ? -integer : integer;
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
    return 0; // also turns -0 (e.g. "-0.0e5") into 0
  }
  return value;
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

// ---- refusals ----

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

/** `$.a.b[3]["odd name"]` for the members being parsed at depths 1..depth. */
function pathTo(depth: number): string {
  let path = "$";
  for (let d = 1; d <= depth; d++) {
    const segment = pathSegments[d];
    if (typeof segment === "number") path += `[${segment}]`;
    else if (segment !== undefined && IDENTIFIER.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment ?? "")}]`;
    if (path.length > MAX_PATH_CHARS) return `${path.slice(0, MAX_PATH_CHARS)}…`;
  }
  return path;
}
