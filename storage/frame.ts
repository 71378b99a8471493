/**
 * Frame codec. A frame is a fixed 48-byte header followed by an opaque payload:
 *
 *   offset  size  field
 *   0       4     payloadLengthBytes  u32 LE
 *   4       4     crc32c              u32 LE, CRC-32C over bytes [8, 48 + payloadLengthBytes)
 *   8       8     lsn                 u64 LE (always <= Number.MAX_SAFE_INTEGER, first lsn is 1)
 *   16      32    chain               SHA-256(previous chain || payload)
 *   48      n     payload
 *
 * Frames are packed back to back with no padding. The chain field sits directly before the
 * payload, which lets encode/verify hash "previous chain || payload" in place without a copy:
 * the previous chain is written into the slot, the slot+payload range is hashed, and the slot is
 * overwritten with (or restored to) the real value. An all-zero region never decodes as a valid
 * frame because lsn 0 is never used.
 */
import { assertSafeUint, assertStorage } from "./assert.js";
import { crc32c } from "./crc32c.js";
import { CHAIN_HASH_BYTES, sha256, sha256Into } from "./hash-chain.js";
import { readSafeU64LE, writeSafeU64LE } from "./safe-u64.js";

export const FRAME_HEADER_BYTES = 48;
export const FRAME_LENGTH_OFFSET = 0;
export const FRAME_CRC_OFFSET = 4;
/** The CRC covers everything from here to the end of the frame. */
export const FRAME_CRC_COVERAGE_START = 8;
export const FRAME_LSN_OFFSET = 8;
export const FRAME_CHAIN_OFFSET = 16;
export const FRAME_PAYLOAD_OFFSET = 48;

/** Hard upper bound on one payload. Readers reject larger declared lengths as corrupt. */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
export const MAX_FRAME_BYTES = FRAME_HEADER_BYTES + MAX_PAYLOAD_BYTES;

/**
 * Encodes one frame at `offsetBytes` in `target`. `previousChain` is read before anything is
 * written, so it may itself be a view into `target` (the previous staged frame's chain field).
 * Returns the frame's size in bytes. The new chain value is left in the frame's chain field.
 */
export function encodeFrameInto(
  target: Buffer,
  offsetBytes: number,
  lsn: number,
  previousChain: Uint8Array,
  payload: Uint8Array,
): number {
  assertStorage(previousChain.length === CHAIN_HASH_BYTES, "previous chain must be 32 bytes");
  assertStorage(offsetBytes + FRAME_PAYLOAD_OFFSET <= target.length, "frame header does not fit the target buffer");
  target.set(previousChain, offsetBytes + FRAME_CHAIN_OFFSET);
  return sealFrameInPlace(target, offsetBytes, lsn, payload);
}

/**
 * Like `encodeFrameInto`, but the previous chain is already in the frame's chain slot (the
 * log copies it there with `copyWithin`, which avoids creating a Buffer view per append).
 */
export function sealFrameInPlace(target: Buffer, offsetBytes: number, lsn: number, payload: Uint8Array): number {
  assertSafeUint(lsn, "lsn");
  assertStorage(lsn >= 1, "lsn must be >= 1");
  assertStorage(payload.length <= MAX_PAYLOAD_BYTES, "payload exceeds MAX_PAYLOAD_BYTES");
  const frameBytes = FRAME_HEADER_BYTES + payload.length;
  assertStorage(offsetBytes + frameBytes <= target.length, "frame does not fit the target buffer");
  const chainAt = offsetBytes + FRAME_CHAIN_OFFSET;
  const payloadAt = offsetBytes + FRAME_PAYLOAD_OFFSET;
  target.set(payload, payloadAt);
  sha256Into(target.subarray(chainAt, payloadAt + payload.length), target, chainAt);

  target.writeUInt32LE(payload.length, offsetBytes + FRAME_LENGTH_OFFSET);
  writeSafeU64LE(target, lsn, offsetBytes + FRAME_LSN_OFFSET);
  const crc = crc32c(target.subarray(offsetBytes + FRAME_CRC_COVERAGE_START, offsetBytes + frameBytes));
  target.writeUInt32LE(crc, offsetBytes + FRAME_CRC_OFFSET);
  return frameBytes;
}

/** Standalone encoder (allocates); used by tools and tests that build frames by hand. */
export function encodeFrame(lsn: number, previousChain: Uint8Array, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  encodeFrameInto(out, 0, lsn, previousChain, payload);
  return out;
}

/** Recomputes the CRC of a complete frame at `offsetBytes` and compares it to the stored one. */
export function frameCrcMatches(source: Buffer, offsetBytes: number, frameBytes: number): boolean {
  const stored = source.readUInt32LE(offsetBytes + FRAME_CRC_OFFSET);
  const actual = crc32c(source.subarray(offsetBytes + FRAME_CRC_COVERAGE_START, offsetBytes + frameBytes));
  return stored === actual;
}

/** Rewrites the CRC of a complete frame in place (test and repair tooling only). */
export function rewriteFrameCrc(source: Buffer, offsetBytes: number, frameBytes: number): void {
  const crc = crc32c(source.subarray(offsetBytes + FRAME_CRC_COVERAGE_START, offsetBytes + frameBytes));
  source.writeUInt32LE(crc, offsetBytes + FRAME_CRC_OFFSET);
}

export function readFramePayloadLength(source: Buffer, offsetBytes: number): number {
  return source.readUInt32LE(offsetBytes + FRAME_LENGTH_OFFSET);
}

/** Stored lsn, or -1 when it is above Number.MAX_SAFE_INTEGER (never written by this code). */
export function readFrameLsn(source: Buffer, offsetBytes: number): number {
  return readSafeU64LE(source, offsetBytes + FRAME_LSN_OFFSET);
}

/**
 * Checks that the chain stored in the frame equals SHA-256(previousChain || payload), in place.
 * `scratch` (32 bytes) receives the stored chain; the frame bytes are restored before returning.
 */
export function frameChainMatches(
  source: Buffer,
  offsetBytes: number,
  frameBytes: number,
  previousChain: Buffer,
  scratch: Buffer,
): boolean {
  const chainAt = offsetBytes + FRAME_CHAIN_OFFSET;
  source.copy(scratch, 0, chainAt, chainAt + CHAIN_HASH_BYTES);
  previousChain.copy(source, chainAt);
  const expected = sha256(source.subarray(chainAt, offsetBytes + frameBytes));
  scratch.copy(source, chainAt);
  return expected.equals(scratch);
}
