/**
 * One plain message for a failed typia validation: it names the field the way the spec does
 * (`marketId`, `mechanism.config.capacity`, `scopes[1]`) and states the field's rule in words
 * (rule-words.ts), e.g. `capacity: must be an integer from 1 to 4294967295 (got 0)`,
 * `missing member commandId (a string of 1–128 characters with no control characters)`,
 * `unknown member foo`. Clients branch on the code; this is for the person reading it.
 *
 * typia reports only the one tag a value broke (`string & MaxLength<128>`). To state the field's
 * whole rule, the message asks the validator again with that value replaced by `null`, which no
 * field accepts: the report for the same path then carries the field's full type. This costs a
 * second validation on the error path only.
 *
 * Values are described, never echoed, except numbers: a string may be a nonce or a signature.
 */
import type { IValidation } from "typia";
import { brokenTag, ruleWords } from "./rule-words.js";

/** Paths are cut here (a member name can be as long as the body). */
const MAX_PATH_LENGTH = 200;

type PathSegment = string | number;

/** typia's access path after `$input` (`.a["b c"][0]`) as segments, or undefined if unreadable. */
export function pathSegments(path: string): PathSegment[] | undefined {
  if (!path.startsWith("$input")) return undefined;
  const segments: PathSegment[] = [];
  let at = "$input".length;
  while (at < path.length) {
    const rest = path.slice(at);
    const name = /^\.([A-Za-z_$][A-Za-z0-9_$]*)/.exec(rest);
    if (name !== null) {
      segments.push(name[1] as string);
      at += name[0].length;
      continue;
    }
    const index = /^\[([0-9]+)\]/.exec(rest);
    if (index !== null) {
      segments.push(Number(index[1]));
      at += index[0].length;
      continue;
    }
    if (!rest.startsWith('["')) return undefined;
    let end = 2;
    while (end < rest.length && rest[end] !== '"') end += rest[end] === "\\" ? 2 : 1;
    if (rest[end + 1] !== "]") return undefined;
    try {
      segments.push(JSON.parse(rest.slice(1, end + 1)) as string);
    } catch {
      return undefined;
    }
    at += end + 2;
  }
  return segments;
}

/** `mechanism.config.capacity`, `scopes[1]`, `subject.data["odd name"]`, cut at 200 characters. */
export function fieldName(segments: readonly PathSegment[], root: string): string {
  let name = root;
  for (const segment of segments) {
    if (typeof segment === "number") name += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) name += name === "" ? segment : `.${segment}`;
    else name += `[${JSON.stringify(segment)}]`;
  }
  if (name === "") name = "the body";
  return name.length > MAX_PATH_LENGTH ? `${name.slice(0, MAX_PATH_LENGTH)}…` : name;
}

/** A copy of `input` with the value at `segments` replaced (containers on the way copied, shallowly). */
function replaceAt(input: unknown, segments: readonly PathSegment[], value: unknown): unknown {
  if (segments.length === 0) return value;
  if (input === null || typeof input !== "object") return input;
  const [head, ...tail] = segments as [PathSegment, ...PathSegment[]];
  if (Array.isArray(input)) {
    if (typeof head !== "number" || head >= input.length) return input;
    const copy = input.slice();
    copy[head] = replaceAt(copy[head], tail, value);
    return copy;
  }
  const record = input as Record<string, unknown>;
  if (typeof head !== "string" || !Object.hasOwn(record, head)) return input;
  return { ...record, [head]: replaceAt(record[head], tail, value) };
}

/** The field's whole type expression, asked of the validator with the field's value set to null. */
function fullExpected(validate: (input: unknown) => IValidation<unknown>, input: unknown, error: IValidation.IError, segments: readonly PathSegment[]): string {
  if (error.value === null) return error.expected;
  const probed = validate(replaceAt(input, segments, null));
  if (probed.success) return error.expected;
  return probed.errors.find((other) => other.path === error.path)?.expected ?? error.expected;
}

/**
 * What the client sent, in words: the number itself, otherwise only its kind and size. `broken` is
 * the tag it broke, if any: a string of the right length in the wrong form says so.
 */
export function describeValue(value: unknown, broken?: string): string {
  if (value === null) return "null";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "a number that is not finite";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "string") {
    if (value.length === 0) return "an empty string";
    const size = value.length === 1 ? "a string of 1 character" : `a string of ${value.length} characters`;
    return broken === "Pattern" || broken === "Format" ? `${size} in another form` : size;
  }
  if (Array.isArray(value)) {
    const repeated = new Set(value.map((item) => JSON.stringify(item))).size < value.length;
    return `an array of ${value.length} item${value.length === 1 ? "" : "s"}${repeated ? " with repeats" : ""}`;
  }
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * The message for a failed validation of `input` by `validate`. `root` names the validated value
 * when it is itself a field (`mechanism.config`); for a request body it is empty, so fields read
 * `marketId`, `subject.schema`.
 */
export function validationMessage<T>(
  validate: (input: unknown) => IValidation<T>,
  input: unknown,
  errors: readonly IValidation.IError[],
  root = "",
): string {
  const first = errors[0];
  if (first === undefined) return root === "" ? "invalid request body" : `invalid ${root}`;
  const segments = pathSegments(first.path);
  if (segments === undefined) return `${root === "" ? "the body" : root}: must be ${ruleWords(first.expected)}`;
  const field = fieldName(segments, root);
  if (first.expected === "undefined") return `unknown member ${field}`;
  if (first.value === undefined) return `missing member ${field} (${ruleWords(first.expected)})`;
  const rule = ruleWords(fullExpected(validate as (input: unknown) => IValidation<unknown>, input, first, segments));
  return `${field}: must be ${rule} (got ${describeValue(first.value, brokenTag(first.expected))})`;
}
