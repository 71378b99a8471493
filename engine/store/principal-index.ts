/**
 * principal → ordinal for one market (an active direct-claim commitment, or a sealed bid), as an
 * open-addressing hash table in typed arrays. Keys are not stored here: a slot holds the ordinal and
 * the key's hash, and keys are compared against the market's own rows through `PrincipalKeys`.
 *
 * Why not a `Map`: a hot market holds tens of thousands of principals, and a restart rebuilds the
 * index of every market it touches. A Map entry is a heap object the GC copies; a slot is 8 bytes,
 * and a rebuild from the commitment table makes no strings at all (id-arena.ts).
 *
 * Linear probing with backward-shift deletion (no tombstones), grown at load 1/2. Deterministic: the
 * hash is a fixed function of the key (`idHash`), so the same commands build the same table.
 */
import { assert } from "../rules/common/assert.js";
import { grownCapacity } from "./capacity.js";
import { idHash } from "./id-arena.js";

const EMPTY = 0;
const FIRST_SLOT_COUNT = 16;
/** Slots grow ×4 up to this many, then ×2 (capacity.ts). */
const QUADRUPLE_BELOW_SLOTS = 1024;
/** Bound: ordinals fit the slots' int32 and the table stays below 2^31 slots. */
const MAX_ENTRIES = 2 ** 29;

/** How the index reaches the principal ids the market's rows hold, by ordinal. */
export interface PrincipalKeys {
  equals(ordinal: number, key: string): boolean;
  /** `idHash` of the key behind `ordinal`. */
  hash(ordinal: number): number;
  key(ordinal: number): string;
}

/** Keys that are plain strings (sealed bids keep their principal ids as strings). */
export function stringKeys(keyOf: (ordinal: number) => string): PrincipalKeys {
  return {
    equals: (ordinal, key) => keyOf(ordinal) === key,
    hash: (ordinal) => idHash(keyOf(ordinal)),
    key: keyOf,
  };
}

export class PrincipalIndex {
  /**
   * Two int32 per slot, in one array (one allocation per growth): the ordinal (≥ 1, EMPTY when the
   * slot is free), then the key's hash.
   */
  private slots: Int32Array;
  private slotCount: number;
  private sizeValue = 0;
  /**
   * The last key hashed and its hash: a claim looks its principal up when it is decided and adds it
   * when it is folded, so the second hash of the same key is skipped.
   */
  private lastKey = "";
  private lastHash = idHash("");

  /** `expectedEntries` sizes the table once when it is rebuilt from rows whose count is known. */
  constructor(
    private readonly keys: PrincipalKeys,
    expectedEntries = 0,
  ) {
    assert(Number.isSafeInteger(expectedEntries) && expectedEntries >= 0 && expectedEntries <= MAX_ENTRIES, "principals per market are bounded");
    this.slotCount = expectedEntries * 2 <= FIRST_SLOT_COUNT ? FIRST_SLOT_COUNT : grownCapacity(FIRST_SLOT_COUNT, expectedEntries * 2, FIRST_SLOT_COUNT, QUADRUPLE_BELOW_SLOTS);
    this.slots = new Int32Array(this.slotCount * 2);
  }

  get size(): number {
    return this.sizeValue;
  }

  has(key: string): boolean {
    return this.find(key, this.hashOf(key)) >= 0;
  }

  get(key: string): number | undefined {
    const slot = this.find(key, this.hashOf(key));
    return slot < 0 ? undefined : this.slots[slot * 2];
  }

  /**
   * Index a new principal. `key` must be absent and is passed in, because the row behind `ordinal` may
   * not exist yet (a claim indexes its principal while its commitment is being created).
   */
  add(key: string, ordinal: number): void {
    const hash = this.hashOf(key);
    assert(this.find(key, hash) < 0, "a principal is indexed once");
    this.insert(hash, ordinal);
  }

  /** Index the principal the market's rows hold for `ordinal` (a rebuild: no key string is made). */
  addStored(ordinal: number): void {
    const hash = this.keys.hash(ordinal);
    const slots = this.slots;
    const mask = this.slotCount - 1;
    for (let slot = hash & mask; slots[slot * 2] !== EMPTY; slot = (slot + 1) & mask) {
      if (slots[slot * 2 + 1] === hash) {
        assert(!this.keys.equals(slots[slot * 2] as number, this.keys.key(ordinal)), "a principal is indexed once");
      }
    }
    this.insert(hash, ordinal);
  }

  /** Remove a principal; false when it was not indexed. */
  delete(key: string): boolean {
    let slot = this.find(key, this.hashOf(key));
    if (slot < 0) return false;
    const slots = this.slots;
    const mask = this.slotCount - 1;
    // Backward-shift deletion: pull later entries of the probe run into the hole, so lookups never
    // stop early at a gap inside a run.
    let next = (slot + 1) & mask;
    while (slots[next * 2] !== EMPTY) {
      const home = (slots[next * 2 + 1] as number) & mask;
      // The entry at `next` may move into `slot` unless its home lies in (slot, next].
      if (((slot - home) & mask) < ((next - home) & mask)) {
        slots[slot * 2] = slots[next * 2] as number;
        slots[slot * 2 + 1] = slots[next * 2 + 1] as number;
        slot = next;
      }
      next = (next + 1) & mask;
    }
    slots[slot * 2] = EMPTY;
    slots[slot * 2 + 1] = 0;
    this.sizeValue -= 1;
    return true;
  }

  /** [principal, ordinal] pairs in ordinal order (for tests and diagnostics). */
  entries(): [string, number][] {
    const pairs: [string, number][] = [];
    for (let slot = 0; slot < this.slotCount; slot += 1) {
      const ordinal = this.slots[slot * 2] as number;
      if (ordinal !== EMPTY) pairs.push([this.keys.key(ordinal), ordinal]);
    }
    return pairs.sort((a, b) => a[1] - b[1]);
  }

  private hashOf(key: string): number {
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.lastHash = idHash(key);
    }
    return this.lastHash;
  }

  private find(key: string, hash: number): number {
    const slots = this.slots;
    const mask = this.slotCount - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const ordinal = slots[slot * 2] as number;
      if (ordinal === EMPTY) return -1;
      if (slots[slot * 2 + 1] === hash && this.keys.equals(ordinal, key)) return slot;
    }
  }

  private insert(hash: number, ordinal: number): void {
    assert(Number.isInteger(ordinal) && ordinal >= 1 && ordinal <= 0x7fffffff, "principal ordinals are positive int32");
    assert(this.sizeValue < MAX_ENTRIES, "principals per market are bounded");
    if ((this.sizeValue + 1) * 2 > this.slotCount) this.grow((this.sizeValue + 1) * 2);
    this.place(hash, ordinal);
    this.sizeValue += 1;
  }

  private place(hash: number, ordinal: number): void {
    const slots = this.slots;
    const mask = this.slotCount - 1;
    let slot = hash & mask;
    while (slots[slot * 2] !== EMPTY) slot = (slot + 1) & mask;
    slots[slot * 2] = ordinal;
    slots[slot * 2 + 1] = hash;
  }

  private grow(neededSlots: number): void {
    const old = this.slots;
    const oldCount = this.slotCount;
    this.slotCount = grownCapacity(oldCount, neededSlots, FIRST_SLOT_COUNT, QUADRUPLE_BELOW_SLOTS);
    this.slots = new Int32Array(this.slotCount * 2);
    for (let slot = 0; slot < oldCount; slot += 1) {
      const ordinal = old[slot * 2] as number;
      if (ordinal !== EMPTY) this.place(old[slot * 2 + 1] as number, ordinal);
    }
  }
}
