/**
 * Plain words for a typia type expression, the `expected` text of a validation error
 * (`(string & MinLength<1> & MaxLength<128> & Pattern<"…">)` → `a string of 1–128 characters with
 * no control characters`). The rules live as typia tags on the types (packages/client/src/wire/shared.ts); this
 * file turns each tag into words once, so every field, including one added later, gets its rule
 * stated in plain words and no client ever sees a type expression.
 *
 * A type expression is a union (`|`) of intersections (`&`) of terms: a base type (`string`), a
 * literal (`"free"`, `0`), a tag (`MinLength<1>`) or a named type (`Subject`, `Array<X>`). Named
 * object types have no tags to read, so they are described once in NAMED_TYPE_WORDS below; a test
 * (test/http-api/validation-messages.test.ts) checks that every name the generated validators can
 * report is described there.
 */
import { AUTHORITY_SCOPES } from "@market-service/client/wire";

type Literal = string | number | boolean;

export type TypeTerm =
  | { kind: "literal"; value: Literal }
  | { kind: "tag"; name: string; arg: Literal | undefined }
  | { kind: "named"; name: string; args: TypeExpression[] };

/** A union of intersections. */
export type TypeExpression = TypeTerm[][];

/** Tag names typia prints inside an intersection; every other `Name<…>` is a named (generic) type. */
const TAG_NAMES = new Set([
  "MinLength",
  "MaxLength",
  "Pattern",
  "Format",
  "Minimum",
  "Maximum",
  "ExclusiveMinimum",
  "ExclusiveMaximum",
  "MultipleOf",
  "Type",
  "MinItems",
  "MaxItems",
  "UniqueItems",
]);

class Parser {
  private at = 0;
  constructor(private readonly text: string) {}

  parseAll(): TypeExpression | undefined {
    const expression = this.union();
    this.space();
    return expression !== undefined && this.at === this.text.length ? expression : undefined;
  }

  private space(): void {
    while (this.text[this.at] === " ") this.at += 1;
  }

  private eat(char: string): boolean {
    this.space();
    if (this.text[this.at] !== char) return false;
    this.at += 1;
    return true;
  }

  private union(): TypeExpression | undefined {
    const alternatives: TypeTerm[][] = [];
    do {
      const intersection = this.intersection();
      if (intersection === undefined) return undefined;
      // `(A | B)` inside a union flattens into it.
      alternatives.push(...intersection);
    } while (this.eat("|"));
    return alternatives;
  }

  /** One intersection, or several when it is a parenthesized union standing alone. */
  private intersection(): TypeTerm[][] | undefined {
    const parts: TypeExpression[] = [];
    do {
      const part = this.term();
      if (part === undefined) return undefined;
      parts.push(part);
    } while (this.eat("&"));
    if (parts.length === 1) return parts[0];
    // An intersection of parenthesized single alternatives: concatenate their terms.
    const terms: TypeTerm[] = [];
    for (const part of parts) {
      if (part.length !== 1) return undefined;
      terms.push(...(part[0] as TypeTerm[]));
    }
    return [terms];
  }

  private term(): TypeExpression | undefined {
    this.space();
    if (this.eat("(")) {
      const inner = this.union();
      return inner !== undefined && this.eat(")") ? inner : undefined;
    }
    const literal = this.literal();
    if (literal !== undefined) return [[{ kind: "literal", value: literal }]];
    const name = /^[A-Za-z_$][\w$.]*/.exec(this.text.slice(this.at))?.[0];
    if (name === undefined) return undefined;
    this.at += name.length;
    if (!this.eat("<")) {
      if (name === "true" || name === "false") return [[{ kind: "literal", value: name === "true" }]];
      return [[{ kind: "named", name, args: [] }]];
    }
    if (TAG_NAMES.has(name)) {
      if (this.eat(">")) return [[{ kind: "tag", name, arg: undefined }]];
      const arg = this.literal();
      if (arg === undefined || !this.eat(">")) return undefined;
      return [[{ kind: "tag", name, arg }]];
    }
    const args: TypeExpression[] = [];
    if (!this.eat(">")) {
      do {
        const arg = this.union();
        if (arg === undefined) return undefined;
        args.push(arg);
      } while (this.eat(","));
      if (!this.eat(">")) return undefined;
    }
    return [[{ kind: "named", name, args }]];
  }

  private literal(): Literal | undefined {
    this.space();
    const rest = this.text.slice(this.at);
    if (rest.startsWith('"')) {
      // A JSON string literal: scan to the closing quote, skipping escapes.
      let end = 1;
      while (end < rest.length && rest[end] !== '"') end += rest[end] === "\\" ? 2 : 1;
      try {
        const value: unknown = JSON.parse(rest.slice(0, end + 1));
        if (typeof value !== "string") return undefined;
        this.at += end + 1;
        return value;
      } catch {
        return undefined;
      }
    }
    const number = /^-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?/i.exec(rest)?.[0];
    if (number !== undefined) {
      this.at += number.length;
      return Number(number);
    }
    for (const word of ["true", "false"] as const) {
      if (rest.startsWith(word) && !/^[\w$]/.test(rest.slice(word.length))) {
        this.at += word.length;
        return word === "true";
      }
    }
    return undefined;
  }
}

