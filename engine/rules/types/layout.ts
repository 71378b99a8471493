/**
 * Member layouts: the members of an object shape in the order they are written, each with the kind
 * of value it holds.
 *
 * MessagePack writes an object's members in insertion order, and the log's hash chain covers those
 * bytes, so for anything logged or packed the member order is part of the data. Each such shape is
 * declared once as a layout (commands: command-layout.ts; the log frame: engine/log/
 * logged-command.ts), and what depends on the order derives from that declaration: the builders
 * that make the objects, the shard channel's agreed record structures, the log frame reader, the
 * idempotency fingerprint's field order.
 */
import { assert } from "../common/assert.js";

interface MemberBase<Name extends string, Optional extends boolean> {
  readonly name: Name;
  /** Absent members are left out of the object (never written as `undefined`). */
  readonly optional: Optional;
}

/** A member of a layout and the kind of value it holds. */
export type Member<Name extends string = string, Optional extends boolean = boolean> = MemberBase<Name, Optional> &
  (
    | {
        /** The same value in every object of the layout (a command's `type`, a frame's version). */
        readonly kind: "constant";
        readonly value: string | number;
      }
    | {
        /**
         * `string`; `integer`: a safe integer; `json`: a free-form JSON value, which travels packed as
         * its JSON text (engine/log/logged-command.ts says why); `command`: any command, laid out
         * by its type's layout (command-layout.ts).
         */
        readonly kind: "string" | "integer" | "json" | "command";
      }
    | {
        /** An object of another declared layout. */
        readonly kind: "object";
        readonly layout: Layout;
      }
  );

export type Layout = readonly Member[];

export const constant = <const Name extends string, const Value extends string | number>(name: Name, value: Value) =>
  ({ name, optional: false, kind: "constant", value }) as const;
export const string = <const Name extends string>(name: Name) => ({ name, optional: false, kind: "string" }) as const;
export const integer = <const Name extends string>(name: Name) => ({ name, optional: false, kind: "integer" }) as const;
export const json = <const Name extends string>(name: Name) => ({ name, optional: false, kind: "json" }) as const;
export const command = <const Name extends string>(name: Name) => ({ name, optional: false, kind: "command" }) as const;
export const object = <const Name extends string, const Nested extends Layout>(name: Name, layout: Nested) =>
  ({ name, optional: false, kind: "object", layout }) as const;
/** The same member, which objects of the layout may leave out. */
export const optional = <const M extends Member<string, false>>(member: M): Omit<M, "optional"> & { readonly optional: true } => ({
  ...member,
  optional: true,
});

// ---------------------------------------------------------------------------------------------
// Compile-time check of a layout against the type of the objects it describes.
// ---------------------------------------------------------------------------------------------

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
type OptionalKeys<T> = Exclude<keyof T, RequiredKeys<T>>;
type NamesOf<L extends Layout, Optional extends boolean> = Extract<L[number], { optional: Optional }>["name"];

/** What a member of each kind may hold (a nested layout is checked against its own type separately). */
type KindValue<M> = M extends { kind: "string" }
  ? string
  : M extends { kind: "integer" }
    ? number
    : M extends { kind: "json" | "object" }
      ? object
      : M extends { kind: "command" }
        ? { type: string }
        : never;

/** Per member: does the type's member hold what the member's kind says (a constant: exactly its value)? */
type MemberFits<M, T> = M extends { name: infer N }
  ? N extends keyof T
    ? M extends { kind: "constant"; value: infer V }
      ? Same<T[N], V>
      : Exclude<T[N], undefined> extends KindValue<M>
        ? true
        : false
    : false
  : never;

/**
 * `true` when layout `L` names exactly the members of `T` (both directions), the optional ones
 * optional and the others not, each of a kind that fits its type; otherwise `false`.
 */
export type LayoutFits<L extends Layout, T> =
  Same<NamesOf<L, false>, RequiredKeys<T>> extends true
    ? Same<NamesOf<L, true>, OptionalKeys<T>> extends true
      ? false extends MemberFits<L[number], T>
        ? false
        : true
      : false
    : false;

/** The members an object of layout `T` is built from: all but the constants; optional ones may be given as undefined. */
export type FieldsOf<T, Constants extends keyof T = never> = {
  [K in keyof T as K extends Constants ? never : K]: K extends RequiredKeys<T> ? T[K] : T[K] | undefined;
};

// ---------------------------------------------------------------------------------------------
// Derived from a layout at run time.
// ---------------------------------------------------------------------------------------------

/**
 * The member names of every object a layout allows, one list per combination of its optional
 * members (present or absent), each in declared order: the shapes MessagePack record structures
 * are agreed for (engine/runtime/wire.ts).
 */
export function presenceVariants(layout: Layout): string[][] {
  let variants: string[][] = [[]];
  for (const member of layout) {
    variants = member.optional ? variants.flatMap((names) => [names, [...names, member.name]]) : variants.map((names) => [...names, member.name]);
  }
  return variants;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** 2^n object literals per builder. */
const MAX_OPTIONAL_MEMBERS = 3;

/**
 * The source of an expression that evaluates to the object of `layout`: one object literal per
 * presence variant, chosen by which optional members are defined. `valueOf(member, index)` is the
 * source of a member's value (constants are written in). For code compiled from a layout.
 */
export function objectLiteralSource(layout: Layout, valueOf: (member: Member, index: number) => string): string {
  const names = new Set<string>();
  for (const member of layout) {
    assert(IDENTIFIER.test(member.name) && member.name !== "__proto__", `layout member ${JSON.stringify(member.name)} is not a plain identifier`);
    assert(!names.has(member.name), `layout member ${member.name} is declared twice`);
    names.add(member.name);
  }
  const optionals = layout.flatMap((member, index) => (member.optional ? [index] : []));
  assert(optionals.length <= MAX_OPTIONAL_MEMBERS, "too many optional members for one builder");
  const literal = (present: ReadonlySet<number>): string => {
    const members = layout.flatMap((member, index) => {
      if (member.optional && !present.has(index)) return [];
      const value = member.kind === "constant" ? JSON.stringify(member.value) : valueOf(member, index);
      return [`${member.name}: ${value}`];
    });
    return `{ ${members.join(", ")} }`;
  };
  const branch = (next: number, present: ReadonlySet<number>): string => {
    const index = optionals[next];
    if (index === undefined) return literal(present);
    const value = valueOf(layout[index] as Member, index);
    return `(${value} === undefined ? ${branch(next + 1, present)} : ${branch(next + 1, new Set([...present, index]))})`;
  };
  return branch(0, new Set());
}

/**
 * A function that builds the objects of `layout` from their members by name, constants filled in
 * and absent optional members left out.
 *
 * It is compiled from the layout into one object literal per presence variant (as msgpackr compiles
 * its record readers): objects of one shape then share one hidden class with their members in the
 * object itself, which the claim path depends on (decision I13), where adding members one by one
 * in a loop would cost several times more per object.
 */
export function compileBuilder<Fields, T>(layout: Layout): (fields: Fields) => T {
  // Source made from our own declarations (identifiers checked in objectLiteralSource), never from input.
  return new Function("f", `"use strict"; return ${objectLiteralSource(layout, (member) => `f.${member.name}`)};`) as (fields: Fields) => T;
}
