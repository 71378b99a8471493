/**
 * A log frame read without a general MessagePack decoder (decision I15), by the declared layouts of
 * the frame (logged-command-layout.ts) and of its command (engine/rules/types/command-layout.ts).
 *
 * Replay, a restart without a snapshot, the record builder and the audit CLI decode every frame of
 * a log, and nearly every frame of a storm's log is a claim. Every frame the service writes follows
 * the declared layouts, so the member names (and the constants: the version, the command type) are
 * known bytes: the reader walks the declared members of each map, compares the encoded name of each
 * member with the next bytes, and reads only the values, each by its declared kind.
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
import { COMMAND_TYPES } from "../rules/types/command.js";
import { COMMAND_LAYOUTS } from "../rules/types/command-layout.js";
import { compilePositionalBuilder, type Layout, type Member } from "../rules/types/layout.js";
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

/** One declared member, compiled: its encoded name, and how its value is read (undefined: not readable here). */
interface Step {
  readonly name: Uint8Array;
  readonly optional: boolean;
  readonly read: (cursor: FrameCursor) => unknown;
}

/** A declared layout, compiled: its members in order, and the builder of its objects from the values read. */
interface CompiledLayout {
  readonly steps: readonly Step[];
  readonly build: (values: readonly unknown[]) => unknown;
  /** Scratch for the values of one object (a layout never contains itself, so one per layout does). */
  readonly values: unknown[];
}

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

function readerOf(member: Member): (cursor: FrameCursor) => unknown {
  switch (member.kind) {
    case "constant": {
      const bytes = encoded(member.value);
      const value = member.value;
      return (cursor) => (cursor.literal(bytes) ? value : undefined);
    }
    case "string":
      return (cursor) => cursor.ascii();
    case "integer":
      return (cursor) => cursor.number();
    case "json":
      return readJson;
    case "object": {
      const nested = compile(member.layout);
      return (cursor) => readObject(cursor, nested);
    }
    case "command":
      return readCommand;
  }
}

const compiled = new Map<Layout, CompiledLayout>();

function compile(layout: Layout): CompiledLayout {
  let done = compiled.get(layout);
  if (done === undefined) {
    done = {
      steps: layout.map((member) => ({ name: encoded(member.name), optional: member.optional, read: readerOf(member) })),
      build: compilePositionalBuilder(layout),
      values: new Array<unknown>(layout.length).fill(undefined),
    };
    compiled.set(layout, done);
  }
  return done;
}

/** A map whose members are those of `layout`, in its order (optional ones may be absent); undefined otherwise. */
function readObject(cursor: FrameCursor, layout: CompiledLayout): unknown {
  const count = cursor.mapLength();
  if (count < 0) return undefined;
  const { steps, values } = layout;
  let read = 0;
  for (let i = 0; i < steps.length; i += 1) {
    const step = steps[i] as Step;
    if (read < count && cursor.literal(step.name)) {
      const value = step.read(cursor);
      if (value === undefined) return undefined;
      values[i] = value;
      read += 1;
    } else if (step.optional) {
      values[i] = undefined;
    } else {
      return undefined;
    }
  }
  return read === count ? layout.build(values) : undefined;
}

const TYPE = encoded("type");
const COMMANDS = new Map<string, CompiledLayout>(COMMAND_TYPES.map((type) => [type, compile(COMMAND_LAYOUTS[type].members)]));

/** A command: its first member is its type, which names its layout. */
function readCommand(cursor: FrameCursor): unknown {
  const start = cursor.position;
  if (cursor.mapLength() < 1 || !cursor.literal(TYPE)) return undefined;
  const type = cursor.ascii();
  const layout = type === undefined ? undefined : COMMANDS.get(type);
  if (layout === undefined) return undefined;
  cursor.position = start;
  return readObject(cursor, layout);
}

const FRAME = compile(LOGGED_COMMAND_LAYOUT);

/** The logged command a frame holds, or undefined when the frame is not in the declared layouts as read here. */
export function readLoggedCommand(payload: Uint8Array): LoggedCommand | undefined {
  if (!Buffer.isBuffer(payload)) return undefined;
  const cursor = new FrameCursor(payload);
  const frame = readObject(cursor, FRAME);
  return frame !== undefined && cursor.atEnd ? (frame as LoggedCommand) : undefined;
}