/** The parsed expression, or undefined when typia printed something this grammar does not know. */
export function parseTypeExpression(text: string): TypeExpression | undefined {
  return new Parser(text).parseAll();
}

/** Integer ranges of typia's `Type<…>` tag. */
const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-2_147_483_648, 2_147_483_647],
  uint32: [0, 4_294_967_295],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

/**
 * Regular expressions of `Pattern<…>` tags, as a phrase that follows "a string of …". A pattern not
 * listed here is quoted as it is (the test over every generated validator keeps this list complete).
 */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  "^[^\\u0000-\\u001F\\u007F]+$": "with no control characters",
  "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$": 'with no control characters, and not "." or ".."',
  "^[A-Z]{3}$": "three capital letters, a currency code such as EUR",
  "^[A-Za-z0-9_-]{43}$": "of the unpadded base64url alphabet A–Z, a–z, 0–9, _ and -",
  "^sha256:[0-9a-f]{64}$": "of the form sha256: followed by 64 lowercase hex digits",
};

/** `Format<…>` tags, as the whole noun phrase (they replace "a string"). */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  "date-time": "an RFC 3339 date-time such as 2030-01-01T12:00:00Z",
  date: "an RFC 3339 date such as 2030-01-01",
  uri: "an absolute URI",
  email: "an email address",
  uuid: "a UUID",
};

/**
 * Named types typia reports by name (object types and aliases used as array items). These are the
 * only hand-written words, one per type: every field of such a type shares them.
 */
export const NAMED_TYPE_WORDS: Readonly<Record<string, string>> = {
  Subject: "an object {schema, data}",
  UncheckedMechanismSelection: "an object {presetId, config}",
  FreePricing: '{mode: "free"}',
  PostedPricing: '{mode: "posted", amountMinor, currency}',
  DirectClaimConfigInputWithoutHold: '{capacity, pricing, confirmation: "none"}',
  DirectClaimConfigWithHold: '{capacity, pricing, confirmation: "creator", "participant" or "both", holdDurationSeconds}',
  SealedAuctionConfig: "an object {currency, closesAt, holdDurationSeconds, reserveAmountMinor (optional)}",
  AuthorityScope: `one of ${AUTHORITY_SCOPES.join(", ")}`,
  Record: "a JSON object",
};

/** Request bodies and MCP tool inputs: only ever reported for a top level that is not an object. */
const BODY_TYPE_NAME = /(Body|Input)$/;

function quote(value: Literal): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** `a`, `a or b`, `a, b or c`. */
export function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1] as string}`;
}

function tagArg(terms: readonly TypeTerm[], name: string): Literal | undefined {
  for (const term of terms) if (term.kind === "tag" && term.name === name) return term.arg;
  return undefined;
}

function hasTag(terms: readonly TypeTerm[], name: string): boolean {
  return terms.some((term) => term.kind === "tag" && term.name === name);
}

function numberArg(terms: readonly TypeTerm[], name: string): number | undefined {
  const arg = tagArg(terms, name);
  return typeof arg === "number" ? arg : undefined;
}

/** `1–128`, `exactly 43`, `at least 2`, `at most 7`, or undefined without bounds. */
function countWords(min: number | undefined, max: number | undefined, unit: string): string | undefined {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min} ${unit}` : `${min}–${max} ${unit}`;
  if (min !== undefined) return `at least ${min} ${unit}`;
  if (max !== undefined) return `at most ${max} ${unit}`;
  return undefined;
}

function stringWords(terms: readonly TypeTerm[]): string {
  const format = tagArg(terms, "Format");
  if (typeof format === "string") return FORMAT_WORDS[format] ?? `a string in ${format} format`;
  const parts = ["a string"];
  const length = countWords(numberArg(terms, "MinLength"), numberArg(terms, "MaxLength"), "characters");
  if (length !== undefined) parts.push(`of ${length}`);
  const pattern = tagArg(terms, "Pattern");
  if (typeof pattern === "string") {
    const words = PATTERN_WORDS[pattern] ?? `matching the regular expression ${pattern}`;
    parts.push(length === undefined && words.startsWith("three") ? `of ${words}` : words);
  }
  return parts.join(" ");
}

