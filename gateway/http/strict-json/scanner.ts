/**
 * The validating scan: the full JSON grammar, the depth limit and the top-level shape, handing
 * strings, numbers and member names to their rules (strings.ts, numbers.ts, member-names.ts). It
 * builds no value; JSON.parse does that once the scan has passed (index.ts).
 */
import {
  CHAR_COLON,
  CHAR_COMMA,
  CHAR_CR,
  CHAR_F_LOWER,
  CHAR_LEFT_BRACE,
  CHAR_LEFT_BRACKET,
  CHAR_LF,
  CHAR_MINUS,
  CHAR_N_LOWER,
  CHAR_QUOTE,
  CHAR_RIGHT_BRACE,
  CHAR_RIGHT_BRACKET,
  CHAR_SPACE,
  CHAR_T_LOWER,
  CHAR_TAB,
  isDigit,
} from "./chars.js";
import { addMemberName, beginMemberNames, endMemberNames } from "./member-names.js";
import { pathTo, syntaxError } from "./messages.js";
import { scanNumber } from "./numbers.js";
import { JsonRefusal, type ScanState } from "./scan-state.js";
import { scanString } from "./strings.js";
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
    if (s.pos < text.length) return `invalid JSON: unexpected data after the top-level ${topLevelArray ? "array" : "object"} at position ${s.pos}`;
    return undefined;
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
  const text = s.text;
  const c = text.charCodeAt(s.pos);
  if (c === CHAR_QUOTE) scanString(s, depth, "string");
  else if (c === CHAR_LEFT_BRACE) scanObject(s, depth + 1);
  else if (c === CHAR_LEFT_BRACKET) scanArray(s, depth + 1);
  else if (c === CHAR_MINUS || isDigit(c)) scanNumber(s, depth);
  else if (c === CHAR_T_LOWER && text.startsWith("true", s.pos)) s.pos += 4;
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
  if (depth > s.deepest) s.deepest = depth;
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
  beginMemberNames(s, depth);
  for (;;) {
    scanMemberName(s, depth);
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
      endMemberNames(s, depth);
      return;
    } else {
      throw syntaxError(s, "expected ',' or '}' after a member", depth);
    }
  }
}

/** A member name of the object at `depth`: scanned, made the path's last step, checked for a duplicate. */
function scanMemberName(s: ScanState, depth: number): void {
  if (s.text.charCodeAt(s.pos) !== CHAR_QUOTE) throw syntaxError(s, "expected a member name in double quotes", depth - 1);
  const start = s.pos + 1;
  scanString(s, depth - 1, "member name");
  const end = s.pos - 1;
  s.pathStart[depth] = start;
  s.pathEnd[depth] = end;
  s.pathEscaped[depth] = s.lastStringEscaped;
  addMemberName(s, depth, start, end, s.lastStringEscaped);
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

function skipWhitespace(s: ScanState): void {
  const text = s.text;
  let p = s.pos;
  for (;;) {
    const c = text.charCodeAt(p);
    if (c === CHAR_SPACE || c === CHAR_LF || c === CHAR_CR || c === CHAR_TAB) p++;
    else break;
  }
  s.pos = p;
}
