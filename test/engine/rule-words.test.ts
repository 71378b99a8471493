/**
 * Validation messages in plain words (engine/rules/validation/rule-words.ts, field-message.ts): every type
 * expression the committed typia validators can report is read by the parser and described without
 * any typia syntax, every named type and pattern has its words, and the message names the field.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateCreateMarketBody, validatePublishMarketBody } from "../../engine/rules/validation/generated/bodies.js";
import { validateDirectClaimConfig } from "../../engine/rules/validation/generated/mechanism-config.js";
import { fieldName, pathSegments, validationMessage } from "../../engine/rules/validation/field-message.js";
import { NAMED_TYPE_WORDS, parseTypeExpression, ruleWords, type TypeExpression } from "../../engine/rules/validation/rule-words.js";
import { validateProvisionIdentityBody } from "../../gateway/validation/generated/bodies.js";
import { TYPIA_SYNTAX } from "../http-api/support/plain-message.js";

const GENERATED = [
  "engine/rules/validation/generated/bodies.ts",
  "engine/rules/validation/generated/mechanism-config.ts",
  "gateway/validation/generated/bodies.ts",
  "gateway/validation/generated/mcp.ts",
];


/** Every `expected` text in the committed generated validators, as the running code sees it. */
function reportedExpressions(): string[] {
  const found = new Set<string>();
  for (const file of GENERATED) {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
    for (const match of source.matchAll(/expected: ("(?:[^"\\]|\\.)*")/g)) found.add(JSON.parse(match[1] as string) as string);
  }
  return [...found].sort();
}

function namedTypes(expression: TypeExpression, into: Set<string>): void {
  for (const alternative of expression) {
    for (const term of alternative) {
      if (term.kind !== "named") continue;
      into.add(term.name);
      for (const arg of term.args) namedTypes(arg, into);
    }
  }
}

const BASE_TYPES = new Set(["string", "number", "boolean", "null", "undefined", "unknown", "Array"]);

describe("rule words", () => {
  const expressions = reportedExpressions();

  it("finds the generated validators' expressions", () => {
    // A change in how typia prints them must not silently empty this test.
    expect(expressions.length).toBeGreaterThan(50);
  });

  it("parses every reported expression and words it without typia syntax", () => {
    for (const expected of expressions) {
      expect(parseTypeExpression(expected), expected).toBeDefined();
      const words = ruleWords(expected);
      expect(words, expected).not.toMatch(TYPIA_SYNTAX);
      expect(words, expected).not.toMatch(/regular expression|a value of another type/);
    }
  });

  it("has words for every named type a validator can report (bodies and tool inputs read as a JSON object)", () => {
    const names = new Set<string>();
    for (const expected of expressions) namedTypes(parseTypeExpression(expected) as TypeExpression, names);
    for (const name of names) {
      if (BASE_TYPES.has(name) || /(Body|Input)$/.test(name)) continue;
      expect(Object.keys(NAMED_TYPE_WORDS), `no words for the named type ${name}`).toContain(name);
    }
  });

  it("states tags in words", () => {
    expect(ruleWords('(string & MinLength<1> & MaxLength<128> & Pattern<"^[^\\\\u0000-\\\\u001F\\\\u007F]+$">)')).toBe(
      "a string of 1–128 characters with no control characters",
    );
    expect(ruleWords('(string & MinLength<1> & MaxLength<128> & Pattern<"^(?!\\\\.\\\\.?$)[^\\\\u0000-\\\\u001F\\\\u007F]+$">)')).toBe(
      'a string of 1–128 characters with no control characters, and not "." or ".."',
    );
    expect(ruleWords('(number & Type<"uint32"> & Minimum<1>)')).toBe("an integer from 1 to 4294967295");
    expect(ruleWords('((number & Type<"int64"> & Minimum<1> & Maximum<9007199254740991>) | undefined)')).toBe(
      "an integer from 1 to 9007199254740991, or omitted",
    );
    expect(ruleWords('("both" | "creator" | "participant")')).toBe('one of "both", "creator" or "participant"');
    expect(ruleWords('(string & Pattern<"^[A-Z]{3}$">)')).toBe("a string of three capital letters, a currency code such as EUR");
    expect(ruleWords('(string & Format<"date-time">)')).toBe("an RFC 3339 date-time such as 2030-01-01T12:00:00Z");
    expect(ruleWords("(Array<AuthorityScope> & MinItems<1> & UniqueItems<true> & MaxItems<7>)")).toMatch(/^an array of 1–7 distinct items, each one of market:create, /);
    expect(ruleWords("(FreePricing | PostedPricing)")).toBe('either {mode: "free"} or {mode: "posted", amountMinor, currency}');
    expect(ruleWords("not < a type")).toBe("a value of another type");
  });

  it("names fields the way the spec does", () => {
    expect(fieldName(pathSegments("$input.mechanism.config.capacity") ?? [], "")).toBe("mechanism.config.capacity");
    expect(fieldName(pathSegments("$input.capacity") ?? [], "mechanism.config")).toBe("mechanism.config.capacity");
    expect(fieldName(pathSegments('$input.scopes[1]["odd \\"name"]') ?? [], "")).toBe('scopes[1]["odd \\"name"]');
    expect(fieldName(pathSegments("$input") ?? [], "")).toBe("the body");
    expect(fieldName(pathSegments(`$input["${"x".repeat(300)}"]`) ?? [], "")).toHaveLength(201);
    expect(pathSegments("$input.a[")).toBeUndefined();
  });

  it("states the field's whole rule when a value broke one tag, and what was sent", () => {
    const tooLong = { commandId: "c", principalId: "p", marketId: "m".repeat(129), subject: { schema: "s", data: {} }, mechanism: { presetId: "x", config: {} } };
    const checked = validateCreateMarketBody(tooLong);
    expect(checked.success).toBe(false);
    if (checked.success) return;
    expect(validationMessage(validateCreateMarketBody, tooLong, checked.errors)).toBe(
      'marketId: must be a string of 1–128 characters with no control characters, and not "." or ".." (got a string of 129 characters)',
    );
    const zero = { commandId: "c", principalId: "p", expectedVersion: 0 };
    const publish = validatePublishMarketBody(zero);
    if (publish.success) throw new Error("expectedVersion 0 must fail on publish");
    expect(validationMessage(validatePublishMarketBody, zero, publish.errors)).toBe("expectedVersion: must be an integer from 1 to 9007199254740991 (got 0)");
    const config = { capacity: 1, pricing: { mode: "posted", amountMinor: 5, currency: "eur" }, confirmation: "none" };
    const direct = validateDirectClaimConfig(config);
    if (direct.success) throw new Error("a lowercase currency must fail");
    expect(validationMessage(validateDirectClaimConfig, config, direct.errors, "mechanism.config")).toBe(
      "mechanism.config.pricing.currency: must be a string of three capital letters, a currency code such as EUR (got a string of 3 characters in another form)",
    );
  });

  it("never echoes a string's text", () => {
    const body = { commandId: "c", principalId: "p", actorId: "a", keyId: "k", publicKey: "s3cr3t-looking-value" };
    const checked = validateProvisionIdentityBody(body);
    if (checked.success) throw new Error("a short publicKey must fail");
    const message = validationMessage(validateProvisionIdentityBody, body, checked.errors);
    expect(message).toMatch(/^publicKey: must be a string of exactly 43 characters/);
    expect(message).not.toContain("s3cr3t");
  });
});
