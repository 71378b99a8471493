import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonValue } from "../../gateway/validation/json-value.js";

describe("strict-JSON rules for already-parsed values (MCP arguments)", () => {
  it("refuses unsafe integers (rounded by JSON.parse), non-finite numbers, lone surrogates, deep nesting", () => {
    expect(checkJsonValue(JSON.parse('{"n":9007199254740993}'))).toMatchObject({ ok: false, message: expect.stringContaining("$.n") });
    expect(checkJsonValue({ n: Number.POSITIVE_INFINITY }).ok).toBe(false);
    expect(checkJsonValue({ s: "a\ud800b" }).ok).toBe(false);
    expect(checkJsonValue(JSON.parse('{"\\udc00":1}')).ok).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < 40; i += 1) deep = [deep];
    expect(checkJsonValue({ deep }).ok).toBe(false);
  });

  it("normalizes -0 to 0 and keeps __proto__ as a plain member", () => {
    const checked = checkJsonValue(JSON.parse('{"a":-0,"__proto__":{"x":1}}'));
    if (!checked.ok) throw new Error(checked.message);
    expect(Object.is((checked.value as { a: number }).a, 0)).toBe(true);
    expect(Object.keys(checked.value as object)).toEqual(["a", "__proto__"]);
    expect(JSON.stringify(checked.value)).toBe('{"a":0,"__proto__":{"x":1}}');
  });

  /** Independent oracle: does a parsed JSON value break one of the rules? */
  function breaksARule(value: unknown): boolean {
    if (typeof value === "number") return Number.isInteger(value) && !Number.isSafeInteger(value);
    if (typeof value === "string") return !value.isWellFormed();
    if (Array.isArray(value)) return value.some(breaksARule);
    if (value !== null && typeof value === "object") return Object.entries(value).some(([k, v]) => !k.isWellFormed() || breaksARule(v));
    return false;
  }

  it("refuses exactly the values that break a rule and returns every other one unchanged", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        const checked = checkJsonValue(parsed, 1000);
        expect(checked.ok).toBe(!breaksARule(parsed));
        if (checked.ok) expect(JSON.stringify(checked.value)).toBe(JSON.stringify(parsed));
      }),
      { numRuns: 500 },
    );
  });
});
