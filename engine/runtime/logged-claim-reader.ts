/**
 * A direct claim's log frame read without a general MessagePack decoder (decision I15).
 *
 * Claims are nearly every frame of a storm's log, and every claim frame has the same layout: the
 * map `encodeLoggedCommand` writes for `{ v, f, c }`, its command built by the gateway with one
 * literal (`buildMarketCommand` in market-api.ts) and stamped by the shard, so its member names
 * come in one order. If that literal changes, claims fall back to msgpackr (correct, but slower):
 * the test that reads frames a real shard wrote from the gateway's builder fails first. Replay,
 * a restart without a snapshot, the record builder and the audit CLI decode every one of them.
 * Here the constant parts (member names, the command type) are compared byte for byte against that
 * layout and only the variable parts (five strings, one or two numbers) are read.
 *
 * The log format is unchanged: these are the same plain MessagePack maps any decoder reads. This
 * reader accepts only the bytes whose meaning it knows exactly, and returns `undefined` for
 * anything else — another command type, another member order, an authority refusal, a `r`
 * member, a non-ASCII string, a number in a form it does not read — so the caller decodes that
 * frame with msgpackr. What it returns for a frame is what msgpackr returns for it (the test
 * compares them on generated frames of every shape).
 */
import { Packr } from "msgpackr";
import type { DirectClaimCommand } from "../rules/types/command.js";

/** Packs the layout's constant strings with the log encoder's options. */
const constantPackr = new Packr({ useRecords: false, moreTypes: false });

/** The MessagePack encoding of a string, as the log's encoder writes it. */
function encoded(text: string): Uint8Array {
  return Uint8Array.from(constantPackr.pack(text));
}

const V = encoded("v");
const F = encoded("f");
const C = encoded("c");
const TYPE = encoded("type");
const CLAIM_TYPE = encoded("direct_claim.submit");
const COMMAND_ID = encoded("commandId");
const IDENTITY = encoded("identity");
const PRINCIPAL_ID = encoded("principalId");
const ACTOR_ID = encoded("actorId");
const OCCURRED_AT_MS = encoded("occurredAtMs");
const MARKET_ID = encoded("marketId");
const EXPECTED_VERSION = encoded("expectedVersion");
/** `LOGGED_COMMAND_VERSION` as a positive fixint. */
const VERSION_1 = 0x01;

/** A claim frame as `decodeLoggedCommand` returns it. */
export interface LoggedClaim {
  v: 1;
  f?: string;
  c: DirectClaimCommand;
}

/** Reads one frame; every method returns undefined (or false) at the first byte it does not expect. */
class FrameCursor {
  position = 0;
  /** Where the last string read by `ascii` starts. */
  private lastStart = 0;

  constructor(private readonly bytes: Buffer) {}

  get atEnd(): boolean {
    return this.position === this.bytes.length;
  }

  /** The next bytes are exactly `expected`: step over them. */
  literal(expected: Uint8Array): boolean {
    const bytes = this.bytes;
    const start = this.position;
    const length = expected.length;
    if (start + length > bytes.length) return false;
    for (let i = 0; i < length; i += 1) if (bytes[start + i] !== expected[i]) return false;
    this.position = start + length;
    return true;
  }

  /** A map header (fixmap or map16): its entry count, or -1. */
  mapLength(): number {
    const bytes = this.bytes;
    const at = this.position;
    const head = bytes[at];
    if (head === undefined) return -1;
    if (head >= 0x80 && head <= 0x8f) {
      this.position = at + 1;
      return head & 0x0f;
    }
    if (head === 0xde && at + 3 <= bytes.length) {
      this.position = at + 3;
      return ((bytes[at + 1] as number) << 8) | (bytes[at + 2] as number);
    }
    return -1;
  }

