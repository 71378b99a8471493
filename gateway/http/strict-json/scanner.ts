/**
 * The validating scan: the full JSON grammar, the depth limit and the top-level shape. It finds
 * where each string ends and hands escapes, numbers and member names to their rules (strings.ts,
 * numbers.ts, member-names.ts). It builds no value; JSON.parse does that once the scan has passed
 * (index.ts). Every function takes the scan's state `s` and moves its cursor `s.pos`.
 */
import {
  CHAR_COLON, CHAR_COMMA, CHAR_CR, CHAR_F_LOWER, CHAR_LEFT_BRACE, CHAR_LEFT_BRACKET, CHAR_LF, CHAR_MINUS,
  CHAR_N_LOWER, CHAR_QUOTE, CHAR_RIGHT_BRACE, CHAR_RIGHT_BRACKET, CHAR_SPACE, CHAR_T_LOWER, CHAR_TAB, isDigit,
} from "./chars.js";
import { addNameRange, addNameToSet, RANGE_COMPARE_MAX_MEMBERS } from "./member-names.js";
import { pathTo, syntaxError } from "./messages.js";
import { scanNumber } from "./numbers.js";
import { JsonRefusal, type ScanState } from "./scan-state.js";
import { scanEscape, scanStringByChar } from "./strings.js";
import type { StrictJsonLimits } from "./types.js";

/**
 * Scans `text` as one top-level object (or array, where the limits allow it). Returns the refusal
 * message, or undefined when the text passed. `plainText`: see ScanState.
 */
