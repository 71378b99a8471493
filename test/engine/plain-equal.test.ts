import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { plainDeepEqual } from "../../engine/plain-equal.js";

const leaf = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom(0, -0, 1, Number.NaN, 2.5, -1),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
const plain = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("value"), { maxLength: 4 }),
    // Object literals, as the engine builds them (fast-check also makes null-prototype ones).
    fc.dictionary(fc.constantFrom("a", "b", "c", "d"), tie("value"), { maxKeys: 4 }).map((members) => ({ ...members })),
  ),
})).value;

/** A structural copy with members in reverse order, so key order differs from the original. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) out[key] = reordered((value as Record<string, unknown>)[key]);
  return out;
}

describe("plainDeepEqual", () => {
  it("gives isDeepStrictEqual's verdict on any two plain values", () => {
    fc.assert(
      fc.property(plain, plain, (a, b) => {
        expect(plainDeepEqual(a, b)).toBe(isDeepStrictEqual(a, b));
      }),
      { numRuns: 5_000 },
    );
  });

  it("ignores member order and nothing else", () => {
    fc.assert(
      fc.property(plain, (a) => {
        expect(plainDeepEqual(a, reordered(a))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it("tells apart -0 and 0, a missing and an undefined member, a hole and undefined, arrays and objects", () => {
    expect(plainDeepEqual({ a: 0 }, { a: -0 })).toBe(false);
    expect(plainDeepEqual([Number.NaN], [Number.NaN])).toBe(true);
    expect(plainDeepEqual({ a: undefined }, {})).toBe(false);
    expect(plainDeepEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(plainDeepEqual([1, , 3], [1, undefined, 3])).toBe(false); // eslint-disable-line no-sparse-arrays
    expect(plainDeepEqual([], {})).toBe(false);
    expect(plainDeepEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(plainDeepEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(plainDeepEqual(new Map([[1, 2]]), new Map([[1, 3]]))).toBe(false);
    expect(plainDeepEqual("1", 1)).toBe(false);
  });
});
