/**
 * Each command's layout, declared once: its members in the order every command of its type is
 * written, and the kind of each.
 *
 * The order is part of the data: the log stores commands as MessagePack maps whose bytes its hash
 * chain covers, and the shard channel agrees record structures by member names in order. These are
 * the orders the service has always written: a command a client sends has its own members first,
 * then `commandId`, `identity`, `occurredAtMs` (and `authorityRejection` when the gateway's
 * authority check refused it); a system command (auction close, hold expiry) has the header first.
 *
 * Derived from this: the builders below (the gateway's commands, the system commands, benches and
 * tests), a record's request body (`commandBody`), the packed form of free-form members and the log
 * frame reader (engine/log/logged-command.ts, logged-frame-reader.ts), the channel's agreed
 * structures (engine/runtime/wire.ts), and the idempotency fingerprint's field order
 * (gateway/api/market-api.ts). Decision I27.
 */
import { COMMAND_TYPES, type CommandIdentity, type CommandType, type Rejection } from "@market-service/client/wire";
import { type Command } from "./command.js";
import {
  compileBuilder,
  constant,
  integer,
  json,
  object,
  optional,
  string,
  type FieldsOf,
  type Layout,
  type LayoutFits,
  type Member,
} from "./layout.js";

export type CommandOf<K extends CommandType> = Extract<Command, { type: K }>;

export const IDENTITY_LAYOUT = [string("principalId"), string("actorId"), optional(string("authorityRef"))] as const;
export const REJECTION_LAYOUT = [string("code"), string("message")] as const;

const COMMAND_ID = string("commandId");
const IDENTITY = object("identity", IDENTITY_LAYOUT);
/** Server time: a placeholder (0) until the shard stamps it in place. */
const OCCURRED_AT_MS = integer("occurredAtMs");
const AUTHORITY_REJECTION = optional(object("authorityRejection", REJECTION_LAYOUT));

/** Who issues commands of a type: clients, through the gateway and the shard channel, or the shard's timer wheel. */
export type CommandOrigin = "client" | "system";

export interface CommandLayout<K extends CommandType = CommandType> {
  readonly origin: CommandOrigin;
  readonly members: readonly [Member<"type", false> & { kind: "constant"; value: K }, ...Layout];
}

function client<const K extends CommandType, const Content extends Layout>(type: K, ...content: Content) {
  return { origin: "client", members: [constant("type", type), ...content, COMMAND_ID, IDENTITY, OCCURRED_AT_MS, AUTHORITY_REJECTION] } as const;
}

function system<const K extends CommandType, const Content extends Layout>(type: K, ...content: Content) {
  return { origin: "system", members: [constant("type", type), COMMAND_ID, IDENTITY, OCCURRED_AT_MS, ...content, AUTHORITY_REJECTION] } as const;
}

export const COMMAND_LAYOUTS = {
  "market.create_draft": client("market.create_draft", string("marketId"), json("subject"), json("mechanism")),
  "market.publish": client("market.publish", string("marketId"), integer("expectedVersion")),
  "direct_claim.submit": client("direct_claim.submit", string("marketId"), optional(integer("expectedVersion"))),
  "sealed_auction.submit_bid": client("sealed_auction.submit_bid", string("marketId"), integer("amountMinor"), string("currency")),
  "sealed_auction.resolve": system("sealed_auction.resolve", string("marketId")),
  "commitment.confirm": client("commitment.confirm", string("commitmentId")),
  "commitment.decline": client("commitment.decline", string("commitmentId")),
  "commitment.expire": system("commitment.expire", string("commitmentId")),
} as const satisfies { readonly [K in CommandType]: CommandLayout<K> };

// Compile-time checks: each statement fails to compile (naming the command type) when a layout and
// the type of its objects disagree in either direction: a member missing from one of them, optional
// in one only, or of another kind.
type Misfits = { [K in CommandType]: LayoutFits<(typeof COMMAND_LAYOUTS)[K]["members"], CommandOf<K>> extends true ? never : K }[CommandType];
true satisfies ([Misfits] extends [never] ? true : Misfits);
true satisfies LayoutFits<typeof IDENTITY_LAYOUT, CommandIdentity>;
true satisfies LayoutFits<typeof REJECTION_LAYOUT, Rejection>;

/**
 * The members every command has (the header): the members common to the whole `Command` union.
 * The others are the command's content, what its client asked for.
 */
const HEADER_MEMBERS = ["type", "commandId", "identity", "occurredAtMs", "authorityRejection"] as const satisfies ReadonlyArray<keyof Command>;
true satisfies ([keyof Command] extends [(typeof HEADER_MEMBERS)[number]] ? true : false);
const HEADER: ReadonlySet<string> = new Set(HEADER_MEMBERS);

/** One value per command type, from its layout. */
export function perCommandType<V>(valueOf: (layout: CommandLayout) => V): { readonly [K in CommandType]: V } {
  return Object.fromEntries(COMMAND_TYPES.map((type) => [type, valueOf(COMMAND_LAYOUTS[type])])) as { [K in CommandType]: V };
}

/** A command's content members in declared order: all but the header (the fingerprint covers these after the header's identity). */
export const CONTENT_MEMBERS = perCommandType<Layout>((layout) => layout.members.filter((member) => !HEADER.has(member.name)));

export type CommandFields<K extends CommandType> = FieldsOf<CommandOf<K>, "type">;

const COMMAND_BUILDERS = perCommandType((layout) => compileBuilder<never, Command>(layout.members)) as {
  readonly [K in CommandType]: (fields: CommandFields<K>) => CommandOf<K>;
};

/** A command of `type`, its members in the declared order (`occurredAtMs`: 0 until the shard stamps it). */
export function buildCommand<K extends CommandType>(type: K, fields: CommandFields<K>): CommandOf<K> {
  return (COMMAND_BUILDERS[type] as (fields: CommandFields<K>) => CommandOf<K>)(fields);
}

const BODY_BUILDERS = perCommandType((layout) =>
  compileBuilder<Command, Record<string, unknown>>([COMMAND_ID, ...layout.members.filter((member) => !HEADER.has(member.name))]),
);

/**
 * The command's own members as its client (or the timer wheel) sent them: its `commandId`, then its
 * content members in declared order (a record's `request`, spec §2.10).
 */
export function commandBody(command: Command): Record<string, unknown> {
  return BODY_BUILDERS[command.type](command);
}

const identityBuilder = compileBuilder<FieldsOf<CommandIdentity>, CommandIdentity>(IDENTITY_LAYOUT);
/** A command's identity, members in the declared order (`authorityRef` left out when undefined). */
export function buildIdentity(fields: FieldsOf<CommandIdentity>): CommandIdentity {
  return identityBuilder(fields);
}

const rejectionBuilder = compileBuilder<FieldsOf<Rejection>, Rejection>(REJECTION_LAYOUT);
export function buildRejection(fields: FieldsOf<Rejection>): Rejection {
  return rejectionBuilder(fields);
}