function numberWords(terms: readonly TypeTerm[]): string {
  const type = tagArg(terms, "Type");
  const range = typeof type === "string" ? INTEGER_RANGES[type] : undefined;
  let min = range?.[0];
  let max = range?.[1];
  const minimum = numberArg(terms, "Minimum");
  const maximum = numberArg(terms, "Maximum");
  if (minimum !== undefined) min = min === undefined ? minimum : Math.max(min, minimum);
  if (maximum !== undefined) max = max === undefined ? maximum : Math.min(max, maximum);
  const exclusiveMin = numberArg(terms, "ExclusiveMinimum");
  const exclusiveMax = numberArg(terms, "ExclusiveMaximum");
  const noun = range !== undefined ? "an integer" : "a number";
  const bounds: string[] = [];
  if (min !== undefined && max !== undefined) bounds.push(`from ${min} to ${max}`);
  else if (min !== undefined) bounds.push(`of at least ${min}`);
  else if (max !== undefined) bounds.push(`of at most ${max}`);
  if (exclusiveMin !== undefined) bounds.push(`greater than ${exclusiveMin}`);
  if (exclusiveMax !== undefined) bounds.push(`less than ${exclusiveMax}`);
  const multipleOf = numberArg(terms, "MultipleOf");
  if (multipleOf !== undefined) bounds.push(`a multiple of ${multipleOf}`);
  return [noun, ...bounds].join(" ");
}

function arrayWords(item: TypeExpression | undefined, terms: readonly TypeTerm[]): string {
  const distinct = hasTag(terms, "UniqueItems") ? "distinct " : "";
  const count = countWords(numberArg(terms, "MinItems"), numberArg(terms, "MaxItems"), `${distinct}items`);
  const head = count === undefined ? (distinct === "" ? "an array" : "an array of distinct items") : `an array of ${count}`;
  return item === undefined || item.length === 0 ? head : `${head}, each ${expressionWords(item)}`;
}

function namedWords(term: Extract<TypeTerm, { kind: "named" }>, terms: readonly TypeTerm[]): string {
  if (term.name === "Array") return arrayWords(term.args[0], terms);
  const known = NAMED_TYPE_WORDS[term.name];
  if (known !== undefined) return known;
  return BODY_TYPE_NAME.test(term.name) ? "a JSON object" : "an object";
}

/** Words for one intersection: its base type (or named type) qualified by its tags. */
function intersectionWords(terms: readonly TypeTerm[]): string {
  const named = terms.find((term): term is Extract<TypeTerm, { kind: "named" }> => term.kind === "named");
  if (named !== undefined) {
    switch (named.name) {
      case "string":
        return stringWords(terms);
      case "number":
        return numberWords(terms);
      case "bigint":
        return "an integer";
      case "boolean":
        return "true or false";
      case "null":
        return "null";
      case "undefined":
        return "absent";
      case "unknown":
      case "any":
        return "any JSON value";
      default:
        return namedWords(named, terms);
    }
  }
  const literal = terms.find((term) => term.kind === "literal");
  if (literal !== undefined && literal.kind === "literal") return quote(literal.value);
  // Only tags (typia prints `Array<> & MinItems<1>` as a named term, so this is rare): describe them.
  if (hasTag(terms, "MinItems") || hasTag(terms, "MaxItems") || hasTag(terms, "UniqueItems")) return arrayWords(undefined, terms);
  if (hasTag(terms, "MinLength") || hasTag(terms, "MaxLength") || hasTag(terms, "Pattern") || hasTag(terms, "Format")) return stringWords(terms);
  return numberWords(terms);
}

/** Plain words for a whole expression. An `undefined` alternative becomes "or omitted". */
export function expressionWords(expression: TypeExpression): string {
  const present = expression.filter((alternative) => !(alternative.length === 1 && alternative[0]?.kind === "named" && alternative[0].name === "undefined"));
  const optional = present.length < expression.length;
  const literals = present.every((alternative) => alternative.length === 1 && alternative[0]?.kind === "literal");
  let words: string;
  if (present.length === 0) words = "absent";
  else if (literals && present.length > 1) {
    words = `one of ${orList(present.map((alternative) => quote((alternative[0] as Extract<TypeTerm, { kind: "literal" }>).value)))}`;
  } else if (present.length === 1) words = intersectionWords(present[0] as TypeTerm[]);
  else words = `either ${orList(present.map((alternative) => intersectionWords(alternative)))}`;
  return optional && present.length > 0 ? `${words}, or omitted` : words;
}

/**
 * The one tag a report names when a value had the right type but broke that tag
 * (`string & Pattern<…>` → `Pattern`); undefined for a whole type.
 */
export function brokenTag(expected: string): string | undefined {
  const parsed = parseTypeExpression(expected);
  if (parsed === undefined || parsed.length !== 1) return undefined;
  const tags = (parsed[0] as TypeTerm[]).filter((term) => term.kind === "tag");
  return tags.length === 1 && tags[0]?.kind === "tag" ? tags[0].name : undefined;
}

/** Plain words for typia's `expected` text; falls back to a neutral phrase, never the raw text. */
export function ruleWords(expected: string): string {
  const parsed = parseTypeExpression(expected);
  return parsed === undefined ? "a value of another type" : expressionWords(parsed);
}
