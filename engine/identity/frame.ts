/**
 * What one identity log frame holds: the command exactly as decided (with its server time and
 * submitting actor), its idempotency fingerprint, the events it produced and, for commands with a
 * `commandId`, the reply it got. Replay applies the events (it never decides again), and `replyAt`
 * returns the stored reply, so a retry after a restart gets byte-for-byte the original answer.
 *
 * Encoding: plain MessagePack maps (msgpackr, `useRecords: false`), readable by any MessagePack
 * decoder. Optional members are omitted rather than encoded as `undefined`.
 */
import { Packr } from "msgpackr";
import type { AnyIdentityCommand, IdentityEvent, IdentityReply } from "../rules/identity/types.js";

export const IDENTITY_FRAME_VERSION = 1;

export interface LoggedIdentityCommand {
  v: typeof IDENTITY_FRAME_VERSION;
  c: AnyIdentityCommand;
  /** Idempotency fingerprint; absent for internal commands (token issue). */
  f?: string;
  /** Events applied (empty for rejections and no-op acceptances). */
  e: IdentityEvent[];
  /** The reply; absent for internal commands. */
  r?: IdentityReply;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

export function encodeIdentityFrame(entry: LoggedIdentityCommand): Buffer {
  return packr.pack(entry);
}

export function decodeIdentityFrame(payload: Uint8Array): LoggedIdentityCommand {
  const value = packr.unpack(payload) as LoggedIdentityCommand | null;
  if (
    value === null ||
    typeof value !== "object" ||
    value.v !== IDENTITY_FRAME_VERSION ||
    typeof value.c !== "object" ||
    value.c === null ||
    !Array.isArray(value.e)
  ) {
    throw new Error("identity log frame does not hold a logged identity command of a known version");
  }
  return value;
}