  /**
   * An ASCII string (fixstr, str8 or str16); undefined for any other form or any byte ≥ 0x80.
   * `same`: the string this cursor read last; when these bytes are its bytes, it is returned
   * instead of a new copy (a claim's actor is nearly always its principal).
   */
  ascii(same?: string): string | undefined {
    const bytes = this.bytes;
    const at = this.position;
    const head = bytes[at];
    let start: number;
    let length: number;
    if (head === undefined) return undefined;
    if (head >= 0xa0 && head <= 0xbf) {
      start = at + 1;
      length = head & 0x1f;
    } else if (head === 0xd9 && at + 2 <= bytes.length) {
      start = at + 2;
      length = bytes[at + 1] as number;
    } else if (head === 0xda && at + 3 <= bytes.length) {
      start = at + 3;
      length = ((bytes[at + 1] as number) << 8) | (bytes[at + 2] as number);
    } else {
      return undefined;
    }
    const end = start + length;
    if (end > bytes.length) return undefined;
    if (same !== undefined && length === same.length && this.equalsAt(start, this.lastStart, length)) {
      this.position = end;
      return same;
    }
    for (let i = start; i < end; i += 1) if ((bytes[i] as number) >= 0x80) return undefined;
    this.position = end;
    this.lastStart = start;
    return bytes.toString("latin1", start, end);
  }

  private equalsAt(a: number, b: number, length: number): boolean {
    const bytes = this.bytes;
    for (let i = 0; i < length; i += 1) if (bytes[a + i] !== bytes[b + i]) return false;
    return true;
  }

  /** A non-negative integer (positive fixint, uint8/16/32) or a float64; undefined for other forms. */
  number(): number | undefined {
    const bytes = this.bytes;
    const at = this.position;
    const head = bytes[at];
    if (head === undefined) return undefined;
    if (head <= 0x7f) {
      this.position = at + 1;
      return head;
    }
    const width = head === 0xcb ? 8 : head === 0xcc ? 1 : head === 0xcd ? 2 : head === 0xce ? 4 : 0;
    if (width === 0 || at + 1 + width > bytes.length) return undefined;
    this.position = at + 1 + width;
    switch (head) {
      case 0xcb:
        return bytes.readDoubleBE(at + 1);
      case 0xcc:
        return bytes[at + 1] as number;
      case 0xcd:
        return bytes.readUInt16BE(at + 1);
      default:
        return bytes.readUInt32BE(at + 1);
    }
  }
}

/** The claim a frame holds, or undefined when the frame is not in the one layout read here. */
export function readLoggedClaim(payload: Uint8Array): LoggedClaim | undefined {
  if (!Buffer.isBuffer(payload)) return undefined;
  const cursor = new FrameCursor(payload);
  const entries = cursor.mapLength();
  if (entries !== 2 && entries !== 3) return undefined;
  if (!cursor.literal(V) || payload[cursor.position] !== VERSION_1) return undefined;
  cursor.position += 1;
  let fingerprint: string | undefined;
  if (entries === 3) {
    if (!cursor.literal(F)) return undefined;
    fingerprint = cursor.ascii();
    if (fingerprint === undefined) return undefined;
  }
  if (!cursor.literal(C)) return undefined;
  const members = cursor.mapLength();
  if (members !== 5 && members !== 6) return undefined;
  // The gateway's literal (market-api.ts): type, marketId, [expectedVersion], commandId, identity,
  // occurredAtMs (a placeholder the shard's stamp replaces in place).
  if (!cursor.literal(TYPE) || !cursor.literal(CLAIM_TYPE) || !cursor.literal(MARKET_ID)) return undefined;
  const marketId = cursor.ascii();
  if (marketId === undefined) return undefined;
  let expectedVersion: number | undefined;
  if (members === 6) {
    if (!cursor.literal(EXPECTED_VERSION)) return undefined;
    expectedVersion = cursor.number();
    if (expectedVersion === undefined) return undefined;
  }
  if (!cursor.literal(COMMAND_ID)) return undefined;
  const commandId = cursor.ascii();
  if (commandId === undefined || !cursor.literal(IDENTITY) || cursor.mapLength() !== 2 || !cursor.literal(PRINCIPAL_ID)) return undefined;
  const principalId = cursor.ascii();
  if (principalId === undefined || !cursor.literal(ACTOR_ID)) return undefined;
  const actorId = cursor.ascii(principalId);
  if (actorId === undefined || !cursor.literal(OCCURRED_AT_MS)) return undefined;
  const occurredAtMs = cursor.number();
  if (occurredAtMs === undefined) return undefined;
  const command: DirectClaimCommand =
    expectedVersion === undefined
      ? { type: "direct_claim.submit", marketId, commandId, identity: { principalId, actorId }, occurredAtMs }
      : { type: "direct_claim.submit", marketId, expectedVersion, commandId, identity: { principalId, actorId }, occurredAtMs };
  if (!cursor.atEnd) return undefined;
  return fingerprint === undefined ? { v: VERSION_1, c: command } : { v: VERSION_1, f: fingerprint, c: command };
}
