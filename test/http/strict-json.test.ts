/**
 * Strict JSON: exact refusals with their messages, and property tests against JSON.parse
 * (strict-json-properties.test.ts inserts each refusal's defect into random documents).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type JsonValue, parseStrictJson, parseStrictJsonText } from "../../gateway/http/strict-json/index.js";

const parse = (text: string) => parseStrictJson(Buffer.from(text, "utf8"));

function refusal(text: string | Uint8Array): string {
  const result = typeof text === "string" ? parse(text) : parseStrictJson(text);
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(text)}`);
  return result.message;
}

/** Would JSON.parse give back exactly what this value says? (No rounding, no lone surrogates.) */
function representable(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
  if (typeof value === "string") return value.isWellFormed();
  if (Array.isArray(value)) return value.every(representable);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).every(([key, member]) => key.isWellFormed() && representable(member));
  }
  return true;
}

/** Every object in the result is a plain Object.prototype object, every array an Array. */
function plainThroughout(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(plainThroughout);
  if (typeof value === "object" && value !== null) {
    return Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(plainThroughout);
  }
  return true;
}

describe("accepted input", () => {
  it("parses objects like JSON.parse, keeping member order", () => {
    const text = ' {"b":1, "a":[true,false,null,-1.5e-3,"x\\n\\"\\u00e9\\ud83d\\ude00"],"10":{},"2":[]}\r\n\t';
    const result = parse(text);
    expect(result).toEqual({ ok: true, value: JSON.parse(text) });
    expect(JSON.stringify(result.ok && result.value)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it("accepts -0 as 0 and the largest safe integers", () => {
    const result = parse('{"a":-0,"b":[-0.0,-0e5],"max":9007199254740991,"min":-9007199254740991,"f":1.5e-300}');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.is(result.value.a, 0)).toBe(true);
    expect((result.value.b as number[]).every((n) => Object.is(n, 0))).toBe(true);
    expect(result.value.max).toBe(Number.MAX_SAFE_INTEGER);
    expect(result.value.min).toBe(Number.MIN_SAFE_INTEGER);
  });

  it("takes the no-conversion number path only where it is exact", () => {
    const result = parse(`{"a":123456789012345.5,"b":1234567890123456.5,"c":-0.000,"d":0.${"0".repeat(299)}1,"e":-12.50}`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual({ a: 123456789012345.5, b: 1234567890123456.5, c: 0, d: 1e-300, e: -12.5 });
    expect(Object.is(result.value.c, 0)).toBe(true);
    expect(refusal(`{"u":0.${"0".repeat(400)}1}`)).toBe("number at $.u is too small (it would round to 0)");
    expect(refusal('{"u":9007199254740992.5}')).toMatch(/^number at \$\.u cannot be represented exactly/);
  });

  it("accepts escaped NUL and control characters (validators judge them)", () => {
    expect(parse('{"s":"a\\u0000b\\u001f"}')).toEqual({ ok: true, value: { s: "a\u0000b\u001f" } });
  });

  it("keeps __proto__, constructor and prototype as plain data", () => {
    const text = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"x":{"__proto__":[]}}';
    const result = parse(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(Object.keys(result.value)).toEqual(["__proto__", "constructor", "x"]);
    expect(Object.getOwnPropertyDescriptor(result.value, "__proto__")?.value).toEqual({ polluted: 1 });
    expect(Array.isArray(Object.getOwnPropertyDescriptor(result.value.x, "__proto__")?.value)).toBe(true);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(plainThroughout(result.value)).toBe(true);
    expect(JSON.stringify(result.value)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it("reads a Uint8Array view that does not start at offset 0", () => {
    const backing = Buffer.from('xxxx{"a":1}yyyy');
    expect(parseStrictJson(new Uint8Array(backing.buffer, backing.byteOffset + 4, 7))).toEqual({ ok: true, value: { a: 1 } });
  });

  it("nests exactly to the depth limit, and takes a custom limit", () => {
    const nested = (levels: number) => `{"a":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    expect(parse(nested(32)).ok).toBe(true);
    expect(refusal(nested(33))).toMatch(/^JSON nested deeper than 32 levels at \$\.a(\[0\]){31}$/);
    expect(parseStrictJson(Buffer.from('{"a":{"b":{}}}'), { maxDepth: 3 }).ok).toBe(true);
    expect(parseStrictJson(Buffer.from('{"a":{"b":{}}}'), { maxDepth: 2 })).toEqual({
      ok: false,
      message: "JSON nested deeper than 2 levels at $.a.b",
    });
    expect(() => parseStrictJson(Buffer.from("{}"), { maxDepth: 0 })).toThrow(RangeError);
  });
});

describe("refused input", () => {
  it.each([
    ["empty", "", "request body is empty"],
    ["whitespace", " \n", "request body is empty"],
    ["array", "[1]", "request body must be a JSON object"],
    ["string", '"x"', "request body must be a JSON object"],
    ["number", "1", "request body must be a JSON object"],
    ["null", "null", "request body must be a JSON object"],
    ["two values", '{"a":1}{"b":2}', "invalid JSON: unexpected data after the top-level object at position 7"],
    ["trailing garbage", '{"a":1} x', "invalid JSON: unexpected data after the top-level object at position 8"],
    ["duplicate", '{"a":1,"a":2}', "duplicate member at $.a"],
    ["escaped duplicate", '{"a":1,"\\u0061":2}', "duplicate member at $.a"],
    ["nested duplicate", '{"subject":{"data":{"x":1,"y":[{"x":1,"x":1}]}}}', "duplicate member at $.subject.data.y[0].x"],
    ["odd-name duplicate", '{"a b":{"k":1,"k":2}}', 'duplicate member at $["a b"].k'],
    ["1e400", '{"n":1e400}', "number at $.n is out of range"],
    ["-1e400", '{"n":-1e400}', "number at $.n is out of range"],
    [
      "2^53+1",
      '{"n":9007199254740993}',
      "number at $.n cannot be represented exactly: integers must be between -9007199254740991 and 9007199254740991",
    ],
    [
      "2^53",
      '{"n":[9007199254740992]}',
      "number at $.n[0] cannot be represented exactly: integers must be between -9007199254740991 and 9007199254740991",
    ],
    [
      "1e300",
      '{"n":1e300}',
      "number at $.n cannot be represented exactly: integers must be between -9007199254740991 and 9007199254740991",
    ],
    ["underflow", '{"n":1e-400}', "number at $.n is too small (it would round to 0)"],
    ["lone high surrogate", '{"s":"\\ud800"}', "string at $.s contains a lone UTF-16 surrogate"],
    ["lone low surrogate", '{"s":"x\\udc00y"}', "string at $.s contains a lone UTF-16 surrogate"],
    ["reversed pair", '{"s":"\\udc00\\ud800"}', "string at $.s contains a lone UTF-16 surrogate"],
    ["high then text", '{"s":"\\ud800x"}', "string at $.s contains a lone UTF-16 surrogate"],
    ["surrogate in name", '{"a":{"\\ud800":1}}', "member name at $.a contains a lone UTF-16 surrogate"],
    ["raw newline", '{"s":"a\nb"}', "invalid JSON at $.s: raw control character in a string (must be escaped), found U+000A at position 7"],
    ["raw NUL", '{"s":"a\u0000b"}', "invalid JSON at $.s: raw control character in a string (must be escaped), found U+0000 at position 7"],
    ["trailing comma", '{"a":1,}', "invalid JSON at $: expected a member name in double quotes, found '}' at position 7"],
    ["leading zero", '{"a":01}', "invalid JSON at $.a: expected ',' or '}' after a member, found '1' at position 6"],
    ["bad literal", '{"a":tru}', "invalid JSON at $.a: expected a value, found 't' at position 5"],
    ["bare dot", '{"a":1.}', "invalid JSON at $.a: expected a digit after '.', found '}' at position 7"],
    ["NaN", '{"a":NaN}', "invalid JSON at $.a: expected a value, found 'N' at position 5"],
    ["single quotes", "{'a':1}", "invalid JSON at $: expected a member name in double quotes, found ''' at position 1"],
    ["bad escape", '{"a":"\\x"}', "invalid JSON at $.a: invalid escape in a string, found '\\' at position 6"],
    ["short \\u", '{"a":"\\u12"}', "invalid JSON at $.a: invalid \\u escape in a string, found '\\' at position 6"],
    ["unterminated", '{"a":"b', "invalid JSON at $.a: unterminated string, found end of input at position 7"],
    ["unclosed", '{"a":[1,2', "invalid JSON at $.a[1]: expected ',' or ']' after an element, found end of input at position 9"],
    ["comment", '{"a":1 /* c */}', "invalid JSON at $.a: expected ',' or '}' after a member, found '/' at position 7"],
  ])("%s", (_label, text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it("refuses a BOM and invalid UTF-8", () => {
    expect(refusal(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe("request body must not start with a UTF-8 byte order mark");
    expect(refusal(new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]))).toBe("request body is not valid UTF-8");
    // CESU-8 / WTF-8 encoded lone surrogate U+D800
    expect(refusal(new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]))).toBe("request body is not valid UTF-8");
    // overlong encoding of '/'
    expect(refusal(new Uint8Array([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]))).toBe("request body is not valid UTF-8");
  });

  it("refuses raw lone surrogates in a JS string input", () => {
    expect(parseStrictJsonText('{"s":"a\ud800"}')).toEqual({ ok: false, message: "string at $.s contains a lone UTF-16 surrogate" });
    expect(parseStrictJsonText('{"s":"\ud83d\ude00"}')).toEqual({ ok: true, value: { s: "😀" } });
  });

  it("refuses a very deep document quickly and without a stack overflow", () => {
    const deep = `{"a":${"[".repeat(1_000_000)}`;
    expect(refusal(deep)).toMatch(/^JSON nested deeper than 32 levels/);
  });

  it("finds duplicates in large objects", () => {
    const members = Array.from({ length: 1000 }, (_, i) => `"k${i}":${i}`);
    expect(parse(`{${members.join(",")}}`).ok).toBe(true);
    expect(refusal(`{${members.join(",")},"k999":0}`)).toBe("duplicate member at $.k999");
  });

  it("cuts long member paths in messages", () => {
    const name = "n".repeat(300);
    expect(refusal(`{"${name}":{"x":1,"x":2}}`).length).toBeLessThan(260);
  });

  it("is not confused by an earlier failure (module state is reset)", () => {
    expect(parse('{"a":{"b":{"c":[1,"\\ud800"]}}}').ok).toBe(false);
    expect(parse('{"a":{"b":{"c":[1,2]}}}')).toEqual({ ok: true, value: { a: { b: { c: [1, 2] } } } });
    expect(refusal('{"x":{"y":1,"y":2}}')).toBe("duplicate member at $.x.y");
  });
});

describe("properties against JSON.parse", () => {
  const wrap = (value: JsonValue) => JSON.stringify({ root: value });

  it("agrees with JSON.parse on every representable value, and refuses the others", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        const text = wrap(value as JsonValue);
        const result = parse(text);
        if (representable(value)) {
          expect(result.ok).toBe(true);
          if (!result.ok) return;
          // stringify comparison also checks member order and -0 → 0
          expect(JSON.stringify(result.value)).toBe(JSON.stringify(JSON.parse(text)));
          expect(result.value).toEqual(JSON.parse(text));
          expect(plainThroughout(result.value)).toBe(true);
        } else {
          expect(result.ok).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees with JSON.parse on generated JSON text (fc.json)", () => {
    fc.assert(
      fc.property(fc.json({ stringUnit: "grapheme" }), (json) => {
        const text = `{"root":${json}}`;
        const expected = JSON.parse(text) as unknown;
        const result = parse(text);
        expect(result.ok).toBe(representable(expected));
        if (result.ok) expect(JSON.stringify(result.value)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses any object with a repeated member name", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        fc.nat(),
        (names, pick, at) => {
          const repeated = names[pick % names.length] as string;
          const withRepeat = [...names];
          withRepeat.splice(at % (withRepeat.length + 1), 0, repeated);
          const text = `{"o":{${withRepeat.map((name, i) => `${JSON.stringify(name)}:${i}`).join(",")}}}`;
          const result = parse(text);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.message.startsWith("duplicate member at $.o")).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("never throws, and never accepts what JSON.parse rejects (random and mutated input)", () => {
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.integer({ min: 0, max: 0x7f }), fc.constantFrom("replace", "insert", "delete"))
      .map(([json, at, code, how]) => {
        const text = `{"r":${json}}`;
        const i = at % text.length;
        const c = String.fromCharCode(code);
        if (how === "replace") return Buffer.from(text.slice(0, i) + c + text.slice(i + 1));
        if (how === "insert") return Buffer.from(text.slice(0, i) + c + text.slice(i));
        return Buffer.from(text.slice(0, i) + text.slice(i + 1));
      });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), mutated), (bytes) => {
        const result = parseStrictJson(bytes);
        if (result.ok) {
          const reference = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
          expect(JSON.stringify(result.value)).toBe(JSON.stringify(reference));
        } else {
          expect(typeof result.message).toBe("string");
          expect(result.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
