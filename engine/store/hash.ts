/**
 * The service's non-cryptographic hashes, in one place (cryptographic ones are node:crypto's):
 * - FNV-1a (32-bit): placing a market on a shard (over its id's UTF-8 bytes: part of the data
 *   directory's layout, so it never changes) and keying ids in the stores' tables (over UTF-16 code
 *   units or their stored bytes);
 * - MurMur3's body and finalizer: the idempotency table's seeded key hash, and the finish that spreads
 *   FNV's low bits for power-of-two tables.
 */

export const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** One FNV-1a step: `unit` (a byte or a code unit) folded into `hash`. */
export function fnv1aStep(hash: number, unit: number): number {
  return Math.imul(hash ^ unit, FNV_PRIME);
}

const encoder = new TextEncoder();
/**
 * The UTF-8 bytes of the text being hashed, encoded into this one buffer rather than a new array
 * per call (a claim hashes its market id on the gateway thread); UTF-8 takes at most 3 bytes per
 * UTF-16 code unit, and the buffer grows for a longer text.
 */
let utf8Scratch = new Uint8Array(512);

/** FNV-1a (32-bit, unsigned) over the UTF-8 bytes of `text`. */
export function fnv1a32Utf8(text: string): number {
  if (text.length * 3 > utf8Scratch.length) utf8Scratch = new Uint8Array(text.length * 3);
  const bytes = encoder.encodeInto(text, utf8Scratch).written;
  let hash = FNV_OFFSET_BASIS;
  for (let i = 0; i < bytes; i += 1) hash = fnv1aStep(hash, utf8Scratch[i] as number);
  return hash >>> 0;
}

/** MurMur3's per-unit mixing of `unit` into `hash`. */
export function murmurStep(hash: number, unit: number): number {
  let k = Math.imul(unit, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  const h = hash ^ k;
  return (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
}

/** MurMur3's 32-bit finalizer (fmix32): every input bit reaches every output bit. Signed result. */
export function fmix32(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
