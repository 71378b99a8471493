/** engine/rules/common/time.ts's calendar arithmetic agrees with Date on every instant tried. */
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { isoFromMs, msOfNormalized, parseDateTimeMs } from "../../engine/rules/common/time.js";

const anyInstant = fc.integer({ min: -8.64e15, max: 8.64e15 });
const fourDigitYears = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 });

test.prop([anyInstant])("isoFromMs is toISOString", (ms) => {
  expect(isoFromMs(ms)).toBe(new Date(ms).toISOString());
});

test.prop([fourDigitYears])("msOfNormalized reads isoFromMs back, as parseDateTimeMs does", (ms) => {
  const text = isoFromMs(ms);
  expect(msOfNormalized(text)).toBe(ms);
  expect(parseDateTimeMs(text)).toBe(ms);
});

test.prop([fc.constantFrom("2026-02-29T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01 00:00:00.000Z", "2024-02-29T23:59:59.999Z")])(
  "a text that only looks normalized is judged as parseDateTimeMs judges it",
  (text) => {
    const parsed = parseDateTimeMs(text);
    if (parsed === undefined) expect(() => msOfNormalized(text)).toThrow();
    else expect(msOfNormalized(text)).toBe(parsed);
  },
);
