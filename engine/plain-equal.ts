/**
 * Structural equality of plain data (what records and market state are made of: objects, arrays,
 * strings, numbers, booleans, null, undefined): Object.is for primitives (so -0 ≠ 0 and NaN equals
 * NaN), the same own keys in any order, arrays item by item. On such data the verdict is
 * `util.isDeepStrictEqual`'s (test/engine/plain-equal.test.ts checks it on random values).
 *
 * Why not isDeepStrictEqual itself: it handles every kind of object (Maps, boxed primitives,
 * symbol keys, prototypes, cycles) through generic paths; comparing a market's replayed and folded
 * state with it was a tenth of an audit replay. What plain data never has is not looked at here:
 * prototypes (every object the engine builds is an object literal or an array), symbol-keyed
 * members (not data, and not in canonical JSON either) and non-enumerable ones (an object literal
 * has none). Typed arrays and Maps (snapshot state may hold them) go to isDeepStrictEqual.
 */
import { isDeepStrictEqual } from "node:util";

const MAX_DEPTH = 1_000;

function equalAt(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return Object.is(a, b);
  if (a === b) return true;
  if (depth >= MAX_DEPTH || ArrayBuffer.isView(a) || ArrayBuffer.isView(b) || a instanceof Map || b instanceof Map) {
    return isDeepStrictEqual(a, b);
  }
  const aIsArray = Array.isArray(a);
  if (aIsArray !== Array.isArray(b)) return false;
  if (aIsArray) {
    const arrayA = a as unknown[];
    const arrayB = b as unknown[];
    if (arrayA.length !== arrayB.length) return false;
    for (let i = 0; i < arrayA.length; i++) {
      // A hole is not an undefined item: both must have one at the same index.
      if (!(i in arrayA) !== !(i in arrayB)) return false;
      if (!equalAt(arrayA[i], arrayB[i], depth + 1)) return false;
    }
    return true;
  }
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  const keys = Object.keys(recordA);
  if (keys.length !== Object.keys(recordB).length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (!Object.hasOwn(recordB, key)) return false;
    if (!equalAt(recordA[key], recordB[key], depth + 1)) return false;
  }
  return true;
}

export function plainDeepEqual(a: unknown, b: unknown): boolean {
  return equalAt(a, b, 0);
}
