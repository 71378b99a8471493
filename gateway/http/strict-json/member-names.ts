/**
 * Duplicate member names. JSON.parse keeps the last of two equal names, so a signed body could mean
 * two things; it is refused instead. Names compare after unescaping: `"a"` and `"\u0061"` are
 * duplicates.
 *
 * Two ways to remember the names seen in an object, chosen per object:
 * - range mode (the common case: few members, no escapes): compare name ranges in the text,
 *   which allocates no strings;
 * - set mode (more than RANGE_COMPARE_MAX_MEMBERS members, or any escaped name, where equal names
 *   can differ in the text): a Set of decoded names.
 */
import { decodeName, pathTo } from "./messages.js";
import { JsonRefusal, type ScanState } from "./scan-state.js";

/** Up to this many members, duplicates are found by comparing name ranges in the text. */
const RANGE_COMPARE_MAX_MEMBERS = 16;

/** An object at `depth` is being entered: it has no names yet. */
export function beginMemberNames(s: ScanState, depth: number): void {
  s.nameCount[depth] = 0;
  s.nameSetInUse[depth] = false;
  if (s.nameStarts[depth] === undefined) {
    s.nameStarts[depth] = [];
    s.nameEnds[depth] = [];
  }
}

/**
 * Records the name just scanned (text `start..end`, quotes excluded) of the object at `depth`, and
 * refuses it if the object already has it. The name is already the member path's last step.
 */
export function addMemberName(s: ScanState, depth: number, start: number, end: number, escaped: boolean): void {
  const count = s.nameCount[depth] as number;
  if (!s.nameSetInUse[depth] && (escaped || count === RANGE_COMPARE_MAX_MEMBERS)) switchToSet(s, depth, count);
  if (s.nameSetInUse[depth]) {
    const names = s.nameSets[depth] as Set<string>;
    const name = escaped ? decodeName(s, start, end) : s.text.slice(start, end);
    if (names.has(name)) throw duplicate(s, depth);
    names.add(name);
  } else {
    addNameRange(s, depth, count, start, end);
  }
  s.nameCount[depth] = count + 1;
}

/** The object at `depth` is closed: its decoded names are no longer needed. */
export function endMemberNames(s: ScanState, depth: number): void {
  if (s.nameSetInUse[depth]) s.nameSets[depth]?.clear();
}

function addNameRange(s: ScanState, depth: number, count: number, start: number, end: number): void {
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

/** Moves the names recorded as ranges so far (none of them escaped) into the depth's Set. */
function switchToSet(s: ScanState, depth: number, count: number): void {
  const names = s.nameSets[depth] ?? new Set<string>();
  s.nameSets[depth] = names;
  names.clear();
  const starts = s.nameStarts[depth] as number[];
  const ends = s.nameEnds[depth] as number[];
  for (let k = 0; k < count; k++) names.add(s.text.slice(starts[k], ends[k]));
  s.nameSetInUse[depth] = true;
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
