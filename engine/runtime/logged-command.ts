/**
 * What one log frame holds: a command exactly as the engine decided it (with its server time and any
 * authority refusal), its idempotency fingerprint, and — only for a rejection that no market record
 * holds — the rejection itself, so its reply can be reproduced without the (absent) market.
 *
 * Encoding: plain MessagePack maps (msgpackr with `useRecords: false`), readable by any MessagePack
 * decoder: the audit trail must not depend on this code base. The free-form parts of a create
 * command (`subject`, and the `mechanism` input, which is recorded even when rejected) are stored as
 * JSON text: msgpackr renames a map key `__proto__` to `__proto_` when decoding (prototype-pollution
 * hardening), and a client's subject may legitimately contain that member name; JSON.parse keeps it
 * as an own data property and keeps member order, so replay reproduces the command exactly.
 */
import { Packr } from "msgpackr";
import type { Command } from "../rules/types/command.js";
import type { MechanismSelectionInput } from "../rules/types/market.js";
import type { Subject } from "../rules/types/shared.js";
import type { Rejection } from "../rules/types/errors.js";
import { readLoggedClaim } from "./logged-claim-reader.js";

export const LOGGED_COMMAND_VERSION = 1;

export interface LoggedCommand {
  /** Format version of this frame payload. */
  v: typeof LOGGED_COMMAND_VERSION;
  /** Idempotency fingerprint; absent for the service's own system commands. */
  f?: string;
  c: Command;
  /** The rejection, when the command was rejected and belongs to no market record. */
  r?: Rejection;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * A command ready for MessagePack: the free-form parts of a create command as JSON text (msgpackr
 * renames a `__proto__` map key on decoding). Used by the log and by the shard message channel.
 */
export function packableCommand(command: Command): Command {
  if (command.type !== "market.create_draft") return command;
  return { ...command, subject: JSON.stringify(command.subject), mechanism: JSON.stringify(command.mechanism) } as unknown as Command;
}

/** The inverse of `packableCommand`, in place on a freshly decoded command. */
export function restorePackedCommand(command: Command): Command {
  if (command.type !== "market.create_draft") return command;
  const packed = command as Command & { subject: unknown; mechanism: unknown };
  if (typeof packed.subject !== "string" || typeof packed.mechanism !== "string") {
    throw new Error("a packed create command must carry its subject and mechanism as JSON text");
  }
  packed.subject = JSON.parse(packed.subject) as Subject;
  packed.mechanism = JSON.parse(packed.mechanism) as MechanismSelectionInput;
  return packed;
}

export function encodeLoggedCommand(entry: LoggedCommand): Buffer {
  const c = packableCommand(entry.c);
  return packr.pack(c === entry.c ? entry : { ...entry, c });
}

export function decodeLoggedCommand(payload: Uint8Array): LoggedCommand {
  // Most frames are claims in one layout, read directly (decision I15); msgpackr reads the rest.
  const claim = readLoggedClaim(payload);
  if (claim !== undefined) return claim;
  const value = packr.unpack(payload) as LoggedCommand;
  if (value === null || typeof value !== "object" || value.v !== LOGGED_COMMAND_VERSION || typeof value.c !== "object") {
    throw new Error("log frame does not hold a logged command of a known version");
  }
  restorePackedCommand(value.c);
  return value;
}
