/**
 * `sha256-canonical-json-v1` (spec §2.10): SHA-256 over the RFC 8785 (JCS) canonical JSON of a value,
 * written `sha256:<64 hex>`; hashing is node:crypto (pure computation, no I/O).
 *
 * The canonicalizer is ours: the `canonicalize` package (by the RFC's co-author) gives the same text
 * for every value (test/engine/canonical-json.test.ts checks random values against it), but it was
 * most of an audit replay's time (decision I1 has the figures): it scans every string in
 * JavaScript for lone surrogates, tracks cycles in a Set, and builds each object's text as its own
 * string. Here:
 * - one regular expression tells the (usual) strings that need neither escaping nor a surrogate
 *   check;
 * - a depth bound stands in for cycle tracking (a cycle has no serialisation either way; it fails
 *   with a clear message);
 * - the UTF-8 bytes are written into one reused buffer, and `canonicalHash` feeds the hash from it
 *   each time it fills, instead of building the record's whole text (~1.5 KB per command) as a
 *   string that is then flattened and encoded;
 * - an object's sorted member names come from a small cache keyed by its member names in their own
 *   order: a record repeats a handful of shapes (command, event, commitment) thousands of times,
 *   and sorting each one's names again was a third of the hashing time. The cache also keeps each
 *   name's `"name":` bytes, so a cached shape's names are copied rather than scanned again.
 *
 * RFC 8785 in short: object members sorted by their names' UTF-16 code units (what
 * `Array.prototype.sort` does by default), no whitespace, strings and numbers as ECMAScript's
 * JSON.stringify writes them, NaN, ±Infinity and lone surrogates refused.
 */
import { createHash, type Hash } from "node:crypto";
import { assert } from "./rules/common/assert.js";

export const RECORD_HASH_ALGORITHM = "sha256-canonical-json-v1";

/** Deeper than any record or client subject can be (the strict JSON parser bounds client input). */
const MAX_DEPTH = 1_000;
const ANY_SURROGATE = /[\uD800-\uDFFF]/;
/** A string that needs JSON escaping or a surrogate check; most ids and names need neither. */
const NEEDS_CARE = /["\\\u0000-\u001F\uD800-\uDFFF]/;
const QUOTE = 0x22;

function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return true;
    }
  }
  return false;
}

/** Bytes written between two hash updates (or kept per chunk of `canonicalJson`'s text). */
const CHUNK_BYTES = 64 * 1024;
/** Strings up to this many UTF-16 units are checked and copied in JavaScript (a native call costs more). */
const SHORT_STRING_UNITS = 32;

/** The writers' buffer, lent to one writer at a time (a value's `toJSON` may canonicalize too). */
let spareBuffer: Buffer | undefined = Buffer.allocUnsafe(CHUNK_BYTES);

/**
 * Where canonical bytes go: a buffer that, when full, is fed to the hash (canonicalHash) or decoded
 * and kept as text (canonicalJson).
 */
class CanonicalWriter {
  private readonly buffer: Buffer;
  private used = 0;
  private textSoFar = "";

  constructor(private readonly hash: Hash | undefined) {
    this.buffer = spareBuffer ?? Buffer.allocUnsafe(CHUNK_BYTES);
    spareBuffer = undefined;
  }

  /** Makes room for `bytes` more bytes (at most CHUNK_BYTES). */
  private room(bytes: number): void {
    if (this.used + bytes > CHUNK_BYTES) this.flush();
  }

  private flush(): void {
    if (this.used === 0) return;
    if (this.hash !== undefined) this.hash.update(this.buffer.subarray(0, this.used));
    else this.textSoFar += this.buffer.toString("utf8", 0, this.used);
    this.used = 0;
  }

  byte(code: number): void {
    this.room(1);
    this.buffer[this.used++] = code;
  }

  /** Bytes already in canonical form (a cached member name with its colon). */
  bytes(bytes: Uint8Array): void {
    const length = bytes.length;
    this.room(length);
    const buffer = this.buffer;
    let at = this.used;
    for (let i = 0; i < length; i++) buffer[at++] = bytes[i] as number;
    this.used = at;
  }

