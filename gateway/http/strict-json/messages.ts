/**
 * How a refusal names its place: the member path (`$.subject.data[3]["odd name"]`) of the value
 * being scanned, and for a syntax error also what was found at which position. A client fixes its
 * body from this, so the path says which member, not just an offset.
 */
import { JsonRefusal, type ScanState } from "./scan-state.js";

/** Member paths in messages are cut here; a 32-level path of long names would flood logs. */
const MAX_PATH_CHARS = 200;
/** Names written `.name` in a path; any other name is written `["…"]`. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function syntaxError(s: ScanState, expectation: string, depth: number): JsonRefusal {
  const found = s.pos >= s.text.length ? "end of input" : describeChar(s.text.charCodeAt(s.pos));
  return new JsonRefusal(`invalid JSON at ${pathTo(s, depth)}: ${expectation}, found ${found} at position ${s.pos}`);
}

/** Printable ASCII as itself in quotes, anything else (control characters, non-ASCII) as U+XXXX. */
function describeChar(c: number): string {
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `$.a.b[3]["odd name"]` for the members being scanned at depths 1..depth. */
export function pathTo(s: ScanState, depth: number): string {
  let path = "$";
  for (let d = 1; d <= depth; d++) {
    const start = s.pathStart[d] ?? -1;
    const end = s.pathEnd[d] ?? 0;
    if (start < 0) {
      path += `[${end}]`;
    } else {
      const name = memberNameForPath(s, start, end, s.pathEscaped[d] === true);
      path += IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
    }
    if (path.length > MAX_PATH_CHARS) return `${path.slice(0, MAX_PATH_CHARS)}…`;
  }
  return path;
}

/** The name as the client meant it; its raw text when the refusal is about that very name's escapes. */
function memberNameForPath(s: ScanState, start: number, end: number, escaped: boolean): string {
  if (!escaped) return s.text.slice(start, end);
  try {
    return decodeName(s, start, end);
  } catch {
    return s.text.slice(start, end);
  }
}

/** The member name whose text (quotes excluded) is `start..end`, unescaped. */
export function decodeName(s: ScanState, start: number, end: number): string {
  return JSON.parse(s.text.slice(start - 1, end + 1)) as string;
}
