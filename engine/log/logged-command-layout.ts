/**
 * What one log frame holds, and its layout, declared once: a command exactly as the engine decided
 * it (with its server time and any authority refusal), its idempotency fingerprint, and — only for a
 * rejection that no market record holds — the rejection itself, so its reply can be reproduced
 * without the (absent) market. The frame's members and the command's are written in declared order
 * (engine/rules/types/command-layout.ts); `loggedCommand` builds frames by it, and the frame reader
 * (logged-frame-reader.ts) reads them by it.
 */
import type { Command } from "../rules/types/command.js";
import { REJECTION_LAYOUT } from "../rules/types/command-layout.js";
import type { Rejection } from "@market-service/client/wire";
import { command, compileBuilder, constant, object, optional, string, type FieldsOf, type LayoutFits } from "../rules/types/layout.js";

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

export const LOGGED_COMMAND_LAYOUT = [
  constant("v", LOGGED_COMMAND_VERSION),
  optional(string("f")),
  command("c"),
  optional(object("r", REJECTION_LAYOUT)),
] as const;
// Fails to compile when the layout and LoggedCommand disagree.
true satisfies LayoutFits<typeof LOGGED_COMMAND_LAYOUT, LoggedCommand>;

const build = compileBuilder<FieldsOf<LoggedCommand, "v">, LoggedCommand>(LOGGED_COMMAND_LAYOUT);

/** A frame's entry: `fingerprint` undefined for system commands, `rejection` only when no market record holds the command. */
export function loggedCommand(c: Command, fingerprint: string | undefined, rejection: Rejection | undefined): LoggedCommand {
  return build({ f: fingerprint, c, r: rejection });
}
