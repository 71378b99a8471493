/**
 * Strict JSON against an oracle that is not our scanner: random documents (test/http/support/
 * json-documents.ts) must parse exactly as `JSON.parse` reads them, and each refusal rule is
 * checked by inserting its defect into a random valid document at a random place and expecting
 * the refusal, with a message that names the place (the member path, computed here from the
 * document's structure) or the rule.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { parseStrictJson, parseStrictJsonText, type StrictJsonResult } from "../../gateway/http/strict-json/index.js";
import {
  chain,
  chainSteps,
  containersOf,
  copyOf,
  insertChild,
  jsonObject,
  jsonValue,
  type JsonNode,
  nestedDocument,
  pathText,
  type PathStep,
  render,
  spell,
  spellings,
  stringsOf,
  unicodeEscape,
  whitespace,
} from "./support/json-documents.js";

const MAX_DEPTH = 32;
const RUNS = { numRuns: 300 };

const bytesOf = (text: string) => Buffer.from(text, "utf8");

/** What JSON.parse gives, with -0 read as 0 (the one documented difference). */
function oracle(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (value === 0 ? 0 : value));
}

function messageOf(result: StrictJsonResult): string {
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.value).slice(0, 200)}`);
  return result.message;
}

/** A random document and a random place in it: a container and a slot in that container. */
const documentAndPlace = fc.tuple(jsonObject, whitespace, fc.nat(), fc.nat());

function placeIn(document: JsonNode, where: number) {
  const containers = containersOf(document);
  return containers[where % containers.length] as (typeof containers)[number];
}

/** Inserts `child` at a random place of a copy of `root`; returns the text and the child's path. */
function withChild(root: JsonNode, ws: string[], where: number, at: number, child: JsonNode): { text: string; path: PathStep[] } {
  const document = copyOf(root);
  const place = placeIn(document, where);
  const step = insertChild(place.node, at, child);
  return { text: render(document, ws), path: [...place.path, step] };
}

describe("accepted: every valid document reads as JSON.parse reads it", () => {
  test.prop([nestedDocument(MAX_DEPTH), whitespace, whitespace], RUNS)(
    "objects with random nesting, numbers, escapes and whitespace",
    (document, ws, around) => {
      const text = `${around[0] as string}${render(document, ws)}${around[1 % around.length] as string}`;
      const expected = oracle(text);
      for (const result of [parseStrictJson(bytesOf(text)), parseStrictJsonText(text)]) {
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.value).toEqual(expected);
        // Member order too (toEqual ignores it).
        expect(JSON.stringify(result.value)).toBe(JSON.stringify(expected));
      }
    },
  );
});

describe("refused: a defect inserted into a valid document", () => {
  test.prop([documentAndPlace, fc.nat(), spellings], RUNS)(
    "a repeated member name, also spelled with other escapes, names the member",
    ([root, ws, where, at], pick, hows) => {
      const document = copyOf(root);
      const objects = containersOf(document).filter((c) => c.node.kind === "object" && c.node.members.length > 0);
      fc.pre(objects.length > 0);
      const place = objects[where % objects.length] as (typeof objects)[number];
      const members = place.node.kind === "object" ? place.node.members : [];
      const name = (members[pick % members.length] as (typeof members)[number]).name.value;
      members.splice(at % (members.length + 1), 0, { name: spell(name, hows), value: { kind: "literal", text: "1" } });
      const text = render(document, ws);
      expect(messageOf(parseStrictJson(bytesOf(text)))).toBe(`duplicate member at ${pathText([...place.path, name])}`);
    },
  );

  const unsafeInteger = fc.oneof(
    fc.bigInt({ min: 2n ** 53n, max: 10n ** 300n }).map(String),
    fc.bigInt({ min: 2n ** 53n, max: 2n ** 64n }).map(String),
    fc.integer({ min: 16, max: 300 }).map((exponent) => `1e${exponent}`),
    fc.constantFrom("9007199254740992", "9007199254740993", "1.5e20", "12345678901234567890.0", "9007199254740992E0"),
  );
  test.prop([documentAndPlace, unsafeInteger, fc.boolean()], RUNS)(
    "an integer beyond ±(2^53 − 1) names the number",
    ([root, ws, where, at], digits, negative) => {
      const { text, path } = withChild(root, ws, where, at, { kind: "literal", text: `${negative ? "-" : ""}${digits}` });
      expect(messageOf(parseStrictJson(bytesOf(text)))).toBe(
        `number at ${pathText(path)} cannot be represented exactly: integers must be between -9007199254740991 and 9007199254740991`,
      );
    },
  );

  const outOfRange = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 309, max: 100_000 })).map(([d, e]) => `${d}e${e}`),
    fc.integer({ min: 310, max: 1000 }).map((digits) => "9".repeat(digits)),
    fc.constantFrom("1.8e308", "2E+308", "1e309"),
  );
  test.prop([documentAndPlace, outOfRange, fc.boolean()], RUNS)(
    "a number beyond the double range names the number",
    ([root, ws, where, at], digits, negative) => {
      const { text, path } = withChild(root, ws, where, at, { kind: "literal", text: `${negative ? "-" : ""}${digits}` });
      expect(messageOf(parseStrictJson(bytesOf(text)))).toBe(`number at ${pathText(path)} is out of range`);
    },
  );

  const underflowing = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 325, max: 100_000 })).map(([d, e]) => `${d}e-${e}`),
    fc.integer({ min: 330, max: 1000 }).map((zeros) => `0.${"0".repeat(zeros)}1`),
    fc.constantFrom("2e-324", "0.2e-323", "1E-400"),
  );
  test.prop([documentAndPlace, underflowing, fc.boolean()], RUNS)(
    "a non-zero number that rounds to 0 names the number",
    ([root, ws, where, at], digits, negative) => {
      const { text, path } = withChild(root, ws, where, at, { kind: "literal", text: `${negative ? "-" : ""}${digits}` });
      expect(messageOf(parseStrictJson(bytesOf(text)))).toBe(`number at ${pathText(path)} is too small (it would round to 0)`);
    },
  );

  /** A lone surrogate, raw or escaped; a high one is followed by 'x' so that it cannot pair up. */
  const loneSurrogate = fc.tuple(fc.integer({ min: 0xd800, max: 0xdfff }), fc.boolean(), fc.boolean()).map(([unit, escaped, upper]) => {
    const piece = escaped ? unicodeEscape(unit, upper) : String.fromCharCode(unit);
    return unit <= 0xdbff ? `${piece}x` : piece;
  });
  test.prop([jsonObject, whitespace, fc.nat(), fc.nat(), loneSurrogate], RUNS)(
    "a lone surrogate in a string or member name names it (escaped, or raw in a JS string)",
    (root, ws, which, at, surrogate) => {
      const document = copyOf(root);
      const strings = stringsOf(document);
      fc.pre(strings.length > 0);
      const target = strings[which % strings.length] as (typeof strings)[number];
      target.string.pieces.splice(at % (target.string.pieces.length + 1), 0, surrogate);
      const text = render(document, ws);
      const expected = `${target.isName ? "member name" : "string"} at ${pathText(target.path)} contains a lone UTF-16 surrogate`;
      expect(messageOf(parseStrictJsonText(text))).toBe(expected);
      // As bytes, a raw lone surrogate cannot be UTF-8 at all (Buffer would write U+FFFD: use WTF-8).
      if (surrogate.startsWith("\\")) expect(messageOf(parseStrictJson(bytesOf(text)))).toBe(expected);
      else expect(messageOf(parseStrictJson(wtf8(text)))).toBe("request body is not valid UTF-8");
    },
  );

  const chainKinds = fc.array(fc.boolean(), { minLength: 1, maxLength: 4 });
  test.prop([nestedDocument(MAX_DEPTH), whitespace, fc.nat(), fc.nat(), chainKinds, fc.nat(8)], RUNS)(
    "nesting beyond the limit names the first container too deep",
    (root, ws, where, at, kinds, beyond) => {
      const document = copyOf(root);
      const place = placeIn(document, where);
      // The chain's first container is at place.depth + 1; the one at MAX_DEPTH + 1 is refused.
      const levels = MAX_DEPTH - place.depth + 1 + beyond;
      const step = insertChild(place.node, at, chain(levels, kinds, { kind: "array", items: [] }));
      const tooDeep = [...place.path, step, ...chainSteps(MAX_DEPTH - place.depth, kinds)];
      const text = render(document, ws);
      expect(messageOf(parseStrictJson(bytesOf(text)))).toBe(`JSON nested deeper than ${MAX_DEPTH} levels at ${pathText(tooDeep)}`);
    },
  );

  const trailing = fc.oneof(
    jsonValue.map((value) => render(value)),
    fc.constantFrom("x", ",", "}", "]", ":", '"', "é", "\u0000", "//", "{}"),
  );
  test.prop([jsonObject, whitespace, whitespace, trailing], RUNS)(
    "a value or bytes after the object name the position",
    (root, ws, gap, extra) => {
      const head = `${render(root, ws)}${gap[0] as string}`;
      const expected = `invalid JSON: unexpected data after the top-level object at position ${head.length}`;
      expect(messageOf(parseStrictJson(bytesOf(head + extra)))).toBe(expected);
    },
  );

  const notAnObject = jsonValue.filter((value) => value.kind !== "object");
  test.prop([notAnObject, whitespace], RUNS)("a top level that is not an object is refused", (value, ws) => {
    const text = `${ws[0] as string}${render(value, ws)}${ws[1 % ws.length] as string}`;
    expect(messageOf(parseStrictJson(bytesOf(text)))).toBe("request body must be a JSON object");
  });

  test.prop([whitespace], RUNS)("an empty or all-whitespace body is refused", (ws) => {
    expect(messageOf(parseStrictJson(bytesOf(ws.join(""))))).toBe("request body is empty");
  });

  test.prop([jsonObject, whitespace], RUNS)("a byte order mark before a valid object is refused", (root, ws) => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytesOf(render(root, ws))]);
    expect(messageOf(parseStrictJson(bytes))).toBe("request body must not start with a UTF-8 byte order mark");
  });

  const invalidUtf8 = fc.constantFrom(
    [0x80], // continuation byte with no lead
    [0xbf],
    [0xc3], // lead byte with no continuation
    [0xe2, 0x82], // truncated three-byte sequence
    [0xf0, 0x9f, 0x98], // truncated four-byte sequence
    [0xc0, 0xaf], // overlong '/'
    [0xe0, 0x80, 0xaf], // overlong '/'
    [0xed, 0xa0, 0x80], // U+D800 encoded (CESU-8)
    [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
    [0xf5],
    [0xff],
  );
  test.prop([jsonObject, whitespace, fc.nat(), invalidUtf8], RUNS)("invalid UTF-8 anywhere in a valid object is refused", (root, ws, at, bad) => {
    const text = render(root, ws);
    // Cut between whole characters (not inside a surrogate pair), so the rest stays valid UTF-8.
    let cut = at % (text.length + 1);
    if (cut > 0 && cut < text.length && /[\ud800-\udbff]/.test(text.charAt(cut - 1))) cut++;
    const bytes = Buffer.concat([bytesOf(text.slice(0, cut)), Buffer.from(bad), bytesOf(text.slice(cut))]);
    expect(messageOf(parseStrictJson(bytes))).toBe("request body is not valid UTF-8");
  });
});

/** UTF-8, except that a lone surrogate is written as its three-byte form (as WTF-8 does). */
function wtf8(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      parts.push(Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]));
    } else {
      parts.push(Buffer.from(char, "utf8"));
    }
  }
  return Buffer.concat(parts);
}