  /** A non-negative integer below 2^31 in decimal, as `String` writes it (-0 as "0"). */
  smallUint(value: number): void {
    this.room(10);
    const buffer = this.buffer;
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let at = this.used + digits;
    this.used = at;
    let rest = value;
    do {
      buffer[--at] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
  }

  /** ASCII text the writer itself produces (punctuation, literals, numbers). */
  ascii(text: string): void {
    const length = text.length;
    this.room(length);
    const buffer = this.buffer;
    let at = this.used;
    for (let i = 0; i < length; i++) buffer[at++] = text.charCodeAt(i);
    this.used = at;
  }

  /** Any well-formed text, UTF-8 encoded (at most 3 bytes per UTF-16 unit). */
  utf8(text: string): void {
    const length = text.length;
    if (length * 3 > CHUNK_BYTES) {
      // A long string (a client subject may hold one): hash or keep it whole, in order. Text is
      // only ever split between whole strings, so no character is cut in two.
      this.flush();
      if (this.hash !== undefined) this.hash.update(text, "utf8");
      else this.textSoFar += text;
      return;
    }
    this.room(length * 3);
    this.used += this.buffer.write(text, this.used, length * 3, "utf8");
  }

  /**
   * Writes a short string in quotes when it needs neither escaping nor a surrogate check (the one
   * scan both checks and copies); returns false, having written nothing, when it needs either.
   */
  plainShortString(text: string): boolean {
    const length = text.length;
    this.room(length * 3 + 2);
    const buffer = this.buffer;
    const start = this.used;
    let at = start + 1;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return false;
      if (code >= 0x80) {
        // Non-ASCII without surrogates: check the rest, then let the encoder write it all.
        for (let j = i + 1; j < length; j++) {
          const rest = text.charCodeAt(j);
          if (rest < 0x20 || rest === 0x22 || rest === 0x5c || (rest >= 0xd800 && rest <= 0xdfff)) return false;
        }
        buffer[start] = QUOTE;
        at = start + 1 + buffer.write(text, start + 1, length * 3, "utf8");
        buffer[at++] = QUOTE;
        this.used = at;
        return true;
      }
      buffer[at++] = code;
    }
    buffer[start] = QUOTE;
    buffer[at++] = QUOTE;
    this.used = at;
    return true;
  }

  /** `plainShortString` for longer text: a regular expression scans, the encoder copies. */
  plainLongString(text: string): boolean {
    if (NEEDS_CARE.test(text)) return false;
    this.byte(QUOTE);
    this.utf8(text);
    this.byte(QUOTE);
    return true;
  }

  /** Ends the writer: what is left goes to the hash, and the buffer back to the next writer. */
  finish(): string {
    this.flush();
    spareBuffer = this.buffer;
    return this.textSoFar;
  }
}

function writeString(out: CanonicalWriter, text: string): void {
  if (text.length <= SHORT_STRING_UNITS ? out.plainShortString(text) : out.plainLongString(text)) return;
  if (ANY_SURROGATE.test(text) && hasLoneSurrogate(text)) throw new Error("Lone surrogate is not allowed");
  out.utf8(JSON.stringify(text));
}

/**
 * An object shape's member names in RFC 8785 order, with each name already written as canonical
 * JSON followed by `:` (`heads`), so the names of a cached shape are copied, not scanned again.
 */
interface SortedShape {
  readonly names: readonly string[];
  readonly sorted: readonly string[];
  /** `"name":` as UTF-8 bytes, per sorted name. */
  readonly heads: readonly Uint8Array[];
}

/**
 * Sorted shapes, cached by the names in their own order. A shape is found by its first name and
 * then compared name by name (property names are internalized, so equal names are usually the same
 * string). Bounded: shapes past the limit (a client's free-form subject can have any) are simply
 * sorted each time.
 */
