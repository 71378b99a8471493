/**
 * u64 little-endian fields stored on disk but exposed as JS numbers. Values above
 * Number.MAX_SAFE_INTEGER (2^53 - 1) cannot be represented exactly, so writing one is a bug and
 * reading one means the bytes are not ours. Two u32 halves avoid BigInt on the hot path.
 */
import { assertSafeUint } from "./assert.js";

const TWO_POW_32 = 0x1_0000_0000;
/** Largest high half that keeps the value <= 2^53 - 1. */
const MAX_SAFE_HIGH_U32 = 0x1f_ffff;

export function writeSafeU64LE(target: Buffer, value: number, offsetBytes: number): void {
  assertSafeUint(value, "u64 value");
  target.writeUInt32LE(value >>> 0, offsetBytes);
  target.writeUInt32LE(Math.floor(value / TWO_POW_32), offsetBytes + 4);
}

/** Returns the value, or -1 when the stored value exceeds Number.MAX_SAFE_INTEGER. */
export function readSafeU64LE(source: Buffer, offsetBytes: number): number {
  const low = source.readUInt32LE(offsetBytes);
  const high = source.readUInt32LE(offsetBytes + 4);
  if (high > MAX_SAFE_HIGH_U32) return -1;
  return high * TWO_POW_32 + low;
}