export function scanDocument(s: ScanState, text: string, limits: StrictJsonLimits, plainText: boolean): string | undefined {
  s.start(text, limits.maxDepth, plainText);
  try {
    skipWhitespace(s);
    if (s.pos >= text.length) return "request body is empty";
    const topLevelArray = limits.allowTopLevelArray === true && text.charCodeAt(s.pos) === CHAR_LEFT_BRACKET;
    if (topLevelArray) {
      scanArray(s, 1);
    } else {
      if (text.charCodeAt(s.pos) !== CHAR_LEFT_BRACE) return "request body must be a JSON object";
      scanObject(s, 1);
    }
    skipWhitespace(s);
    if (s.pos >= text.length) return undefined;
    return `invalid JSON: unexpected data after the top-level ${topLevelArray ? "array" : "object"} at position ${s.pos}`;
  } catch (error) {
    if (error instanceof JsonRefusal) return error.message;
    // Only a stack overflow from an absurd caller-chosen maxDepth can land here.
    return `invalid JSON: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    s.finish();
  }
}

/** `depth` is the nesting level of the container holding this value. */
function scanValue(s: ScanState, depth: number): void {
  const c = s.text.charCodeAt(s.pos);
  if (c === CHAR_QUOTE) scanString(s, depth, "string");
  else if (c === CHAR_LEFT_BRACE) scanObject(s, depth + 1);
  else if (c === CHAR_LEFT_BRACKET) scanArray(s, depth + 1);
  else if (c === CHAR_MINUS || isDigit(c)) scanNumber(s, depth);
  else scanLiteral(s, depth);
}

/** `true`, `false` or `null` (kept out of scanValue so that scanValue stays small enough to inline). */
function scanLiteral(s: ScanState, depth: number): void {
  const text = s.text;
  const c = text.charCodeAt(s.pos);
  if (c === CHAR_T_LOWER && text.startsWith("true", s.pos)) s.pos += 4;
  else if (c === CHAR_F_LOWER && text.startsWith("false", s.pos)) s.pos += 5;
  else if (c === CHAR_N_LOWER && text.startsWith("null", s.pos)) s.pos += 4;
  else throw syntaxError(s, "expected a value", depth);
}

/**
 * The depth check for a container being entered. It comes before any recursion, so a document
 * nested a million levels deep is refused at level maxDepth + 1 with no stack overflow.
 */
function enter(s: ScanState, depth: number): void {
  if (depth > s.maxDepth) throw new JsonRefusal(`JSON nested deeper than ${s.maxDepth} levels at ${pathTo(s, depth - 1)}`);
  if (depth > s.deepest) s.reach(depth);
}

/** `depth` is this object's own nesting level (top-level object = 1). Cursor is on '{'. */
function scanObject(s: ScanState, depth: number): void {
  enter(s, depth);
  s.pos++;
  skipWhitespace(s);
  if (s.text.charCodeAt(s.pos) === CHAR_RIGHT_BRACE) {
    s.pos++;
    return;
  }
  // The member name is scanned and checked for a duplicate right here rather than in a helper:
  // that keeps the per-member work small enough for V8 to inline into this loop.
  let names: Set<string> | undefined; // set mode (member-names.ts)
  for (let count = 0; ; count++) {
    if (s.text.charCodeAt(s.pos) !== CHAR_QUOTE) throw syntaxError(s, "expected a member name in double quotes", depth - 1);
    const start = s.pos + 1;
    scanString(s, depth - 1, "member name");
    const end = s.pos - 1;
    const escaped = s.lastStringEscaped;
    s.pathStart[depth] = start;
    s.pathEnd[depth] = end;
    s.pathEscaped[depth] = escaped;
    if (names === undefined && !escaped && count < RANGE_COMPARE_MAX_MEMBERS) addNameRange(s, depth, count, start, end);
    else names = addNameToSet(s, depth, count, start, end, escaped, names);
    skipWhitespace(s);
    if (s.text.charCodeAt(s.pos) !== CHAR_COLON) throw syntaxError(s, "expected ':' after a member name", depth);
    s.pos++;
    skipWhitespace(s);
    scanValue(s, depth);
    skipWhitespace(s);
    const c = s.text.charCodeAt(s.pos);
    if (c === CHAR_COMMA) {
      s.pos++;
      skipWhitespace(s);
    } else if (c === CHAR_RIGHT_BRACE) {
      s.pos++;
      names?.clear();
      return;
    } else {
      throw syntaxError(s, "expected ',' or '}' after a member", depth);
    }
  }
}

/** Like scanObject, for '['. */
function scanArray(s: ScanState, depth: number): void {
  enter(s, depth);
  s.pos++;
  skipWhitespace(s);
  if (s.text.charCodeAt(s.pos) === CHAR_RIGHT_BRACKET) {
    s.pos++;
    return;
  }
  s.pathStart[depth] = -1;
  for (let index = 0; ; index++) {
    s.pathEnd[depth] = index;
    scanValue(s, depth);
    skipWhitespace(s);
    const c = s.text.charCodeAt(s.pos);
    if (c === CHAR_COMMA) {
      s.pos++;
      skipWhitespace(s);
    } else if (c === CHAR_RIGHT_BRACKET) {
      s.pos++;
      return;
    } else {
      throw syntaxError(s, "expected ',' or ']' after an element", depth);
    }
  }
}

/**
 * Advances past a string literal (cursor on its opening quote); sets `lastStringEscaped`. For text
 * that holds no raw surrogate (ScanState.plainText) it jumps from quote to backslash with native
 * `indexOf`, much cheaper than a loop per character; escapes go to strings.ts. Raw control
 * characters are not seen that way: JSON.parse refuses them later, and the text is scanned again
 * by scanStringByChar for the message. This is the hot path of every body, kept in this module
 * with the grammar so that V8 can inline it into its callers.
 */
function scanString(s: ScanState, depth: number, what: string): void {
  if (!s.plainText) return scanStringByChar(s, depth, what);
  const source = s.text;
  let p = s.pos + 1;
  let escaped = false;
  for (;;) {
    const quote = source.indexOf('"', p);
    if (quote < 0) {
      s.pos = source.length;
      throw syntaxError(s, `unterminated ${what}`, depth);
    }
    // One backslash search serves every string up to that backslash.
    let backslash = s.nextBackslash;
    if (backslash < p) {
      backslash = source.indexOf("\\", p);
      if (backslash < 0) backslash = source.length;
      s.nextBackslash = backslash;
    }
    if (backslash > quote) {
      s.pos = quote + 1;
      s.lastStringEscaped = escaped;
      return;
    }
    escaped = true;
    p = scanEscape(s, backslash, depth, what);
  }
}

function skipWhitespace(s: ScanState): void {
  for (;;) {
    const c = s.text.charCodeAt(s.pos);
    if (c === CHAR_SPACE || c === CHAR_LF || c === CHAR_CR || c === CHAR_TAB) s.pos++;
    else return;
  }
}
