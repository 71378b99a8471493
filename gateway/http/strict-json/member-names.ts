/**
 * Duplicate member names. JSON.parse keeps the last of two equal names, so a signed body could mean
 * two things; it is refused instead. Names compare after unescaping: `"a"` and `"\u0061"` are
 * duplicates.
 *
 * Two ways to remember the names seen in an object, chosen per object:
 * - range mode (the common case: few members, no escapes): compare name ranges in the text,
 *   which allocates no strings;
 * - set mode (more than RANGE_COMPARE_MAX_MEMBERS members, or any escaped name, where equal names
 *   can differ in the text): a Set of decoded names, one kept per depth and reused.
 */
import { decodeName, pathTo } from "./messages.js";
import { JsonRefusal, type ScanState } from "./scan-state.js";

/** Objects with more members than this remember their names in a Set. */
export const RANGE_COMPARE_MAX_MEMBERS = 16;

/**
 * Range mode: records the name of member number `count` of the object at `depth` (its text is
 * `start..end`, quotes excluded, no escapes), refusing it if an earlier name has the same text.
 */
export function addNameRange(s: ScanState, depth: number, count: number, start: number, end: number): void {
  const starts = s.nameStarts[depth] as number[];
  const ends = s.nameEnds[depth] as number[];
  const length = end - start;
  for (let k = 0; k < count; k++) {
    const otherStart = starts[k] as number;
    if ((ends[k] as number) - otherStart === length && sameChars(s.text, otherStart, start, length)) throw duplicate(s, depth);
  }
  starts[count] = start;
  ends[count] = end;
}

/**
 * Set mode: records the name of member number `count` (see addNameRange; it may have escapes) in
 * `names`, the object's Set, or, when undefined, in the depth's Set after the names recorded as
 * ranges so far. Returns the Set, which the caller passes for the next member and clears when the
 * object closes.
 */
export function addNameToSet(
  s: ScanState,
  depth: number,
  count: number,
  start: number,
  end: number,
  escaped: boolean,
  names: Set<string> | undefined,
): Set<string> {
  const set = names ?? switchToSet(s, depth, count);
  const name = escaped ? decodeName(s, start, end) : s.text.slice(start, end);
  if (set.has(name)) throw duplicate(s, depth);
  set.add(name);
  return set;
}

/** The depth's Set, holding the names recorded as ranges so far (none of them escaped). */
function switchToSet(s: ScanState, depth: number, count: number): Set<string> {
  const names = s.nameSets[depth] ?? new Set<string>();
  s.nameSets[depth] = names;
  names.clear();
  const starts = s.nameStarts[depth] as number[];
  const ends = s.nameEnds[depth] as number[];
  for (let k = 0; k < count; k++) names.add(s.text.slice(starts[k], ends[k]));
  return names;
}

function sameChars(source: string, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) {
    if (source.charCodeAt(a + k) !== source.charCodeAt(b + k)) return false;
  }
  return true;
}

function duplicate(s: ScanState, depth: number): JsonRefusal {
  return new JsonRefusal(`duplicate member at ${pathTo(s, depth)}`);
}
