/**
 * Strict JSON for request bodies (spec §4: "strict JSON ... multiple JSON values are rejected"),
 * hardened against inputs that `JSON.parse` accepts but would silently change:
 *
 * - duplicate member names, also when spelled differently (`"a"` and `"\u0061"`): member-names.ts;
 * - integers beyond ±(2^53 − 1), numbers beyond the double range or underflowing to 0; `-0` is
 *   accepted and returned as 0: numbers.ts;
 * - lone UTF-16 surrogates, escaped or raw: strings.ts;
 * - nesting beyond a depth limit (bounded work and stack for every later recursive consumer), and
 *   anything but one object at the top level (a second value or trailing bytes): scanner.ts;
 * - invalid UTF-8 and a leading byte order mark (RFC 8259 §8.1: UTF-8, no BOM): here.
 *
 * Escaped control characters (`"\u0000"`) are valid JSON and pass; the identifier validators refuse
 * them where the spec's fields need it.
 *
 * How: one validating scan over the decoded text that allocates nothing on the common path
 * (scanner.ts), then native `JSON.parse` builds the value. A hand-written parser that validates and
 * builds in one pass was measured against it and was slower (docs/http.md, "Strict JSON").
 * `JSON.parse` makes plain objects (prototype `Object.prototype`, which the typia validators
 * expect) and defines a `"__proto__"` member as an own data property, so no prototype is ever
 * changed. Refusal messages name the member path (messages.ts).
 */
import { isAscii, isUtf8 } from "node:buffer";
import { ScanState } from "./scan-state.js";
import { scanDocument } from "./scanner.js";
import { DEFAULT_STRICT_JSON_LIMITS, type JsonObject, type StrictJsonLimits, type StrictJsonResult } from "./types.js";

export {
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_STRICT_JSON_LIMITS,
  type JsonObject,
  type JsonValue,
  type StrictJsonLimits,
  type StrictJsonResult,
} from "./types.js";

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The scanner's state, reused by every call (see ScanState). */
const state = new ScanState();

/** Parses a request body. Never throws for any bytes (only for invalid `limits`, a caller bug). */
export function parseStrictJson(bytes: Uint8Array, limits: StrictJsonLimits = DEFAULT_STRICT_JSON_LIMITS): StrictJsonResult {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return refused("request body must not start with a UTF-8 byte order mark");
  }
  // Most bodies are ASCII: a native (SIMD) check plus a latin1 copy is the cheapest exact decoding.
  const view = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii(view)) return parseText(view.toString("latin1"), limits, true);
  if (!isUtf8(view)) return refused("request body is not valid UTF-8");
  return parseText(utf8Decoder.decode(view), limits, true);
}

/**
 * The same rules for a body that is already a string (for callers that decoded it themselves; a JS
 * string may hold raw lone surrogates, which UTF-8 input cannot, and they are refused too).
 */
export function parseStrictJsonText(input: string, limits: StrictJsonLimits = DEFAULT_STRICT_JSON_LIMITS): StrictJsonResult {
  return parseText(input, limits, (input as unknown as { isWellFormed(): boolean }).isWellFormed());
}

/** `wellFormed`: the text holds no lone surrogate, so strings can be skipped natively (ScanState.plainText). */
function parseText(input: string, limits: StrictJsonLimits, wellFormed: boolean): StrictJsonResult {
  if (!(Number.isSafeInteger(limits.maxDepth) && limits.maxDepth >= 1)) {
    throw new RangeError(`maxDepth must be a positive integer, got ${limits.maxDepth}`);
  }
  const scanRefusal = scanDocument(state, input, limits, wellFormed);
  if (scanRefusal !== undefined) return refused(scanRefusal);
  const parsed = parseScanned(input, state.sawNegativeZero);
  if (parsed.ok || !wellFormed) return parsed;
  // JSON.parse refused what the fast scan let through (a raw control character in a string):
  // scan again one character at a time for a message with a member path.
  const preciseRefusal = scanDocument(state, input, limits, false);
  return preciseRefusal === undefined ? parsed : refused(preciseRefusal);
}

/** Builds the value of a text the scan passed. */
function parseScanned(input: string, sawNegativeZero: boolean): StrictJsonResult {
  try {
    const value = (sawNegativeZero ? JSON.parse(input, normalizeNegativeZero) : JSON.parse(input)) as JsonObject;
    return { ok: true, value };
  } catch (error) {
    return refused(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** JSON.parse reviver, used only when the scan saw a negative zero (rare: it is slower). */
function normalizeNegativeZero(_key: string, value: unknown): unknown {
  return value === 0 ? 0 : value;
}

function refused(message: string): StrictJsonResult {
  return { ok: false, message };
}