const SORTED_SHAPES = new Map<string, SortedShape[]>();
const MAX_CACHED_SHAPES = 512;
const MAX_SHAPES_PER_FIRST_NAME = 8;
const MAX_CACHED_NAMES = 64;
let cachedShapes = 0;

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `"name":` in canonical JSON, for a name that needs neither escaping nor a surrogate check. */
function headOf(name: string): Uint8Array {
  return Buffer.from(`"${name}":`, "utf8");
}

/** The cached shape of these names, or undefined (sorted names are then written one by one). */
function cachedShape(names: string[]): SortedShape | undefined {
  const first = names[0];
  if (first === undefined) return undefined;
  const shapes = SORTED_SHAPES.get(first);
  if (shapes !== undefined) {
    for (const shape of shapes) if (sameNames(shape.names, names)) return shape;
  }
  if (cachedShapes >= MAX_CACHED_SHAPES || names.length > MAX_CACHED_NAMES || (shapes?.length ?? 0) >= MAX_SHAPES_PER_FIRST_NAME) return undefined;
  // Only names written as they are: a name to escape (or to refuse) takes the general path.
  for (const name of names) if (NEEDS_CARE.test(name)) return undefined;
  const sorted = names.slice().sort();
  const shape: SortedShape = { names, sorted, heads: sorted.map(headOf) };
  if (shapes === undefined) SORTED_SHAPES.set(first, [shape]);
  else shapes.push(shape);
  cachedShapes += 1;
  return shape;
}

function writeValue(out: CanonicalWriter, value: unknown, depth: number): void {
  switch (typeof value) {
    case "string":
      writeString(out, value);
      return;
    case "number":
      if (Number.isNaN(value)) throw new Error("NaN is not allowed");
      if (!Number.isFinite(value)) throw new Error("Infinity is not allowed");
      // ECMAScript Number::toString, as JSON.stringify writes a finite number (-0 as "0"); the
      // counters and versions of a record are small non-negative integers, written digit by digit.
      if (value >= 0 && value <= 0x7fffffff && (value | 0) === value) out.smallUint(value);
      else out.ascii(String(value));
      return;
    case "boolean":
      out.ascii(value ? "true" : "false");
      return;
    case "object":
      break;
    default:
      // undefined, bigint, symbol, function: never part of a record or a command.
      throw new Error(`a ${typeof value} has no canonical JSON`);
  }
  if (value === null) {
    out.ascii("null");
    return;
  }
  if (depth >= MAX_DEPTH) throw new Error(`value nests deeper than ${MAX_DEPTH} levels (or refers to itself)`);
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === "function") {
    writeValue(out, toJson.call(value), depth + 1);
    return;
  }
  if (Array.isArray(value)) {
    out.byte(0x5b); // [
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) out.byte(0x2c); // ,
      if (item === undefined || typeof item === "symbol") out.ascii("null");
      else writeValue(out, item, depth + 1);
    }
    out.byte(0x5d); // ]
    return;
  }
  const record = value as Record<string, unknown>;
  const names = Object.keys(record);
  const shape = cachedShape(names);
  const keys = shape?.sorted ?? names.sort();
  out.byte(0x7b); // {
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = record[key];
    if (member === undefined || typeof member === "symbol") continue;
    if (!first) out.byte(0x2c); // ,
    if (shape !== undefined) {
      out.bytes(shape.heads[i] as Uint8Array);
    } else {
      writeString(out, key);
      out.byte(0x3a); // :
    }
    writeValue(out, member, depth + 1);
    first = false;
  }
  out.byte(0x7d); // }
}

export function canonicalJson(value: unknown): string {
  assert(value !== undefined, "canonical JSON of a defined value");
  const out = new CanonicalWriter(undefined);
  writeValue(out, value, 0);
  return out.finish();
}

export function canonicalHash(value: unknown): string {
  assert(value !== undefined, "canonical JSON of a defined value");
  const hash = createHash("sha256");
  const out = new CanonicalWriter(hash);
  writeValue(out, value, 0);
  out.finish();
  return `sha256:${hash.digest("hex")}`;
}
