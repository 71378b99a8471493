/**
 * Random JSON documents for the strict-JSON property tests, built so that the test knows more about
 * each document than its text: the decoded member names, every value's member path, the depth, and
 * the places where a defect can be inserted. Strings are kept as encoded pieces (one per
 * character: raw, short escape or \u escape), whitespace is chosen per token, and numbers come in
 * several spellings, so the same value reaches the parser in many forms. `JSON.parse` of the
 * rendered text is the oracle; nothing here uses the code under test.
 */
import fc from "fast-check";

/** A string literal as the pieces between its quotes, and what they decode to. */
export interface JsonString {
  value: string;
  pieces: string[];
}

export type JsonNode =
  | { kind: "literal"; text: string } // number, true, false, null
  | { kind: "string"; string: JsonString }
  | { kind: "array"; items: JsonNode[] }
  | { kind: "object"; members: JsonMember[] };

export interface JsonMember {
  name: JsonString;
  value: JsonNode;
}

/** One step of a member path: a member name or an array index. */
export type PathStep = string | number;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** `\uXXXX` for one UTF-16 code unit, hex digits in either case. */
export function unicodeEscape(unit: number, upper: boolean): string {
  const hex = unit.toString(16).padStart(4, "0");
  return `\\u${upper ? hex.toUpperCase() : hex}`;
}

/**
 * One character (a whole code point) as a piece of a string literal. `how`: 0 raw where JSON
 * allows it, 1 and 2 a \u escape (lower or upper hex; a pair of escapes beyond the BMP), 3 the
 * short escape where there is one. Characters JSON requires escaped are never raw.
 */
function encodeChar(char: string, how: number): string {
  const code = char.codePointAt(0) as number;
  const mustEscape = code < 0x20 || char === '"' || char === "\\";
  const short = SHORT_ESCAPES[char];
  if (how === 3 && short !== undefined) return short;
  if (how === 0 && !mustEscape) return char;
  if (how === 0 && short !== undefined) return short;
  const upper = how === 2;
  if (char.length === 1) return unicodeEscape(code, upper);
  return unicodeEscape(char.charCodeAt(0), upper) + unicodeEscape(char.charCodeAt(1), upper);
}

/** Choices for `spell`: how to write each character, taken in turn. */
export const spellings = fc.array(fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, fc.nat(3)), { minLength: 1, maxLength: 8 });

/** `value` as the pieces of a string literal, character i written the way `hows[i]` says. */
export function spell(value: string, hows: number[]): JsonString {
  return { value, pieces: [...value].map((char, i) => encodeChar(char, hows[i % hows.length] as number)) };
}

/** Characters that JSON treats specially, plus non-ASCII of every UTF-8 length. */
const interestingChar = fc.constantFrom(
  ...['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\u0000", "\u001f", "\u007f", "a", "0", " "],
  ...["é", "\u2028", "€", "😀", "𝄞"],
);
const bmpChar = fc
  .integer({ min: 0, max: 0xffff })
  .filter((unit) => unit < 0xd800 || unit > 0xdfff)
  .map((unit) => String.fromCharCode(unit));
const anyChar = fc.oneof(interestingChar, bmpChar, fc.string({ unit: "binary", minLength: 1, maxLength: 1 }));

export function jsonString(maxLength = 8): fc.Arbitrary<JsonString> {
  return fc.tuple(fc.array(anyChar, { maxLength }), spellings).map(([chars, hows]) => spell(chars.join(""), hows));
}

/** A given value spelled with random escapes. */
function jsonStringOf(value: string): fc.Arbitrary<JsonString> {
  return spellings.map((hows) => spell(value, hows));
}

/** Member names: random strings, and names that are special to JavaScript objects. */
const memberName = fc.oneof(
  { arbitrary: jsonString(6), weight: 4 },
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "", "a", "0", "10").chain((value) => jsonStringOf(value)),
);

