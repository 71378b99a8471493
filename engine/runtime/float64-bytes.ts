/**
 * Numbers stored as raw float64 bytes in shard snapshots: one MessagePack binary value instead of a
 * million heap numbers to decode. Written and read in the machine's byte order, which every Node
 * platform we ship for has as little-endian; a big-endian one would misread snapshots, so it is
 * refused outright.
 */
import { endianness } from "node:os";
import { assert } from "../rules/common/assert.js";

assert(endianness() === "LE", "shard snapshots store little-endian float64 numbers");

/** Little-endian float64 bytes of `values`. */
export function float64Bytes(values: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  new Float64Array(bytes.buffer).set(values);
  return bytes;
}

/** The numbers of float64 bytes; copied, because decoded bytes need not be 8-byte aligned. */
export function float64sOf(bytes: Uint8Array): Float64Array {
  assert(bytes.byteLength % 8 === 0, "float64 column is whole");
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
