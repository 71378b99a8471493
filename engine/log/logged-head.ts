/**
 * A log frame that holds a signed head instead of a command (packages/client/src/audit/signed-head.ts): the
 * service records a head in the log it signs at a bounded interval, so a replay meets every head where
 * it was made and checks it against the entries before it. The head covers exactly the entries before
 * its own: a head at sequence n has `treeSize` n − 1 (it is then a leaf of later trees like any entry).
 *
 * Plain MessagePack like command frames, `{ v: 1, h: SignedHead }` with the head's members in their
 * declared order; a frame holds either `c` (a command) or `h` (a head), and `decodeLogEntry` tells them
 * apart for every reader of a shard's log.
 *
 * A head recorded because an operator accepted an unsigned tail at start (AUDIT_ACCEPT_UNSIGNED_TAIL,
 * engine/audit/heads/unsigned-tail.ts) carries a third member, `a: { from }`: the first entry of the
 * tail it accepted (the tail ends just before this entry). The frame is a leaf of every later tree,
 * so later heads sign the acceptance too, and `verify` reports it.
 */
import { Packr } from "msgpackr";
import type { SignedHead } from "@market-service/client/audit";
import { decodeLoggedCommand, type LoggedCommand } from "./logged-command.js";

export const LOGGED_HEAD_VERSION = 1;

export interface LoggedHead {
  v: typeof LOGGED_HEAD_VERSION;
  h: SignedHead;
  /** An unsigned tail accepted at start: its first entry. */
  a?: { from: number };
}

/** One entry of a shard's log; a head's `acceptedFrom` is the first entry of the unsigned tail it was recorded to accept. */
export type LogEntry = { kind: "command"; logged: LoggedCommand } | { kind: "head"; head: SignedHead; acceptedFrom?: number };

const packr = new Packr({ useRecords: false, moreTypes: false });

/** What follows the map header (fixmap or map16 of 2 members) of a head frame: `v: 1`, then the key `h`. */
const HEAD_FRAME_MEMBERS = Uint8Array.of(0xa1, 0x76, 0x01, 0xa1, 0x68);

export function encodeLoggedHead(head: SignedHead, acceptedFrom?: number): Buffer {
  const frame: LoggedHead = {
    v: LOGGED_HEAD_VERSION,
    h: { logId: head.logId, treeSize: head.treeSize, rootHash: head.rootHash, timeMs: head.timeMs, keyId: head.keyId, signature: head.signature },
  };
  if (acceptedFrom !== undefined) frame.a = { from: acceptedFrom };
  return packr.pack(frame);
}

/** Whether the frame is a head's: a command frame's second member is `f` or `c`, never `h` (2 members, or 3 with `a`). */
function isHeadFrame(payload: Uint8Array): boolean {
  const headerBytes = payload[0] === 0x82 || payload[0] === 0x83 ? 1 : payload[0] === 0xde && payload[1] === 0x00 && (payload[2] === 0x02 || payload[2] === 0x03) ? 3 : 0;
  if (headerBytes === 0 || payload.length < headerBytes + HEAD_FRAME_MEMBERS.length) return false;
  for (let i = 0; i < HEAD_FRAME_MEMBERS.length; i += 1) if (payload[headerBytes + i] !== HEAD_FRAME_MEMBERS[i]) return false;
  return true;
}

/** The head a head frame holds (and the tail it accepted, if any); throws on anything else. */
function decodeHeadFrame(payload: Uint8Array): { head: SignedHead; acceptedFrom?: number } {
  const frame = packr.unpack(payload) as Partial<LoggedHead> | null;
  const head = frame?.h;
  if (frame?.v !== LOGGED_HEAD_VERSION || head === undefined || head === null || typeof head !== "object") throw new Error("log frame does not hold a signed head of a known version");
  const valid =
    typeof head.logId === "string" &&
    Number.isSafeInteger(head.treeSize) &&
    head.rootHash instanceof Uint8Array &&
    head.rootHash.length === 32 &&
    Number.isSafeInteger(head.timeMs) &&
    typeof head.keyId === "string" &&
    head.signature instanceof Uint8Array &&
    head.signature.length === 64;
  if (!valid) throw new Error("log frame holds a malformed signed head");
  // msgpackr gives byte strings as views of the frame, whose buffer a log reader reuses for the next
  // frame: a head outlives its frame (the shard keeps its last one for snapshots), so it gets copies.
  const copied: SignedHead = { logId: head.logId, treeSize: head.treeSize, rootHash: Uint8Array.from(head.rootHash), timeMs: head.timeMs, keyId: head.keyId, signature: Uint8Array.from(head.signature) };
  const accepted = frame.a;
  if (accepted === undefined) return { head: copied };
  if (accepted === null || typeof accepted !== "object" || !Number.isSafeInteger(accepted.from) || accepted.from < 1 || accepted.from > head.treeSize) {
    throw new Error("log frame holds a malformed accepted tail");
  }
  return { head: copied, acceptedFrom: accepted.from };
}

/** A shard log entry, whichever kind it is. Command frames (nearly all of them) take the fast path. */
export function decodeLogEntry(payload: Uint8Array): LogEntry {
  if (isHeadFrame(payload)) return { kind: "head", ...decodeHeadFrame(payload) };
  return { kind: "command", logged: decodeLoggedCommand(payload) };
}