/** Safe integers, spelled plainly, with a fraction of zeros, or with an exponent. */
const safeInteger = fc
  .tuple(fc.oneof(fc.integer({ min: -MAX_SAFE, max: MAX_SAFE }), fc.integer({ min: -1000, max: 1000 })), fc.nat(4))
  .map(([n, form]) => {
    if (form === 1) return `${n}.0`;
    if (form === 2) return `${n}e0`;
    if (form === 3 && n !== 0) return `${n}0E-1`;
    if (form === 4 && n % 100 === 0 && n !== 0) return `${n / 100}e+2`;
    return String(n);
  });

/** Doubles JSON.parse keeps exactly (integer values among them are safe), in several spellings. */
const double = fc
  .tuple(
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d) || Number.isSafeInteger(d)),
    fc.nat(3),
  )
  .map(([d, form]) => {
    if (Object.is(d, -0)) return ["-0", "-0.0", "-0e5", "-0.000E-2"][form] as string;
    if (form === 1) return d.toExponential();
    if (form === 2) return d.toPrecision(17).replace("e", "E");
    return String(d);
  });

const literal = fc.oneof(
  safeInteger,
  double,
  fc.constantFrom("true", "false", "null", "0", "-0", "0.1", "5e-324", "9007199254740991", "-9007199254740991", "4503599627370495.5"),
);

const scalar: fc.Arbitrary<JsonNode> = fc.oneof(
  literal.map((text): JsonNode => ({ kind: "literal", text })),
  jsonString().map((string): JsonNode => ({ kind: "string", string })),
);

function membersOf(value: fc.Arbitrary<JsonNode>, maxLength: number): fc.Arbitrary<JsonMember[]> {
  return fc.uniqueArray(fc.record({ name: memberName, value }), { selector: (member) => member.name.value, maxLength });
}

/** Any value, nested a few levels (the depth of a document is made larger by `nestedDocument`). */
export const jsonValue: fc.Arbitrary<JsonNode> = fc.letrec<{ value: JsonNode; array: JsonNode; object: JsonNode }>((tie) => ({
  value: fc.oneof({ depthSize: "small", maxDepth: 6 }, scalar, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 5 }).map((items): JsonNode => ({ kind: "array", items })),
  object: membersOf(tie("value"), 5).map((members): JsonNode => ({ kind: "object", members })),
})).value;

export const jsonObject: fc.Arbitrary<JsonNode & { kind: "object" }> = membersOf(jsonValue, 6).map((members) => ({
  kind: "object",
  members,
}));

/** Containers nested in each other in `node`, a scalar counting 0. */
export function depthOf(node: JsonNode): number {
  if (node.kind === "array") return 1 + Math.max(0, ...node.items.map(depthOf));
  if (node.kind === "object") return 1 + Math.max(0, ...node.members.map((member) => depthOf(member.value)));
  return 0;
}

/** A chain of single-child containers (arrays, or objects with one member) around `inner`. */
export function chain(levels: number, kinds: boolean[], inner: JsonNode): JsonNode {
  let node = inner;
  for (let level = levels - 1; level >= 0; level--) {
    const inArray = kinds[level % kinds.length] === true;
    node = inArray ? { kind: "array", items: [node] } : { kind: "object", members: [{ name: { value: "k", pieces: ["k"] }, value: node }] };
  }
  return node;
}

/** The steps into a chain made by `chain(levels, kinds, …)`, down to the container at `levels`. */
export function chainSteps(levels: number, kinds: boolean[]): PathStep[] {
  return Array.from({ length: levels }, (_, level) => (kinds[level % kinds.length] === true ? 0 : "k"));
}

/**
 * A random object of at most `maxDepth` levels; often one of its containers gets a chain of nested
 * containers, so that depths up to the limit are reached.
 */
export function nestedDocument(maxDepth: number): fc.Arbitrary<JsonNode & { kind: "object" }> {
  return fc
    .tuple(jsonObject, fc.nat(), fc.nat(), fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), fc.boolean())
    .filter(([root]) => depthOf(root) <= maxDepth)
    .map(([root, where, at, kinds, deepen]) => {
      if (!deepen) return root;
      const document = copyOf(root);
      const containers = containersOf(document);
      const { node, depth } = containers[where % containers.length] as (typeof containers)[number];
      const levels = at % (maxDepth - depth + 1);
      if (levels > 0) insertChild(node, at, chain(levels, kinds, { kind: "literal", text: "1" }), "deep");
      return document;
    });
}

