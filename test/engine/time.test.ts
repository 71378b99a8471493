/** engine/rules/common/time.ts's calendar arithmetic agrees with Date on every instant tried. */
import { fc, test } from "@fast-check/vitest";
import { expect, test as plainTest, vi } from "vitest";
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

// Both functions remember their last answer (decision I64): a run of calls, repeating and
// alternating times as a batch's events do, must give each call the answer a fresh computation gives.
const fewInstants = fc.constantFrom(0, 1, 1_772_366_400_000, 1_772_366_400_001, -1, 253_402_300_799_999);
test.prop([fc.array(fewInstants, { minLength: 1, maxLength: 40 })])("a run of writes and reads answers each call as if it were the first", (instants) => {
  for (const ms of instants) {
    const text = isoFromMs(ms);
    expect(text).toBe(new Date(ms).toISOString());
    expect(msOfNormalized(text)).toBe(ms);
    // An equal text that is another string reads the same.
    expect(msOfNormalized(`${text.slice(0, 10)}${text.slice(10)}`)).toBe(ms);
  }
});

test("a text refused between two reads of one time does not change what that time reads as", () => {
  const text = "2026-03-01T12:00:00.250Z";
  const ms = Date.parse(text);
  expect(msOfNormalized(text)).toBe(ms);
  expect(() => msOfNormalized("2026-03-01T12:00:00.2x0Z")).toThrow();
  expect(msOfNormalized(text)).toBe(ms);
  expect(() => msOfNormalized("")).toThrow();
  expect(() => msOfNormalized("")).toThrow();
  expect(msOfNormalized(text)).toBe(ms);
});

// The memo's starting state: a fresh module (as each worker thread loads it) must answer its first
// calls as a fresh computation too, whatever the remembered values start as.
plainTest("a fresh module's first calls are computed, not taken from the memo's starting values", async () => {
  vi.resetModules();
  const fresh = await import("../../engine/rules/common/time.js");
  expect(() => fresh.msOfNormalized("")).toThrow();
  expect(fresh.isoFromMs(0)).toBe("1970-01-01T00:00:00.000Z");
  expect(() => fresh.isoFromMs(8.64e15 + 1)).toThrow();
  expect(() => fresh.isoFromMs(8.64e15 + 1)).toThrow();
  expect(fresh.msOfNormalized("1970-01-01T00:00:00.000Z")).toBe(0);
});
