/**
 * What one log frame holds: a command exactly as the engine decided it (with its server time and any
 * authority refusal), its idempotency fingerprint, and — only for a rejection that no market record
 * holds — the rejection itself, so its reply can be reproduced without the (absent) market.
 *
 * Encoding: plain MessagePack maps (msgpackr with `useRecords: false`), readable by any MessagePack
 * decoder: the audit trail must not depend on this code base.
 */
import { Packr } from "msgpackr";
import type { Command } from "../../engine/types/command.js";
import type { Rejection } from "../../engine/types/errors.js";

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

export function encodeLoggedCommand(entry: LoggedCommand): Buffer {
  return packr.pack(entry);
}

export function decodeLoggedCommand(payload: Uint8Array): LoggedCommand {
  const value = packr.unpack(payload) as LoggedCommand;
  if (value === null || typeof value !== "object" || value.v !== LOGGED_COMMAND_VERSION || typeof value.c !== "object") {
    throw new Error("log frame does not hold a logged command of a known version");
  }
  return value;
}
