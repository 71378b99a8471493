/**
 * Commands and log frames generated from the declared layouts (engine/rules/types/command-layout.ts,
 * engine/log/logged-command-layout.ts), for property tests: a sample holds a value for every
 * member, optional ones included, and `materialize` builds the object with a chosen set of the
 * optional members present, through the service's own builders. Every presence variant of every
 * command type can so be built from one sample.
 */
import { fc } from "@fast-check/vitest";
import { COMMAND_TYPES, type CommandType } from "@market-service/client/wire";
import { type Command } from "../../engine/rules/types/command.js";
import { buildCommand, buildIdentity, buildRejection, COMMAND_LAYOUTS, IDENTITY_LAYOUT, REJECTION_LAYOUT } from "../../engine/rules/types/command-layout.js";
import type { Layout, Member } from "../../engine/rules/types/layout.js";
import { LOGGED_COMMAND_LAYOUT, loggedCommand, type LoggedCommand } from "../../engine/log/logged-command.js";

/** Strings across MessagePack's forms (fixstr, str8, str16) and beyond ASCII. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(31, 32, 255, 256, 300).chain((length) => fc.string({ minLength: length, maxLength: length })) },
);

/** Safe integers across MessagePack's integer forms and float64. */
export const anyInteger: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -40, max: 300 }),
  fc.constantFrom(127, 128, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, -32, -33, -128, -129, -32_768, -32_769, -(2 ** 31), -(2 ** 31) - 1),
  fc.maxSafeNat(),
  fc.maxSafeInteger(),
);

/** Free-form JSON objects, `__proto__` members included (the reason they travel as JSON text). */
const anyJson: fc.Arbitrary<unknown> = fc
  .dictionary(fc.oneof(anyString, fc.constant("__proto__")), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((members) => JSON.parse(JSON.stringify(members)) as unknown);

/** A value for every member of `layout`; `command` members get a command of `type`. */
export type Sample = Record<string, unknown>;

export function sampleOf(layout: Layout, type: CommandType): fc.Arbitrary<Sample> {
  const members: Record<string, fc.Arbitrary<unknown>> = {};
  for (const member of layout) members[member.name] = valueOf(member, type);
  return fc.record(members);
}

function valueOf(member: Member, type: CommandType): fc.Arbitrary<unknown> {
  switch (member.kind) {
    case "constant":
      return fc.constant(member.value);
    case "string":
      return anyString;
    case "integer":
      return anyInteger;
    case "json":
      return anyJson;
    case "object":
      return sampleOf(member.layout, type);
    case "command":
      return sampleOf(COMMAND_LAYOUTS[type].members, type);
  }
}

/** The service's builder for objects of a layout. */
function builderOf(layout: Layout, type: CommandType): (fields: Record<string, unknown>) => unknown {
  if (layout === IDENTITY_LAYOUT) return (fields) => buildIdentity(fields as never);
  if (layout === REJECTION_LAYOUT) return (fields) => buildRejection(fields as never);
  if (layout === LOGGED_COMMAND_LAYOUT) return (fields) => loggedCommand(fields["c"] as Command, fields["f"] as string | undefined, fields["r"] as never);
  if (layout === COMMAND_LAYOUTS[type].members) return (fields) => buildCommand(type, fields as never);
  throw new Error("no builder for this layout");
}

/** Paths ("c.identity.authorityRef") of the optional members in objects of `layout`, nested ones included. */
export function optionalPaths(layout: Layout, type: CommandType, at = ""): string[] {
  return layout.flatMap((member) => {
    const path = `${at}${member.name}`;
    const own = member.optional ? [path] : [];
    if (member.kind === "object") return [...own, ...optionalPaths(member.layout, type, `${path}.`)];
    if (member.kind === "command") return [...own, ...optionalPaths(COMMAND_LAYOUTS[type].members, type, `${path}.`)];
    return own;
  });
}

/** The object of `layout` from `sample`, with exactly the optional members whose paths are in `present`. */
export function materialize(layout: Layout, type: CommandType, sample: Sample, present: ReadonlySet<string>, at = ""): unknown {
  const fields: Record<string, unknown> = {};
  for (const member of layout) {
    const path = `${at}${member.name}`;
    if (member.kind === "constant" || (member.optional && !present.has(path))) continue;
    const value = sample[member.name];
    if (member.kind === "object") fields[member.name] = materialize(member.layout, type, value as Sample, present, `${path}.`);
    else if (member.kind === "command") fields[member.name] = materialize(COMMAND_LAYOUTS[type].members, type, value as Sample, present, `${path}.`);
    else fields[member.name] = value;
  }
  return builderOf(layout, type)(fields);
}

/** Every subset of `paths`. */
export function subsets(paths: readonly string[]): Array<Set<string>> {
  return paths.reduce<Array<Set<string>>>((sets, path) => sets.flatMap((set) => [set, new Set([...set, path])]), [new Set()]);
}

/** A log frame's entry of a command of `type`, for each presence variant of every optional member (the frame's, the command's, nested ones). */
export function frameVariants(type: CommandType, sample: Sample): LoggedCommand[] {
  return subsets(optionalPaths(LOGGED_COMMAND_LAYOUT, type)).map((present) => materialize(LOGGED_COMMAND_LAYOUT, type, sample, present) as LoggedCommand);
}

/** A frame's sample: a value for every member of the frame and of its command of `type`. */
export const frameSample = (type: CommandType): fc.Arbitrary<Sample> => sampleOf(LOGGED_COMMAND_LAYOUT, type);

/** A command of `type` with random presence of its optional members (nested ones included). */
export function commandOf(type: CommandType): fc.Arbitrary<Command> {
  const layout = COMMAND_LAYOUTS[type].members;
  const paths = optionalPaths(layout, type);
  return fc
    .tuple(sampleOf(layout, type), fc.subarray(paths))
    .map(([sample, present]) => materialize(layout, type, sample, new Set(present)) as Command);
}

export const anyCommand: fc.Arbitrary<Command> = fc.constantFrom(...COMMAND_TYPES).chain(commandOf);
