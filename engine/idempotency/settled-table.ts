/**
 * The finished entries of the idempotency index, kept in typed arrays instead of one JS object and
 * two strings per entry.
 *
 * Why: the index holds one entry per command ever executed and is never pruned (a retry may come at
 * any time), so at 10M commands a Map of objects cost 165 B per entry and a start had to decode 10M
 * entries from MessagePack into objects (26 s measured). Here an entry is a few column cells and its
 * key bytes, with no object the garbage collector has to trace, and the snapshot of the table is the
 * table's own bytes (engine/idempotency/index-snapshot.ts), so a start copies pages and re-inserts
 * stored hashes instead of parsing.
 *
 * Layout:
 * - Entry columns, in pages of ENTRIES_PER_PAGE so growth never copies them: the key's hash, where
 *   its record is in the arena (`keyRef`), the owner (shard index, or IDENTITY_OWNER) and the log
 *   position (float64: positions are byte offsets below 2^53).
 * - The arena: pages of ARENA_PAGE_BYTES holding one record per entry:
 *   [actor length - 1 | WIDE][command length - 1][fingerprint length][actor][command][fingerprint].
 *   Identifiers are 1-128 UTF-16 code units (decision D10); they are stored one byte per unit when
 *   every unit is below 256 (all ids seen in practice) and two bytes per unit (WIDE) otherwise.
 *   A record never spans pages. `keyRef` = page * ARENA_PAGE_BYTES + offset, a uint32.
 * - The hash table: open addressing with linear probing over a Uint32Array whose slots hold
 *   (entry + 1) in the low INDEX_BITS and the top bits of the entry's hash as a tag, so most
 *   non-matching slots are rejected without touching the entry columns. 0 is an empty slot.
 *
 * The key hash is a seeded MurMur3-style hash of the code units; the seed is random per index (and
 * carried by its snapshot), like V8's own string hash seed, so ids chosen by a client cannot be
 * aimed at one probe chain on another instance.
 */
import { randomBytes } from "node:crypto";
import { ok as assert } from "node:assert/strict";
import { fmix32, murmurStep } from "../store/hash.js";

export const ENTRIES_PER_PAGE = 1 << 14;
export const ARENA_PAGE_BYTES = 1 << 20;
const ENTRY_PAGE_SHIFT = 14;
const ENTRY_IN_PAGE_MASK = ENTRIES_PER_PAGE - 1;
const ARENA_PAGE_SHIFT = 20;
const ARENA_OFFSET_MASK = ARENA_PAGE_BYTES - 1;
/** keyRef must fit a uint32: 4096 pages of 1 MiB = 4 GiB of records (about 60M entries). */
const MAX_ARENA_PAGES = 2 ** 32 / ARENA_PAGE_BYTES;
const INDEX_BITS = 27;
/** Bound on entries: (entry + 1) must fit INDEX_BITS beside the tag. */
export const MAX_ENTRIES = 2 ** INDEX_BITS - 1;
const INDEX_MASK = 2 ** INDEX_BITS - 1;
const TAG_SHIFT = INDEX_BITS;
const INITIAL_SLOTS = 1 << 10;
/** Grow the table past this load: linear probing stays short (about 8 probes for a miss at 0.75). */
const MAX_LOAD = 0.75;
/** Identifier bound (decision D10); the record header stores length - 1 in 7 bits. */
export const MAX_ID_UNITS = 128;
const MAX_FINGERPRINT_CHARS = 255;
const WIDE = 0x80;
const RECORD_HEADER_BYTES = 3;
/** The owner column's value for commands owned by the identity store (shards are 0..254). */
export const IDENTITY_OWNER = 255;

/**
 * The table as bytes, in the order `importImage` reads them (see index-snapshot.ts): positions
 * (float64 × count), hashes (uint32 × count), keyRefs (uint32 × count), the hash table's slots
 * (uint32 × slotCount), owners (uint8 × count), then the arena pages. Wider columns come first so
 * that a body starting 8-byte aligned has every column aligned and can be adopted without a copy.
 */
export interface SettledTableImage {
  seed: number;
  count: number;
  slotCount: number;
  arenaPages: number;
  /** Bytes used in the last arena page (the other pages are whole). */
  lastArenaPageBytes: number;
  parts: Uint8Array[];
}

export type SettledTableImageHeader = Omit<SettledTableImage, "parts">;

