/**
 * A log frame read without a general MessagePack decoder (decision I15), by the declared layouts of
 * the frame (logged-command-layout.ts) and of its command (engine/rules/types/command-layout.ts).
 *
 * Replay, a restart without a snapshot, the record builder and the audit CLI decode every frame of
 * a log, and nearly every frame of a storm's log is a claim. Every frame the service writes follows
 * the declared layouts, so the member names (and the constants: the version, the command type) are
 * known bytes: the reader, compiled from the declarations when this module loads, walks the
 * declared members of each map, compares the encoded name of each member with the next bytes, and
 * reads only the values, each by its declared kind.
 *
 * The log format is unchanged: these are the same plain MessagePack maps any decoder reads. This
 * reader accepts only the bytes whose meaning it knows exactly, and returns `undefined` for
 * anything else — members in another order or not declared, a value of another kind, a non-ASCII
 * string, a number in a form it does not read, trailing bytes, a payload that is not a Buffer — so
 * the caller decodes that frame with msgpackr. What it returns for a frame is what msgpackr (and
 * `restorePackedCommand`) return for it, members in the same order: test/runtime/
 * logged-frame-reader.test.ts checks that on frames of every command type and presence variant.
 */
import { Packr } from "msgpackr";
import { COMMAND_TYPES } from "@market-service/client/wire";
import { COMMAND_LAYOUTS } from "../rules/types/command-layout.js";
import { objectLiteralSource, type Layout } from "../rules/types/layout.js";
import { LOGGED_COMMAND_LAYOUT, type LoggedCommand } from "./logged-command-layout.js";

/** Reads one frame; every method returns undefined (or false, or -1) at the first byte it does not expect. */
class FrameCursor {
  position = 0;
  /** The last string `ascii` read, and where its bytes are. */
  private lastString = "";
  private lastStart = 0;

  constructor(readonly bytes: Buffer) {}

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
   * An ASCII string (fixstr, str8 or str16); undefined for any other form or any byte ≥ 0x80. When
   * its bytes are those of the string read last, that string is returned instead of a new copy (a
   * claim's actor is nearly always its principal).
   */
  ascii(): string | undefined {
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
    const last = this.lastString;
    if (length === last.length && this.equalsAt(start, this.lastStart, length)) {
      this.position = end;
      return last;
    }
    for (let i = start; i < end; i += 1) if ((bytes[i] as number) >= 0x80) return undefined;
    const text = bytes.toString("latin1", start, end);
    this.position = end;
    this.lastString = text;
    this.lastStart = start;
    return text;
  }

  private equalsAt(a: number, b: number, length: number): boolean {
    const bytes = this.bytes;
    for (let i = 0; i < length; i += 1) if (bytes[a + i] !== bytes[b + i]) return false;
    return true;
  }

  /** A number written as an integer (fixints, 8 to 32 bits, signed or not) or a float64; undefined for other forms. */
  number(): number | undefined {
    const bytes = this.bytes;
    const at = this.position;
    const head = bytes[at];
    if (head === undefined) return undefined;
    if (head <= 0x7f) {
      this.position = at + 1;
      return head;
    }
    if (head >= 0xe0) {
      this.position = at + 1;
      return head - 0x100;
    }
    const width = NUMBER_WIDTHS[head - 0xc0] ?? 0;
    if (width === 0 || at + 1 + width > bytes.length) return undefined;
    this.position = at + 1 + width;
    switch (head) {
      case 0xcb:
        return bytes.readDoubleBE(at + 1);
      case 0xcc:
        return bytes[at + 1] as number;
      case 0xcd:
        return bytes.readUInt16BE(at + 1);
      case 0xce:
        return bytes.readUInt32BE(at + 1);
      case 0xd0:
        return bytes.readInt8(at + 1);
      case 0xd1:
        return bytes.readInt16BE(at + 1);
      default:
        return bytes.readInt32BE(at + 1);
    }
  }
}

/** Bytes after the head of the number forms `number` reads, by head − 0xc0 (0: not read). */
const NUMBER_WIDTHS: readonly number[] = (() => {
  const widths = new Array<number>(0x20).fill(0);
  for (const [head, width] of [[0xcb, 8], [0xcc, 1], [0xcd, 2], [0xce, 4], [0xd0, 1], [0xd1, 2], [0xd2, 4]] as const) widths[head - 0xc0] = width;
  return widths;
})();

/** Packs names and constants with the log encoder's options (logged-command.ts). */
const constantPackr = new Packr({ useRecords: false, moreTypes: false });

function encoded(value: string | number): Uint8Array {
  return Uint8Array.from(constantPackr.pack(value));
}

function readJson(cursor: FrameCursor): unknown {
  const text = cursor.ascii();
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // msgpackr's path reports it
  }
}

/** Code being compiled: its constants (passed in as k0, k1, …) and a counter for unique variable names. */
interface Compilation {
  readonly constants: unknown[];
  next: number;
}

