/**
 * The encoding of a log frame (logged-command-layout.ts says what it holds).
 *
 * Plain MessagePack maps (msgpackr with `useRecords: false`), readable by any MessagePack decoder:
 * the audit trail must not depend on this code base. Members are written in the declared order of
 * the frame's and the command's layouts. The free-form members of a command (its layout's `json`
 * members: a create's `subject`, and the `mechanism` input, which is recorded even when rejected)
 * are stored as JSON text: msgpackr renames a map key `__proto__` to `__proto_` when decoding
 * (prototype-pollution hardening), and a client's subject may legitimately contain that member name;
 * JSON.parse keeps it as an own data property and keeps member order, so replay reproduces the
 * command exactly.
 */
import { Packr } from "msgpackr";
import type { Command } from "../rules/types/command.js";
import { perCommandType } from "../rules/types/command-layout.js";
import { readLoggedCommand } from "./logged-frame-reader.js";
import { LOGGED_COMMAND_VERSION, type LoggedCommand } from "./logged-command-layout.js";

export { LOGGED_COMMAND_LAYOUT, LOGGED_COMMAND_VERSION, loggedCommand, type LoggedCommand } from "./logged-command-layout.js";

const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * The command types with members packed as JSON text (their layouts' `json` members), and those
 * members: a short list searched by comparing the type (cheaper per command than a keyed lookup;
 * most commands have none).
 */
const JSON_MEMBERS: ReadonlyArray<readonly [type: string, names: readonly string[]]> = Object.entries(
  perCommandType((layout) => layout.members.flatMap((member) => (member.kind === "json" ? [member.name] : []))),
).filter(([, names]) => names.length > 0);

function jsonMembersOf(type: string): readonly string[] | undefined {
  for (const [withJson, names] of JSON_MEMBERS) if (type === withJson) return names;
  return undefined;
}

/**
 * A command ready for MessagePack: its free-form members as JSON text (msgpackr renames a
 * `__proto__` map key on decoding); other commands as they are. Used by the log and by the shard
 * message channel.
 */
export function packableCommand(command: Command): Command {
  const names = jsonMembersOf(command.type);
  if (names === undefined) return command;
  // A copy with the same members in the same order, only the free-form values replaced.
  const packed: Record<string, unknown> = { ...command };
  for (const name of names) if (packed[name] !== undefined) packed[name] = JSON.stringify(packed[name]);
  return packed as unknown as Command;
}

/** The inverse of `packableCommand`, in place on a freshly decoded command. */
export function restorePackedCommand(command: Command): Command {
  const names = jsonMembersOf(command.type);
  if (names === undefined) return command;
  const packed = command as unknown as Record<string, unknown>;
  for (const name of names) {
    const text = packed[name];
    if (text === undefined) continue;
    if (typeof text !== "string") throw new Error(`a packed ${command.type} command must carry its ${name} as JSON text`);
    packed[name] = JSON.parse(text) as unknown;
  }
  return command;
}

export function encodeLoggedCommand(entry: LoggedCommand): Buffer {
  const c = packableCommand(entry.c);
  return packr.pack(c === entry.c ? entry : { ...entry, c });
}

export function decodeLoggedCommand(payload: Uint8Array): LoggedCommand {
  // Frames in the declared layouts are read directly (decision I15); msgpackr reads any other.
  const read = readLoggedCommand(payload);
  if (read !== undefined) return read;
  const value = packr.unpack(payload) as LoggedCommand;
  if (value === null || typeof value !== "object" || value.v !== LOGGED_COMMAND_VERSION || typeof value.c !== "object") {
    throw new Error("log frame does not hold a logged command of a known version");
  }
  restorePackedCommand(value.c);
  return value;
}