/** Where an image of a table ended: its entry count and the end of its arena (what a continuation starts from). */
export type SettledTableMark = Pick<SettledTableImage, "count" | "arenaPages" | "lastArenaPageBytes">;

/**
 * The entries a table added after an earlier image of it (`from`), as bytes a table holding exactly
 * that image's entries takes with `appendImage`: positions (float64), hashes (uint32), keyRefs
 * (uint32) and owners (uint8) of entries `from.count` to `count`, then the arena from where `from`'s
 * ended to where this one ends. No slots: the reader places the added entries itself.
 */
export interface SettledTableContinuation extends SettledTableMark {
  seed: number;
  from: SettledTableMark;
  parts: Uint8Array[];
}

export type SettledTableContinuationHeader = Omit<SettledTableContinuation, "parts">;

/** Where `image` (an image, a continuation, or either's header) ends, and nothing else of it (not its parts). */
export function markOf(image: SettledTableMark): SettledTableMark {
  return { count: image.count, arenaPages: image.arenaPages, lastArenaPageBytes: image.lastArenaPageBytes };
}

/** Where an empty table ends: an image's arena runs from here. */
const EMPTY_MARK: SettledTableMark = { count: 0, arenaPages: 0, lastArenaPageBytes: 0 };

/** The arena's bytes between two marks, page by page: which bytes of which page (an image's: from EMPTY_MARK). */
function arenaSpans(from: SettledTableMark, to: SettledTableMark): Array<{ page: number; start: number; end: number }> {
  const spans: Array<{ page: number; start: number; end: number }> = [];
  for (let page = Math.max(0, from.arenaPages - 1); page < to.arenaPages; page += 1) {
    const start = page === from.arenaPages - 1 ? from.lastArenaPageBytes : 0;
    const end = page === to.arenaPages - 1 ? to.lastArenaPageBytes : ARENA_PAGE_BYTES;
    spans.push({ page, start, end });
  }
  return spans;
}

/** Where a stored body's entry columns start (bytes), for `forEachStoredEntry`. */
interface StoredColumns {
  positions: number;
  hashes: number;
  keyRefs: number;
  owners: number;
}

/** Byte offsets of an image body's sections. */
function imageLayout(header: SettledTableImageHeader) {
  const n = header.count;
  const positions = 0;
  const hashes = positions + 8 * n;
  const keyRefs = hashes + 4 * n;
  const slots = keyRefs + 4 * n;
  const owners = slots + 4 * header.slotCount;
  const arena = owners + n;
  const arenaBytes = header.arenaPages === 0 ? 0 : (header.arenaPages - 1) * ARENA_PAGE_BYTES + header.lastArenaPageBytes;
  return { positions, hashes, keyRefs, slots, owners, arena, total: arena + arenaBytes };
}


/** MurMur3's finish over the mixed units, with their count folded in first; unsigned. */
function finish(hash: number, units: number): number {
  return fmix32(hash ^ units) >>> 0;
}

/** Mixed between the two ids: not a UTF-16 code unit, so ("ab","c") and ("a","bc") differ. */
const SEPARATOR_UNIT = 0x10000;