function constantRef(compilation: Compilation, value: unknown): string {
  return `k${compilation.constants.push(value) - 1}`;
}

/**
 * Code that reads the members of a map in `layout` (its header read: `n` members, `firstRead` of
 * them already) in declared order, optional ones possibly absent, each name compared with its
 * encoded bytes and each value read by its kind (a nested object's members inline), returning
 * undefined at the first byte that does not fit; then the object, by the layout's literals, in
 * `result`.
 */
function membersCode(compilation: Compilation, layout: Layout, n: string, firstRead: number): { lines: string[]; result: string } {
  const id = compilation.next++;
  const r = `r${id}`;
  const lines = [`let ${r} = ${firstRead};`];
  const variable = (i: number): string => `v${id}_${i}`;
  layout.forEach((member, i) => {
    if (i < firstRead) return;
    const read: string[] = [];
    switch (member.kind) {
      case "constant":
        read.push(`${variable(i)} = c.literal(${constantRef(compilation, encoded(member.value))}) ? ${JSON.stringify(member.value)} : undefined;`);
        break;
      case "string":
        read.push(`${variable(i)} = c.ascii();`);
        break;
      case "integer":
        read.push(`${variable(i)} = c.number();`);
        break;
      case "json":
        read.push(`${variable(i)} = ${constantRef(compilation, readJson)}(c);`);
        break;
      case "command":
        read.push(`${variable(i)} = ${constantRef(compilation, readCommand)}(c);`);
        break;
      case "object": {
        const count = `n${compilation.next}`; // the nested code's own id
        const nested = membersCode(compilation, member.layout, count, 0);
        read.push(`const ${count} = c.mapLength();`, `if (${count} < 0) return undefined;`, ...nested.lines, `${variable(i)} = ${nested.result};`);
        break;
      }
    }
    lines.push(`let ${variable(i)};`, `if (${r} < ${n} && c.literal(${constantRef(compilation, encoded(member.name))})) {`);
    lines.push(...read.map((line) => `  ${line}`));
    lines.push(`  if (${variable(i)} === undefined) return undefined;`, `  ${r} += 1;`, member.optional ? "}" : "} else return undefined;");
  });
  lines.push(`if (${r} !== ${n}) return undefined;`);
  return { lines, result: objectLiteralSource(layout, (_member, i) => (i < firstRead ? "undefined" : variable(i))) };
}

/**
 * A reader compiled from `layout` into straight-line code, as msgpackr compiles its record readers:
 * an interpreter looping over the declared members, with a call per member for its kind, gave back
 * much of what reading frames without msgpackr gains (bench:replay-frames). `(c, n)`: the map's
 * header read (`n` members) and its first `firstRead` members too.
 */
function compileMembersReader(layout: Layout, firstRead: number): (cursor: FrameCursor, n: number) => unknown {
  const compilation: Compilation = { constants: [], next: 0 };
  const { lines, result } = membersCode(compilation, layout, "n", firstRead);
  const names = compilation.constants.map((_value, i) => `k${i}`);
  const body = [...lines, `return ${result};`].join("\n");
  // Source made from our own declarations (names checked by objectLiteralSource), never from input.
  return new Function(...names, `"use strict"; return function read(c, n) {\n${body}\n};`)(...compilation.constants) as (cursor: FrameCursor, n: number) => unknown;
}

/**
 * Each command type's reader, after the encoded bytes of its first member (`type` and its value)
 * that name it: the reader starts after them (the constant is written in by the layout's literals).
 */
const COMMANDS = COMMAND_TYPES.map((type) => {
  const layout = COMMAND_LAYOUTS[type].members;
  const [first] = layout;
  return { head: Uint8Array.from([...encoded(first.name), ...encoded(first.value)]), read: compileMembersReader(layout, 1) };
});

/** The type of the last command read: a log holds runs of one type (claims), so it is tried first. */
let lastCommand = COMMANDS[0] as (typeof COMMANDS)[number];

/** A command: its first member is its type, which names its layout. */
function readCommand(cursor: FrameCursor): unknown {
  const n = cursor.mapLength();
  if (n < 1) return undefined;
  if (cursor.literal(lastCommand.head)) return lastCommand.read(cursor, n);
  for (const candidate of COMMANDS) {
    if (cursor.literal(candidate.head)) {
      lastCommand = candidate;
      return candidate.read(cursor, n);
    }
  }
  return undefined;
}

const readFrameMembers = compileMembersReader(LOGGED_COMMAND_LAYOUT, 0);

/** The logged command a frame holds, or undefined when the frame is not in the declared layouts as read here. */
export function readLoggedCommand(payload: Uint8Array): LoggedCommand | undefined {
  if (!Buffer.isBuffer(payload)) return undefined;
  const cursor = new FrameCursor(payload);
  const n = cursor.mapLength();
  const frame = n < 0 ? undefined : readFrameMembers(cursor, n);
  return frame !== undefined && cursor.atEnd ? (frame as LoggedCommand) : undefined;
}
