import canonicalize from "canonicalize";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalHash, canonicalJson } from "../../engine/canonical-hash.js";

/** Strings over the whole UTF-16 range, surrogate pairs and lone surrogates included. */
const anyText = fc.string({ unit: "binary", maxLength: 12 });
const wellFormedText = fc.oneof(fc.string({ unit: "grapheme", maxLength: 12 }), fc.string({ maxLength: 12 }));
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(0, -0, 9, 10, 99, 100, 2 ** 31 - 1, 2 ** 31, -1, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0.1 + 0.2),
);
const jsonLike = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    wellFormedText,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(tie("value"), fc.constant(undefined)), { maxLength: 5 }),
    fc.dictionary(wellFormedText, fc.oneof(tie("value"), fc.constant(undefined)), { maxKeys: 6 }),
  ),
})).value;

describe("canonical JSON (RFC 8785)", () => {
  it("writes exactly what the canonicalize package writes, for any JSON value", () => {
    fc.assert(
      fc.property(jsonLike, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it("agrees with the package on strings with and without lone surrogates", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        let expected: string | Error;
        try {
          expected = canonicalize({ [text]: [text] }) as string;
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) expect(() => canonicalJson({ [text]: [text] })).toThrow(/Lone surrogate/);
        else expect(canonicalJson({ [text]: [text] })).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it("sorts members by UTF-16 code units, drops undefined members and writes undefined items as null", () => {
    expect(canonicalJson({ b: 1, a: undefined, "\u{1F600}": 2, "\uFFFF": 3, A: [undefined, -0, 1e21] })).toBe(
      '{"A":[null,0,1e+21],"b":1,"\u{1F600}":2,"\uFFFF":3}',
    );
  });

  it("refuses what has no canonical form", () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(/Infinity/);
    expect(() => canonicalJson("\uD800x")).toThrow(/Lone surrogate/);
    expect(() => canonicalJson({ "\uDC00": 1 })).toThrow(/Lone surrogate/);
    expect(() => canonicalJson({ a: 1n })).toThrow(/bigint/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/deeper than/);
  });

  it("uses toJSON like JSON.stringify and the package", () => {
    const value = { when: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), n: { toJSON: () => ({ z: 1, y: [2] }) } };
    expect(canonicalJson(value)).toBe(canonicalize(value));
    expect(canonicalJson(value)).toBe('{"n":{"y":[2],"z":1},"when":"2026-01-02T03:04:05.000Z"}');
  });

  it("hashes in slices exactly what hashing the whole text gives, across slice boundaries", () => {
    const sha = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
    fc.assert(
      fc.property(jsonLike, fc.integer({ min: 0, max: 3_000 }), (value, copies) => {
        // Big enough to cross the 16 Ki-character slices, with multi-byte characters at the seams.
        const big = { value, filler: Array.from({ length: copies }, (_, i) => `é€\u{1F600}-${i}`) };
        expect(canonicalHash(big)).toBe(sha(canonicalize(big) as string));
      }),
      { numRuns: 60 },
    );
  });

  it("hashes the canonical text with SHA-256", () => {
    // sha256("{\"a\":1}")
    expect(canonicalHash({ a: 1 })).toBe("sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
  });
});