/** Whitespace between tokens: a cyclic list of runs of space, tab, LF, CR (often empty). */
export const whitespace = fc.array(
  fc.oneof(
    { arbitrary: fc.constant(""), weight: 3 },
    fc.array(fc.constantFrom(" ", "\t", "\n", "\r"), { minLength: 1, maxLength: 3 }).map((run) => run.join("")),
  ),
  { minLength: 1, maxLength: 12 },
);

/** The text of `node`, with the whitespace runs of `ws` taken in turn between tokens. */
export function render(node: JsonNode, ws: string[] = [""]): string {
  let turn = 0;
  const gap = () => ws[turn++ % ws.length] as string;
  const text = (n: JsonNode): string => {
    switch (n.kind) {
      case "literal":
        return n.text;
      case "string":
        return quoted(n.string);
      case "array":
        return `[${gap()}${n.items.map((item) => text(item)).join(`${gap()},${gap()}`)}${gap()}]`;
      case "object":
        return `{${gap()}${n.members.map((m) => `${quoted(m.name)}${gap()}:${gap()}${text(m.value)}`).join(`${gap()},${gap()}`)}${gap()}}`;
    }
  };
  return text(node);
}

export function quoted(string: JsonString): string {
  return `"${string.pieces.join("")}"`;
}

/** Every container of `root` with its path and depth (the root: path [], depth 1). */
export function containersOf(root: JsonNode): { node: JsonNode & { kind: "array" | "object" }; path: PathStep[]; depth: number }[] {
  const found: { node: JsonNode & { kind: "array" | "object" }; path: PathStep[]; depth: number }[] = [];
  const visit = (node: JsonNode, path: PathStep[], depth: number): void => {
    if (node.kind === "array") {
      found.push({ node, path, depth });
      node.items.forEach((item, i) => visit(item, [...path, i], depth + 1));
    } else if (node.kind === "object") {
      found.push({ node, path, depth });
      node.members.forEach((member) => visit(member.value, [...path, member.name.value], depth + 1));
    }
  };
  visit(root, [], 1);
  return found;
}

/** Every string value and member name of `root`, with the path its refusal names. */
export function stringsOf(root: JsonNode): { string: JsonString; isName: boolean; path: PathStep[] }[] {
  const found: { string: JsonString; isName: boolean; path: PathStep[] }[] = [];
  const visit = (node: JsonNode, path: PathStep[]): void => {
    if (node.kind === "string") found.push({ string: node.string, isName: false, path });
    if (node.kind === "array") node.items.forEach((item, i) => visit(item, [...path, i]));
    if (node.kind === "object") {
      for (const member of node.members) {
        // A member name's refusal names the object that holds it.
        found.push({ string: member.name, isName: true, path });
        visit(member.value, [...path, member.name.value]);
      }
    }
  };
  visit(root, []);
  return found;
}

/**
 * Puts `child` into `container` at slot `at` (an array element, or a member whose name the object
 * does not have yet) and returns the child's path step.
 */
export function insertChild(container: JsonNode & { kind: "array" | "object" }, at: number, child: JsonNode, name = "x"): PathStep {
  if (container.kind === "array") {
    const index = at % (container.items.length + 1);
    container.items.splice(index, 0, child);
    return index;
  }
  let unique = name;
  while (container.members.some((member) => member.name.value === unique)) unique += "_";
  container.members.splice(at % (container.members.length + 1), 0, { name: { value: unique, pieces: [...unique] }, value: child });
  return unique;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The member path as refusal messages write it: `$.a["b c"][2]`, cut after 200 characters. */
export function pathText(steps: PathStep[]): string {
  const path = steps.reduce<string>((text, step) => {
    if (typeof step === "number") return `${text}[${step}]`;
    return IDENTIFIER.test(step) ? `${text}.${step}` : `${text}[${JSON.stringify(step)}]`;
  }, "$");
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/** A deep copy, so a test can insert into a document that fast-check may show again when shrinking. */
export function copyOf<T extends JsonNode>(node: T): T {
  return structuredClone(node);
}