function isNarrow(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

export class SettledTable {
  private seed: number;
  private count = 0;
  private slots = new Uint32Array(INITIAL_SLOTS);
  private readonly hashPages: Uint32Array[] = [];
  private readonly keyRefPages: Uint32Array[] = [];
  private readonly ownerPages: Uint8Array[] = [];
  private readonly positionPages: Float64Array[] = [];
  private readonly arena: Uint8Array[] = [];
  /** Bytes used in the last arena page (a full "used" forces a new page on the first insert). */
  private arenaUsed = ARENA_PAGE_BYTES;

  constructor(seed: number = randomBytes(4).readUInt32LE(0)) {
    assert(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff, "settled table: seed must be a uint32");
    this.seed = seed;
  }

  get size(): number {
    return this.count;
  }

  hashOf(actorId: string, commandId: string): number {
    let h = this.seed | 0;
    for (let i = 0; i < actorId.length; i += 1) h = murmurStep(h, actorId.charCodeAt(i));
    h = murmurStep(h, SEPARATOR_UNIT);
    for (let i = 0; i < commandId.length; i += 1) h = murmurStep(h, commandId.charCodeAt(i));
    return finish(h, actorId.length + commandId.length);
  }

  /** The entry holding (actorId, commandId) whose hash is `hash`, or -1. */
  find(actorId: string, commandId: string, hash: number): number {
    const mask = this.slots.length - 1;
    const tag = hash >>> TAG_SHIFT;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const value = this.slots[slot] as number;
      if (value === 0) return -1;
      if (value >>> TAG_SHIFT !== tag) continue;
      const entry = (value & INDEX_MASK) - 1;
      if (this.hashAt(entry) === hash && this.keyEquals(this.keyRefAt(entry), actorId, commandId)) return entry;
    }
  }

  fingerprintIs(entry: number, fingerprint: string): boolean {
    const ref = this.keyRefAt(entry);
    const page = this.arena[ref >>> ARENA_PAGE_SHIFT] as Uint8Array;
    const at = ref & ARENA_OFFSET_MASK;
    if ((page[at + 2] as number) !== fingerprint.length) return false;
    const start = fingerprintStart(page, at);
    for (let i = 0; i < fingerprint.length; i += 1) if (page[start + i] !== fingerprint.charCodeAt(i)) return false;
    return true;
  }

  ownerAt(entry: number): number {
    return (this.ownerPages[entry >>> ENTRY_PAGE_SHIFT] as Uint8Array)[entry & ENTRY_IN_PAGE_MASK] as number;
  }

  positionAt(entry: number): number {
    return (this.positionPages[entry >>> ENTRY_PAGE_SHIFT] as Float64Array)[entry & ENTRY_IN_PAGE_MASK] as number;
  }

  /** Add an entry known to be absent (`find` returned -1 under the same seed). */
  insert(actorId: string, commandId: string, hash: number, fingerprint: string, owner: number, position: number): void {
    assert(actorId.length >= 1 && actorId.length <= MAX_ID_UNITS && commandId.length >= 1 && commandId.length <= MAX_ID_UNITS, "idempotency key: ids must be 1-128 code units");
    assert(fingerprint.length <= MAX_FINGERPRINT_CHARS && isNarrow(fingerprint), "idempotency key: fingerprint must be at most 255 one-byte characters");
    assert(Number.isInteger(owner) && owner >= 0 && owner <= IDENTITY_OWNER, "idempotency entry: owner out of range");
    assert(Number.isSafeInteger(position) && position >= 0, "idempotency entry: position must be a safe non-negative integer");
    const wide = !isNarrow(actorId) || !isNarrow(commandId);
    const unitBytes = wide ? 2 : 1;
    const recordBytes = RECORD_HEADER_BYTES + unitBytes * (actorId.length + commandId.length) + fingerprint.length;
    const ref = this.reserveRecord(recordBytes);
    const page = this.arena[ref >>> ARENA_PAGE_SHIFT] as Uint8Array;
    let at = ref & ARENA_OFFSET_MASK;
    page[at] = (actorId.length - 1) | (wide ? WIDE : 0);
    page[at + 1] = commandId.length - 1;
    page[at + 2] = fingerprint.length;
    at += RECORD_HEADER_BYTES;
    at = writeUnits(page, at, actorId, wide);
    at = writeUnits(page, at, commandId, wide);
    for (let i = 0; i < fingerprint.length; i += 1) page[at + i] = fingerprint.charCodeAt(i);
    this.appendEntry(hash, ref, owner, position);
  }

  /**
   * The table's bytes for a snapshot. Whole pages are immutable once filled and are shared, not
   * copied; the partly filled last pages are copied, so entries added while the snapshot is written
   * do not change it.
   */
  image(): SettledTableImage {
    const end = this.mark();
    // The slots change with every insert: copied (four bytes per slot).
    const slots = end.count === 0 ? new Uint32Array(0) : this.slots.slice();
    return {
      seed: this.seed,
      ...end,
      slotCount: slots.length,
      parts: [...this.columnSince(this.positionPages, 0), ...this.columnSince(this.hashPages, 0), ...this.columnSince(this.keyRefPages, 0), bytesOf(slots), ...this.columnSince(this.ownerPages, 0), ...this.arenaSince(EMPTY_MARK, end)],
    };
  }

  /**
   * The entries added since the image that ended at `from` (SettledTableContinuation). Full pages
   * are shared, the last partial ones copied, as `image` does.
   */
  imageSince(from: SettledTableMark): SettledTableContinuation {
    const end = this.mark();
    assert(from.count <= end.count && from.arenaPages <= this.arena.length, "idempotency image: a continuation from a later table");
    const columns = [this.positionPages, this.hashPages, this.keyRefPages, this.ownerPages].flatMap((pages) => this.columnSince(pages, from.count));
    return { seed: this.seed, from: { ...from }, ...end, parts: [...columns, ...this.arenaSince(from, end)] };
  }

  /** Where the table ends now: an image taken now ends here. */
  private mark(): SettledTableMark {
    const arenaPages = this.count === 0 ? 0 : this.arena.length;
    return { count: this.count, arenaPages, lastArenaPageBytes: arenaPages === 0 ? 0 : this.arenaUsed };
  }

  /** One column's cells from entry `from` to the end, as bytes: whole pages shared (they never change), the partly filled last one copied. */
  private columnSince(pages: ReadonlyArray<Column>, from: number): Uint8Array[] {
    const count = this.count;
    const fullPages = count >>> ENTRY_PAGE_SHIFT;
    const parts: Uint8Array[] = [];
    for (let first = from - (from & ENTRY_IN_PAGE_MASK); first < count; first += ENTRIES_PER_PAGE) {
      const page = first >>> ENTRY_PAGE_SHIFT;
      const start = Math.max(from, first) - first;
      const end = Math.min(count, first + ENTRIES_PER_PAGE) - first;
      const column = pages[page] as Column;
      parts.push(bytesOf(page < fullPages ? column.subarray(start, end) : column.slice(start, end)));
    }
    return parts;
  }

  /** The arena's bytes between two marks, the second this table's end: whole pages shared, the last copied. */
  private arenaSince(from: SettledTableMark, end: SettledTableMark): Uint8Array[] {
    return arenaSpans(from, end).map(({ page, start, end: stop }) => {
      const bytes = this.arena[page] as Uint8Array;
      return page + 1 < end.arenaPages ? bytes.subarray(start, stop) : bytes.slice(start, stop);
    });
  }

  /**
   * Each entry of a stored body (an image's or a continuation's), its columns read through aligned
   * scratch copies a page at a time, refused if identity-owned or if its key (moved by `refShift`)
   * lies outside the arena; `what` names the body in the error.
   */
  private static forEachStoredEntry(
    body: Uint8Array,
    n: number,
    at: StoredColumns,
    arena: { refShift: number; limit: number },
    what: string,
    visit: (hash: number, ref: number, owner: number, position: number) => void,
  ): void {
    const hashes = new Uint32Array(ENTRIES_PER_PAGE);
    const keyRefs = new Uint32Array(ENTRIES_PER_PAGE);
    const positions = new Float64Array(ENTRIES_PER_PAGE);
    for (let first = 0; first < n; first += ENTRIES_PER_PAGE) {
      const m = Math.min(ENTRIES_PER_PAGE, n - first);
      bytesOf(positions).set(body.subarray(at.positions + 8 * first, at.positions + 8 * (first + m)));
      bytesOf(hashes).set(body.subarray(at.hashes + 4 * first, at.hashes + 4 * (first + m)));
      bytesOf(keyRefs).set(body.subarray(at.keyRefs + 4 * first, at.keyRefs + 4 * (first + m)));
      for (let i = 0; i < m; i += 1) {
        const owner = body[at.owners + first + i] as number;
        if (owner === IDENTITY_OWNER) throw new Error(`idempotency ${what}: an identity-owned entry`);
        const ref = (keyRefs[i] as number) + arena.refShift;
        if (ref >= arena.limit) throw new Error(`idempotency ${what}: a key outside the arena`);
        visit(hashes[i] as number, ref, owner, positions[i] as number);
      }
    }
  }

  /**
   * Add a continuation's entries to a table that holds exactly the entries of the image it continues
   * (`imageSince`): its arena bytes after the table's, its entries placed one by one, each checked
   * as an image's are (its key inside the arena, not identity-owned).
   */
  appendImage(header: SettledTableContinuationHeader, body: Uint8Array): number {
    const n = header.count - header.from.count;
    const currentArenaEnd = this.arena.length === 0 ? 0 : this.arenaUsed;
    assert(header.seed === this.seed, "idempotency continuation: another hash seed than the image it continues");
    assert(header.from.count === this.count && header.from.arenaPages === this.arena.length && header.from.lastArenaPageBytes === currentArenaEnd, "idempotency continuation: it continues another image than this table holds");
    assert(Number.isInteger(n) && n >= 0 && header.count <= MAX_ENTRIES, "idempotency continuation: bad entry count");
    assert(Number.isInteger(header.arenaPages) && header.arenaPages >= header.from.arenaPages && header.arenaPages <= MAX_ARENA_PAGES, "idempotency continuation: bad page count");
    assert(Number.isInteger(header.lastArenaPageBytes) && header.lastArenaPageBytes >= 0 && header.lastArenaPageBytes <= ARENA_PAGE_BYTES, "idempotency continuation: bad last page size");
    const spans = arenaSpans(header.from, header);
    const owners = 16 * n;
    const arena = owners + n;
    const total = spans.reduce((sum, { start, end }) => sum + Math.max(0, end - start), arena);
    assert(spans.every(({ start, end }) => start <= end) && body.length === total, `idempotency continuation: ${body.length} bytes, expected ${total}`);
    let at = arena;
    for (const { page, start, end } of spans) {
      if (page === this.arena.length) this.arena.push(new Uint8Array(ARENA_PAGE_BYTES));
      (this.arena[page] as Uint8Array).set(body.subarray(at, at + end - start), start);
      at += end - start;
    }
    this.arenaUsed = header.arenaPages === 0 ? ARENA_PAGE_BYTES : header.lastArenaPageBytes;
    const limit = header.arenaPages === 0 ? 0 : (header.arenaPages - 1) * ARENA_PAGE_BYTES + header.lastArenaPageBytes;
    const columns: StoredColumns = { positions: 0, hashes: 8 * n, keyRefs: 12 * n, owners };
    SettledTable.forEachStoredEntry(body, n, columns, { refShift: 0, limit }, "continuation", (hash, ref, owner, position) => this.appendEntry(hash, ref, owner, position));
    return n;
  }

  /**
   * Add the entries of an image (laid out as `image()` writes its parts; identity-owned entries
   * are refused: they are rebuilt from the identity log). Into an empty table the image is adopted as it is: its columns, slots and
   * arena pages become the table's (views of `body` when it is 8-byte aligned, so a start copies
   * nothing but the partly filled last pages). Otherwise each entry is added; a key already present
   * is skipped when its fingerprint is the same and refused when it differs. Returns the number of
   * entries added.
   */
  importImage(header: SettledTableImageHeader, body: Uint8Array): number {
    const n = header.count;
    assert(Number.isInteger(n) && n >= 0 && n <= MAX_ENTRIES, "idempotency image: bad entry count");
    assert(Number.isInteger(header.slotCount) && header.slotCount >= 0 && (n === 0 || (header.slotCount >= n / MAX_LOAD && (header.slotCount & (header.slotCount - 1)) === 0)), "idempotency image: bad slot count");
    assert(Number.isInteger(header.arenaPages) && header.arenaPages >= 0 && header.arenaPages <= MAX_ARENA_PAGES, "idempotency image: bad page count");
    assert(Number.isInteger(header.lastArenaPageBytes) && header.lastArenaPageBytes >= 0 && header.lastArenaPageBytes <= ARENA_PAGE_BYTES, "idempotency image: bad last page size");
    const layout = imageLayout(header);
    assert(body.length === layout.total, `idempotency image: ${body.length} bytes, expected ${layout.total}`);
    if (n === 0) {
      // An empty table takes even an empty image's seed: a continuation of that image hashes with it.
      if (this.count === 0) this.seed = header.seed;
      return 0;
    }
    return this.count === 0 ? this.adopt(header, body) : this.merge(header, body);
  }

  /** importImage into an empty table: take the image's arrays over (validated, not re-derived). */
  private adopt(header: SettledTableImageHeader, body: Uint8Array): number {
    const n = header.count;
    const layout = imageLayout(header);
    // Views need aligned offsets: an unaligned body (a small pooled Buffer) is copied once.
    const bytes = body.byteOffset % 8 === 0 ? body : Uint8Array.from(body);
    const buffer = bytes.buffer as ArrayBuffer;
    // Whole pages are views; the partly filled last page is copied into a full one (it grows).
    const pagesOf = <T extends Column>(Type: ColumnType<T>, offset: number): T[] => {
      const pages: T[] = [];
      for (let first = 0; first < n; first += ENTRIES_PER_PAGE) {
        const m = Math.min(ENTRIES_PER_PAGE, n - first);
        const page = new Type(buffer, bytes.byteOffset + offset + first * Type.BYTES_PER_ELEMENT, m);
        if (m === ENTRIES_PER_PAGE) {
          pages.push(page);
        } else {
          const whole = new Type(ENTRIES_PER_PAGE);
          bytesOf(whole).set(bytesOf(page));
          pages.push(whole);
        }
      }
      return pages;
    };
    const positions = pagesOf(Float64Array, layout.positions);
    const hashes = pagesOf(Uint32Array, layout.hashes);
    const keyRefs = pagesOf(Uint32Array, layout.keyRefs);
    const owners = pagesOf(Uint8Array, layout.owners);
    const slots = new Uint32Array(buffer, bytes.byteOffset + layout.slots, header.slotCount);
    const arena: Uint8Array[] = [];
    for (let p = 0; p < header.arenaPages; p += 1) {
      const from = layout.arena + p * ARENA_PAGE_BYTES;
      if (p + 1 < header.arenaPages) {
        arena.push(bytes.subarray(from, from + ARENA_PAGE_BYTES));
      } else {
        const last = new Uint8Array(ARENA_PAGE_BYTES);
        last.set(bytes.subarray(from, from + header.lastArenaPageBytes));
        arena.push(last);
      }
    }
    // Check what is taken over rather than trust it (the CRC proves the bytes are the ones written,
    // not that the writer was right): every slot names an existing entry, no entry twice, and every
    // key lies inside the arena. Tags are not re-checked against the hashes: that reads the hash
    // column in slot order, at random, and cost 0.8 s for 10M entries (measured).
    const arenaLimit = (header.arenaPages - 1) * ARENA_PAGE_BYTES + header.lastArenaPageBytes;
    const seen = new Uint8Array(Math.ceil(n / 8));
    let named = 0;
    for (let slot = 0; slot < slots.length; slot += 1) {
      const value = slots[slot] as number;
      if (value === 0) continue;
      const entry = (value & INDEX_MASK) - 1;
      if (entry >= n) throw new Error("idempotency image: a slot names an entry that does not exist");
      const bit = 1 << (entry & 7);
      const at = entry >>> 3;
      if (((seen[at] as number) & bit) !== 0) throw new Error("idempotency image: two slots name one entry");
      seen[at] = (seen[at] as number) | bit;
      named += 1;
    }
    if (named !== n) throw new Error(`idempotency image: ${named} slots name ${n} entries`);
    for (let entry = 0; entry < n; entry += 1) {
      const ref = (keyRefs[entry >>> ENTRY_PAGE_SHIFT] as Uint32Array)[entry & ENTRY_IN_PAGE_MASK] as number;
      if (ref >= arenaLimit) throw new Error("idempotency image: a key outside the arena");
      if ((owners[entry >>> ENTRY_PAGE_SHIFT] as Uint8Array)[entry & ENTRY_IN_PAGE_MASK] === IDENTITY_OWNER) throw new Error("idempotency image: an identity-owned entry");
    }
    this.seed = header.seed;
    this.positionPages.push(...positions);
    this.hashPages.push(...hashes);
    this.keyRefPages.push(...keyRefs);
    this.ownerPages.push(...owners);
    this.arena.push(...arena);
    this.arenaUsed = header.lastArenaPageBytes;
    this.slots = slots; // a view of the body: growth replaces it with a new array
    this.count = n;
    return n;
  }

  /** importImage into a table that holds entries: add the image's entries one by one. */
  private merge(header: SettledTableImageHeader, body: Uint8Array): number {
    const n = header.count;
    const layout = imageLayout(header);
    if (header.seed !== this.seed) this.reseed(header.seed);
    // The arena pages are copied after the current ones, so stored keyRefs move by whole pages.
    const base = this.arena.length;
    assert(base + header.arenaPages <= MAX_ARENA_PAGES, "idempotency index: arena bound reached");
    for (let p = 0; p < header.arenaPages; p += 1) {
      const page = new Uint8Array(ARENA_PAGE_BYTES);
      const from = layout.arena + p * ARENA_PAGE_BYTES;
      const bytes = p + 1 === header.arenaPages ? header.lastArenaPageBytes : ARENA_PAGE_BYTES;
      page.set(body.subarray(from, from + bytes));
      this.arena.push(page);
    }
    this.arenaUsed = header.lastArenaPageBytes;
    // An image never holds a key twice, so only keys that were here before can repeat: their
    // hashes screen each imported entry.
    const before = this.count;
    const existingHashes = new Set<number>();
    for (let entry = 0; entry < before; entry += 1) existingHashes.add(this.hashAt(entry));
    assert(before + n <= MAX_ENTRIES, "idempotency index: entry bound reached");
    this.reserveSlots(before + n);
    let added = 0;
    const arena = { refShift: base * ARENA_PAGE_BYTES, limit: this.arena.length * ARENA_PAGE_BYTES };
    SettledTable.forEachStoredEntry(body, n, layout, arena, "image", (hash, ref, owner, position) => {
      if (existingHashes.has(hash)) {
        const existing = this.findRecord(ref, hash);
        if (existing >= 0) {
          assert(this.fingerprintIs(existing, this.fingerprintOf(ref)), "idempotency index: one key logged with two different contents");
          return;
        }
      }
      this.appendEntry(hash, ref, owner, position);
      added += 1;
    });
    return added;
  }

  get hashSeed(): number {
    return this.seed;
  }

  /** Every key with its hash (start-up checks only: it decodes each key). */
  forEachKey(visit: (actorId: string, commandId: string, hash: number) => void): void {
    for (let entry = 0; entry < this.count; entry += 1) {
      const [actorId, commandId] = this.idsAt(this.keyRefAt(entry));
      visit(actorId, commandId, this.hashAt(entry));
    }
  }

  private hashAt(entry: number): number {
    return (this.hashPages[entry >>> ENTRY_PAGE_SHIFT] as Uint32Array)[entry & ENTRY_IN_PAGE_MASK] as number;
  }

  private keyRefAt(entry: number): number {
    return (this.keyRefPages[entry >>> ENTRY_PAGE_SHIFT] as Uint32Array)[entry & ENTRY_IN_PAGE_MASK] as number;
  }

  private keyEquals(ref: number, actorId: string, commandId: string): boolean {
    const page = this.arena[ref >>> ARENA_PAGE_SHIFT] as Uint8Array;
    let at = ref & ARENA_OFFSET_MASK;
    const head = page[at] as number;
    if ((head & ~WIDE) + 1 !== actorId.length || (page[at + 1] as number) + 1 !== commandId.length) return false;
    at += RECORD_HEADER_BYTES;
    if ((head & WIDE) === 0) {
      for (let i = 0; i < actorId.length; i += 1) if (page[at + i] !== actorId.charCodeAt(i)) return false;
      at += actorId.length;
      for (let i = 0; i < commandId.length; i += 1) if (page[at + i] !== commandId.charCodeAt(i)) return false;
      return true;
    }
    for (let i = 0; i < actorId.length; i += 1, at += 2) if (((page[at] as number) | ((page[at + 1] as number) << 8)) !== actorId.charCodeAt(i)) return false;
    for (let i = 0; i < commandId.length; i += 1, at += 2) if (((page[at] as number) | ((page[at + 1] as number) << 8)) !== commandId.charCodeAt(i)) return false;
    return true;
  }

  /** The record at `ref` decoded to its ids (import and reseed paths only). */
  private idsAt(ref: number): [string, string] {
    const page = this.arena[ref >>> ARENA_PAGE_SHIFT] as Uint8Array;
    const at = ref & ARENA_OFFSET_MASK;
    const head = page[at] as number;
    const actorUnits = (head & ~WIDE) + 1;
    const commandUnits = (page[at + 1] as number) + 1;
    const unitBytes = (head & WIDE) !== 0 ? 2 : 1;
    const encoding = unitBytes === 2 ? "utf16le" : "latin1";
    const bytes = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
    const actorStart = at + RECORD_HEADER_BYTES;
    const commandStart = actorStart + unitBytes * actorUnits;
    return [bytes.toString(encoding, actorStart, commandStart), bytes.toString(encoding, commandStart, commandStart + unitBytes * commandUnits)];
  }

  /** The entry whose key equals the record at `ref` (hash `hash`), or -1. Callers screen by hash first. */
  private findRecord(ref: number, hash: number): number {
    const [actorId, commandId] = this.idsAt(ref);
    return this.find(actorId, commandId, hash);
  }


  private fingerprintOf(ref: number): string {
    const page = this.arena[ref >>> ARENA_PAGE_SHIFT] as Uint8Array;
    const at = ref & ARENA_OFFSET_MASK;
    const start = fingerprintStart(page, at);
    return Buffer.from(page.buffer, page.byteOffset, page.byteLength).toString("latin1", start, start + (page[at + 2] as number));
  }

  private reserveRecord(recordBytes: number): number {
    if (this.arenaUsed + recordBytes > ARENA_PAGE_BYTES) {
      assert(this.arena.length < MAX_ARENA_PAGES, "idempotency index: arena bound reached");
      this.arena.push(new Uint8Array(ARENA_PAGE_BYTES));
      this.arenaUsed = 0;
    }
    const ref = (this.arena.length - 1) * ARENA_PAGE_BYTES + this.arenaUsed;
    this.arenaUsed += recordBytes;
    return ref;
  }

  private appendEntry(hash: number, ref: number, owner: number, position: number): void {
    const entry = this.count;
    if (entry >= MAX_ENTRIES) throw new Error("idempotency index: entry bound reached");
    this.reserveSlots(entry + 1);
    const page = entry >>> ENTRY_PAGE_SHIFT;
    if (page === this.hashPages.length) {
      this.hashPages.push(new Uint32Array(ENTRIES_PER_PAGE));
      this.keyRefPages.push(new Uint32Array(ENTRIES_PER_PAGE));
      this.ownerPages.push(new Uint8Array(ENTRIES_PER_PAGE));
      this.positionPages.push(new Float64Array(ENTRIES_PER_PAGE));
    }
    const at = entry & ENTRY_IN_PAGE_MASK;
    (this.hashPages[page] as Uint32Array)[at] = hash;
    (this.keyRefPages[page] as Uint32Array)[at] = ref;
    (this.ownerPages[page] as Uint8Array)[at] = owner;
    (this.positionPages[page] as Float64Array)[at] = position;
    this.count = entry + 1;
    this.place(this.slots, entry, hash);
  }

  private place(slots: Uint32Array, entry: number, hash: number): void {
    const mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = ((hash >>> TAG_SHIFT) * 2 ** TAG_SHIFT + entry + 1) >>> 0;
  }

  /** Grow the table (rehashing from the stored hashes) so `entries` stay under MAX_LOAD. */
  private reserveSlots(entries: number): void {
    if (entries <= this.slots.length * MAX_LOAD) return;
    let capacity = this.slots.length;
    while (entries > capacity * MAX_LOAD) capacity *= 2;
    this.rebuildSlots(capacity);
  }

  private rebuildSlots(capacity: number): void {
    const slots = new Uint32Array(capacity);
    for (let entry = 0; entry < this.count; entry += 1) this.place(slots, entry, this.hashAt(entry));
    this.slots = slots;
  }

  /** Adopt another seed (an imported image's): rehash every entry already held. */
  reseed(seed: number): void {
    if (seed === this.seed) return;
    this.seed = seed;
    for (let entry = 0; entry < this.count; entry += 1) {
      const [actorId, commandId] = this.idsAt(this.keyRefAt(entry));
      (this.hashPages[entry >>> ENTRY_PAGE_SHIFT] as Uint32Array)[entry & ENTRY_IN_PAGE_MASK] = this.hashOf(actorId, commandId);
    }
    this.rebuildSlots(this.slots.length);
  }
}

/** Where the fingerprint of the record at `at` starts: after the header and both ids. */
function fingerprintStart(page: Uint8Array, at: number): number {
  const head = page[at] as number;
  const units = (head & ~WIDE) + 1 + (page[at + 1] as number) + 1;
  return at + RECORD_HEADER_BYTES + ((head & WIDE) !== 0 ? 2 * units : units);
}

type Column = Uint32Array | Float64Array | Uint8Array;
interface ColumnType<T extends Column> {
  new (length: number): T;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

function writeUnits(page: Uint8Array, at: number, text: string, wide: boolean): number {
  if (!wide) {
    for (let i = 0; i < text.length; i += 1) page[at + i] = text.charCodeAt(i);
    return at + text.length;
  }
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    page[at + 2 * i] = unit & 0xff;
    page[at + 2 * i + 1] = unit >>> 8;
  }
  return at + 2 * text.length;
}

function bytesOf(array: Column): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
