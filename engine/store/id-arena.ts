/**
 * Identifiers stored as bytes in one growable buffer instead of one JS string each: a market's
 * participant ids (commitment/table.ts). A hot market holds tens of thousands of them; as strings
 * each costs a heap object the GC copies, and a snapshot load decoded a million of them (GC was the
 * largest part of a start). Here a snapshot load copies one byte range.
 *
 * An id whose UTF-16 code units are all ≤ 0xFF is stored one byte per unit (Latin-1); any other id
 * two bytes per unit (UTF-16LE, lone surrogates included), so every JS string round-trips exactly.
 * A stored id is named by its byte offset and a signed unit count: negative for two-byte ids.
 */
import { assert } from "../rules/common/assert.js";
import { grownCapacity } from "./capacity.js";
import { FNV_OFFSET_BASIS, fmix32, fnv1aStep } from "./hash.js";

/** Bound on one id, in UTF-16 code units (the spec's identifiers are at most 128). */
export const MAX_ID_UNITS = 128;
/** Bound on one arena (byte offsets stay exact and Buffer-addressable). */
const MAX_ARENA_BYTES = 2 ** 31;
const FIRST_ARENA_BYTES = 128;
/** The arena grows ×4 up to this size, then ×2 (capacity.ts). */
const QUADRUPLE_BELOW_BYTES = 16 * 1024;
const EMPTY = Buffer.alloc(0);

/** FNV-1a over UTF-16 code units, finished with a murmur3 mix: cheap, well spread, deterministic. */
export function idHash(id: string): number {
  let h = FNV_OFFSET_BASIS;
  for (let i = 0; i < id.length; i += 1) h = fnv1aStep(h, id.charCodeAt(i));
  return fmix32(h);
}

function isLatin1(id: string): boolean {
  for (let i = 0; i < id.length; i += 1) if (id.charCodeAt(i) > 0xff) return false;
  return true;
}

/** Bytes an id with this signed unit count occupies. */
export function idBytes(units: number): number {
  return units < 0 ? -units * 2 : units;
}

export class IdArena {
  private bytes: Buffer = EMPTY;
  private used = 0;

  /** Bytes in use (stored ids end before this offset). */
  get sizeBytes(): number {
    return this.used;
  }

  /** Store an id; returns its byte offset and signed unit count. */
  append(id: string): { at: number; units: number } {
    assert(id.length >= 1 && id.length <= MAX_ID_UNITS, "stored ids are 1 to 128 code units");
    const latin1 = isLatin1(id);
    const size = latin1 ? id.length : id.length * 2;
    this.reserve(size);
    const at = this.used;
    if (latin1) {
      // Byte by byte: ids are at most 128 units, and a native Buffer.write costs more than this loop.
      const bytes = this.bytes;
      for (let i = 0; i < size; i += 1) bytes[at + i] = id.charCodeAt(i);
    } else {
      const written = this.bytes.write(id, at, size, "utf16le");
      assert(written === size, "an id is written whole");
    }
    this.used += size;
    return { at, units: latin1 ? id.length : -id.length };
  }

  /** The id stored at `at` with `units`. */
  read(at: number, units: number): string {
    return this.bytes.toString(units < 0 ? "utf16le" : "latin1", at, at + idBytes(units));
  }

  /** Whether the id stored at `at` is `id`, without making a string. */
  equals(at: number, units: number, id: string): boolean {
    const bytes = this.bytes;
    if (units >= 0) {
      if (id.length !== units) return false;
      for (let i = 0; i < units; i += 1) if (bytes[at + i] !== id.charCodeAt(i)) return false;
      return true;
    }
    if (id.length !== -units) return false;
    for (let i = 0; i < -units; i += 1) {
      const p = at + i * 2;
      if (((bytes[p] as number) | ((bytes[p + 1] as number) << 8)) !== id.charCodeAt(i)) return false;
    }
    return true;
  }

  /** `idHash` of the id stored at `at`, without making a string. */
  hash(at: number, units: number): number {
    const bytes = this.bytes;
    let h = FNV_OFFSET_BASIS;
    if (units >= 0) {
      for (let i = 0; i < units; i += 1) h = fnv1aStep(h, bytes[at + i] as number);
    } else {
      for (let i = 0; i < -units; i += 1) {
        const p = at + i * 2;
        h = fnv1aStep(h, (bytes[p] as number) | ((bytes[p + 1] as number) << 8));
      }
    }
    return fmix32(h);
  }

  /** Whether `at`/`units` names a whole stored range (for images read from a file). */
  holds(at: number, units: number): boolean {
    const length = Math.abs(units);
    return Number.isInteger(at) && Number.isInteger(units) && length >= 1 && length <= MAX_ID_UNITS && at >= 0 && at + idBytes(units) <= this.used;
  }

  /** A copy of the used bytes (`Uint8Array` slice: a Buffer's `slice` would be a view). */
  image(): Uint8Array {
    return Uint8Array.prototype.slice.call(this.bytes, 0, this.used);
  }

  /** An arena holding a copy of `bytes` (a view would keep a whole decoded snapshot alive). */
  static fromImage(bytes: Uint8Array): IdArena {
    assert(bytes.byteLength <= MAX_ARENA_BYTES, "an id arena is bounded");
    const arena = new IdArena();
    arena.bytes = Buffer.from(bytes);
    arena.used = bytes.byteLength;
    return arena;
  }

  private reserve(extraBytes: number): void {
    const needed = this.used + extraBytes;
    assert(needed <= MAX_ARENA_BYTES, "an id arena is bounded");
    if (needed <= this.bytes.length) return;
    const grown = Buffer.alloc(Math.min(grownCapacity(this.bytes.length, needed, FIRST_ARENA_BYTES, QUADRUPLE_BELOW_BYTES), MAX_ARENA_BYTES));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}
