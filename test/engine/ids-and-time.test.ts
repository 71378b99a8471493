import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bidIdOf, commitmentIdOf, eventIdOf, isoFromMs, parseCommitmentId, parseDateTimeMs, parseGeneratedId } from "../../engine/index.js";
import { msOfNormalized } from "../../engine/rules/common/time.js";
import { marketRef, ordinalWithin } from "@market-service/client/wire";

describe("generated ids (decision 5)", () => {
  it("are URL-path safe and name their market", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 128, unit: "grapheme" }), fc.integer({ min: 1, max: 2 ** 40 }), (marketId, ordinal) => {
        const id = commitmentIdOf(marketId, ordinal);
        expect(id).toMatch(/^c\.[A-Za-z0-9_-]+\.[1-9][0-9]*$/);
        expect(encodeURIComponent(id)).toBe(id);
        expect(parseCommitmentId(id)).toEqual({ marketId, ordinal });
        expect(parseGeneratedId(bidIdOf(marketId, ordinal), "b")).toEqual({ marketId, ordinal });
        expect(parseGeneratedId(eventIdOf(marketId, ordinal), "e")).toEqual({ marketId, ordinal });
        expect(parseCommitmentId(bidIdOf(marketId, ordinal))).toBeUndefined();
      }),
    );
  });

  it("refuses ids the service cannot have produced", () => {
    for (const bad of ["", "c", "c..1", "c.bTE.0", "c.bTE.01", "c.bTE.-1", "c.bTE.1.2", "c.b%54E.1", "c.bTE=.1", "c.bTE.99999999999999999", "c./.1", "c.__8.1"]) {
      expect(parseCommitmentId(bad)).toBeUndefined();
    }
  });
});

describe("ordinalWithin: a generated id's ordinal read against its market's ref", () => {
  it("agrees with the full parse on canonical ids and refuses what the service cannot have produced", () => {
    const ref = marketRef("market-7");
    const suffixes = ["1", "9", "10", "300", "0", "01", "1a", "", "-1", "1.5", "123456789012345", "999999999999999", "1234567890123456",
      "9007199254740991", "9007199254740992", "9007199254740993", "9999999999999999", "12345678901234567"];
    for (const suffix of suffixes) {
      for (const kind of ["c", "b", "e"] as const) {
        const id = `${kind}.${ref}.${suffix}`;
        const parsed = parseGeneratedId(id, kind);
        expect(ordinalWithin(id, kind, ref), id).toBe(parsed?.ordinal);
        expect(ordinalWithin(id, kind === "c" ? "b" : "c", ref)).toBeUndefined();
      }
    }
    expect(ordinalWithin(`c.${marketRef("market-8")}.1`, "c", ref)).toBeUndefined();
    expect(ordinalWithin(`c.${ref}1`, "c", ref)).toBeUndefined();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (ordinal) => {
        expect(ordinalWithin(commitmentIdOf("market-7", ordinal), "c", ref)).toBe(ordinal);
      }),
    );
  });
});

describe("RFC 3339 time", () => {
  it("parses offsets, fractions and case, strictly", () => {
    expect(parseDateTimeMs("2026-03-01T14:30:00+02:00")).toBe(Date.parse("2026-03-01T12:30:00Z"));
    expect(parseDateTimeMs("2026-03-01t12:30:00.123456789z")).toBe(Date.parse("2026-03-01T12:30:00.123Z"));
    expect(parseDateTimeMs("2024-02-29T00:00:00Z")).toBe(Date.parse("2024-02-29T00:00:00Z"));
    expect(parseDateTimeMs("0001-01-01T00:00:00Z")).toBe(Date.parse("0001-01-01T00:00:00Z"));
    for (const bad of ["2026-02-29T00:00:00Z", "2026-02-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00+24:00", "2026-01-01", "yesterday"]) {
      expect(parseDateTimeMs(bad)).toBeUndefined();
    }
  });

  it("round-trips the service's own form", () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
        expect(parseDateTimeMs(isoFromMs(ms))).toBe(ms);
      }),
    );
  });

  it("reads its own times back through the remembered second exactly as a full parse does", () => {
    // Times close together (the same second, the next, a millisecond apart) and far apart, in any order:
    // the cache of the last second's text must never change an answer.
    const instant = fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 });
    fc.assert(
      fc.property(instant, fc.array(fc.integer({ min: -2_500, max: 2_500 }), { maxLength: 40 }), (base, steps) => {
        for (const ms of [base, ...steps.map((step) => base + step)]) {
          if (ms < -62_135_596_800_000 || ms > 253_402_300_799_999) continue;
          const iso = isoFromMs(ms);
          expect(msOfNormalized(iso)).toBe(ms);
          expect(msOfNormalized(iso)).toBe(parseDateTimeMs(iso));
        }
      }),
    );
    // Text that shares the remembered second but is not in the normalized form is parsed in full.
    expect(msOfNormalized("2026-03-01T12:00:00.250Z")).toBe(Date.parse("2026-03-01T12:00:00.250Z"));
    expect(msOfNormalized("2026-03-01T12:00:00.5Z")).toBe(Date.parse("2026-03-01T12:00:00.500Z"));
    expect(msOfNormalized("2026-03-01T12:00:00.250+01:00")).toBe(Date.parse("2026-03-01T11:00:00.250Z"));
    expect(() => msOfNormalized("2026-03-01T12:00:00.2x0Z")).toThrow();
  });
});
