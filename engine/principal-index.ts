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
import { assert } from "./assert.js";
import { idHash } from "./id-arena.js";

const EMPTY = 0;
const FIRST_SLOT_COUNT = 32;
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
  /** Ordinal per slot (≥ 1), EMPTY when free. */
  private ordinals: Int32Array;
  /** The key's hash per used slot. */
  private hashes: Int32Array;
  private sizeValue = 0;

  /** `expectedEntries` sizes the table once when it is rebuilt from rows whose count is known. */
  constructor(
    private readonly keys: PrincipalKeys,
    expectedEntries = 0,
  ) {
    assert(expectedEntries >= 0 && expectedEntries <= MAX_ENTRIES, "principals per market are bounded");
    let slotCount = FIRST_SLOT_COUNT;
    while (slotCount < expectedEntries * 2) slotCount *= 2;
    this.ordinals = new Int32Array(slotCount);
    this.hashes = new Int32Array(slotCount);
  }

  get size(): number {
    return this.sizeValue;
  }

  has(key: string): boolean {
    return this.find(key, idHash(key)) >= 0;
  }

  get(key: string): number | undefined {
    const slot = this.find(key, idHash(key));
    return slot < 0 ? undefined : this.ordinals[slot];
  }

  /**
   * Index a new principal. `key` must be absent and is passed in, because the row behind `ordinal` may
   * not exist yet (a claim indexes its principal while its commitment is being created).
   */
  add(key: string, ordinal: number): void {
    const hash = idHash(key);
    assert(this.find(key, hash) < 0, "a principal is indexed once");
    this.insert(hash, ordinal);
  }

  /** Index the principal the market's rows hold for `ordinal` (a rebuild: no key string is made). */
  addStored(ordinal: number): void {
    const hash = this.keys.hash(ordinal);
    const mask = this.ordinals.length - 1;
    for (let slot = hash & mask; this.ordinals[slot] !== EMPTY; slot = (slot + 1) & mask) {
      if (this.hashes[slot] === hash) {
        assert(!this.keys.equals(this.ordinals[slot] as number, this.keys.key(ordinal)), "a principal is indexed once");
      }
    }
    this.insert(hash, ordinal);
  }

  /** Remove a principal; false when it was not indexed. */
  delete(key: string): boolean {
    let slot = this.find(key, idHash(key));
    if (slot < 0) return false;
    const mask = this.ordinals.length - 1;
    // Backward-shift deletion: pull later entries of the probe run into the hole, so lookups never
    // stop early at a gap inside a run.
    let next = (slot + 1) & mask;
    while (this.ordinals[next] !== EMPTY) {
      const home = (this.hashes[next] as number) & mask;
      // The entry at `next` may move into `slot` unless its home lies in (slot, next].
      if (((slot - home) & mask) < ((next - home) & mask)) {
        this.ordinals[slot] = this.ordinals[next] as number;
        this.hashes[slot] = this.hashes[next] as number;
        slot = next;
      }
      next = (next + 1) & mask;
    }
    this.ordinals[slot] = EMPTY;
    this.hashes[slot] = 0;
    this.sizeValue -= 1;
    return true;
  }

  /** [principal, ordinal] pairs in ordinal order (for tests and diagnostics). */
  entries(): [string, number][] {
    const pairs: [string, number][] = [];
    for (const ordinal of this.ordinals) if (ordinal !== EMPTY) pairs.push([this.keys.key(ordinal), ordinal]);
    return pairs.sort((a, b) => a[1] - b[1]);
  }

  private find(key: string, hash: number): number {
    const ordinals = this.ordinals;
    const hashes = this.hashes;
    const mask = ordinals.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const ordinal = ordinals[slot] as number;
      if (ordinal === EMPTY) return -1;
      if (hashes[slot] === hash && this.keys.equals(ordinal, key)) return slot;
    }
  }

  private insert(hash: number, ordinal: number): void {
    assert(Number.isInteger(ordinal) && ordinal >= 1 && ordinal <= 0x7fffffff, "principal ordinals are positive int32");
    assert(this.sizeValue < MAX_ENTRIES, "principals per market are bounded");
    if ((this.sizeValue + 1) * 2 > this.ordinals.length) this.grow();
    this.place(hash, ordinal);
    this.sizeValue += 1;
  }

  private place(hash: number, ordinal: number): void {
    const ordinals = this.ordinals;
    const mask = ordinals.length - 1;
    let slot = hash & mask;
    while (ordinals[slot] !== EMPTY) slot = (slot + 1) & mask;
    ordinals[slot] = ordinal;
    this.hashes[slot] = hash;
  }

  private grow(): void {
    const oldOrdinals = this.ordinals;
    const oldHashes = this.hashes;
    this.ordinals = new Int32Array(oldOrdinals.length * 2);
    this.hashes = new Int32Array(oldOrdinals.length * 2);
    for (let slot = 0; slot < oldOrdinals.length; slot += 1) {
      const ordinal = oldOrdinals[slot] as number;
      if (ordinal !== EMPTY) this.place(oldHashes[slot] as number, ordinal);
    }
  }
}
