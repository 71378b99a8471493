/**
 * The command a receipt is for, as its sender knows it: type, market, command id and actor. A
 * receipt names only a leaf index under a signed head, and any leaf of that tree has a valid
 * inclusion proof: the index proves nothing about *your* command until the proven entry is decoded
 * and found to be it (docs/proofs.md, "Proof files"). `entryCommandProblem` does that: the entry's
 * payload (MessagePack `{v, f, c}`, engine/log/logged-command.ts) must hold a command of this type,
 * on this market, with this command id, sent by this actor.
 *
 * Pure JavaScript (msgpackr's portable decoder, `msgpackr/unpack`, no Node API): the SDK checks receipts in browsers too.
 */
import { unpack } from "msgpackr/unpack";
import { COMMAND_TYPES, type CommandType } from "../wire/command.js";
import { parseCommitmentId } from "../wire/ids.js";

export interface ReceiptCommand {
  /** The command type as logged, e.g. `direct_claim.submit`, `sealed_auction.submit_bid`. */
  readonly type: CommandType;
  readonly marketId: string;
  readonly commandId: string;
  /** The actor that sent it (the identity's actor id). */
  readonly actorId: string;
}

const MEMBERS = ["type", "marketId", "commandId", "actorId"] as const;

/** A command as a proof file or kept receipt holds it (`{type, marketId, commandId, actorId}`, all non-empty strings). */
export function parseReceiptCommand(value: unknown): { ok: true; command: ReceiptCommand } | { ok: false; message: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, message: "command must be a JSON object {type, marketId, commandId, actorId}" };
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) if (!(MEMBERS as readonly string[]).includes(name)) return { ok: false, message: `command.${name} is not a member (expected ${MEMBERS.join(", ")})` };
  for (const name of MEMBERS) {
    const member = record[name];
    if (typeof member !== "string" || member.length === 0) return { ok: false, message: `command.${name} must be a non-empty string` };
  }
  // Only a type the service logs can be proven: any other is no command of a receipt's.
  if (!(COMMAND_TYPES as readonly unknown[]).includes(record["type"])) return { ok: false, message: `command.type must be one of ${COMMAND_TYPES.join(", ")}` };
  return { ok: true, command: { type: record["type"] as CommandType, marketId: record["marketId"] as string, commandId: record["commandId"] as string, actorId: record["actorId"] as string } };
}

/** Why the entry's payload is not `expected` (a sentence naming the first member that differs), or undefined when it is. */
export function entryCommandProblem(entry: Uint8Array, expected: ReceiptCommand): string | undefined {
  let frame: unknown;
  try {
    frame = unpack(entry);
  } catch {
    return "the entry is not a MessagePack log frame";
  }
  const command = typeof frame === "object" && frame !== null ? (frame as Record<string, unknown>)["c"] : undefined;
  if (typeof command !== "object" || command === null) return "the entry holds no command (a signed head, or another frame)";
  const c = command as Record<string, unknown>;
  const identity = typeof c["identity"] === "object" && c["identity"] !== null ? (c["identity"] as Record<string, unknown>) : {};
  const commitment = typeof c["commitmentId"] === "string" ? parseCommitmentId(c["commitmentId"]) : undefined;
  const actual = { type: c["type"], marketId: typeof c["marketId"] === "string" ? c["marketId"] : commitment?.marketId, commandId: c["commandId"], actorId: identity["actorId"] };
  for (const name of MEMBERS) {
    if (actual[name] !== expected[name]) return `the entry is ${describe(actual)}, not your ${describe(expected)}: its ${name} differs`;
  }
  return undefined;
}

/** A command in words: `direct_claim.submit c-1 on market m-1 by actor a-1`. */
export function describeReceiptCommand(command: ReceiptCommand): string {
  return describe(command);
}

function describe(command: { type: unknown; marketId: unknown; commandId: unknown; actorId: unknown }): string {
  const text = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : "(none)");
  return `command ${text(command.type)} ${text(command.commandId)} on market ${text(command.marketId)} by actor ${text(command.actorId)}`;
}
