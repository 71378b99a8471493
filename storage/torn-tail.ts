/**
 * Torn tail or corruption: what a bad frame at the end of the LAST segment means (rules in
 * recovery.ts and docs/storage.md, "Recovery on open").
 *
 * A commit that never returned may have left part of its batch on disk; those bytes were never
 * acknowledged, so recovery may cut them off. But a frame that was written whole and only has a
 * damaged length field looks similar from its header alone, and cutting it would drop
 * acknowledged data. So before calling a bad frame torn, this looks for evidence that it was
 * complete: its CRC matching when it is taken to end at EOF, a valid frame with the next lsn after
 * it, or non-zero bytes after its declared end.
 */
import { assertStorage } from "./assert.js";
import { crc32c } from "./crc32c.js";
import {
  FRAME_CRC_COVERAGE_START,
  FRAME_CRC_OFFSET,
  FRAME_HEADER_BYTES,
  FRAME_LSN_OFFSET,
  MAX_PAYLOAD_BYTES,
  frameCrcMatches,
  readFrameLsn,
  readFramePayloadLength,
} from "./frame.js";
import { writeSafeU64LE } from "./safe-u64.js";
import type { FrameProblem } from "./segment-reader.js";
import { readFully, type StorageFs } from "./storage-fs.js";

/**
 * Decides whether a bad frame at the tail of the last segment is a torn write. Returns a
 * human-readable reason when it is, null when the open must be refused.
 */
export function tornTailReason(
  storageFs: StorageFs,
  fd: number,
  problem: FrameProblem,
  fileSizeBytes: number,
  frameLsn: number,
): string | null {
  const frameStart = problem.fileOffsetBytes;
  switch (problem.kind) {
    case "incomplete-header":
      return "file ends inside a frame header";
    case "length-exceeds-max":
    case "extent-past-end":
    case "crc-mismatch": {
      const declared = problem.declaredFrameBytes;
      assertStorage(declared !== null, "header-level problems always carry a declared size");
      const declaredEnd = frameStart + declared;
      if (declaredEnd > fileSizeBytes) {
        if (completeFrameEndsAtEof(storageFs, fd, frameStart, fileSizeBytes)) return null;
        if (findValidFrameWithLsn(storageFs, fd, frameStart + 1, fileSizeBytes, frameLsn + 1)) return null;
        return "declared frame extent runs past EOF";
      }
      if (!isAllZero(storageFs, fd, declaredEnd, fileSizeBytes)) return null;
      return declaredEnd === fileSizeBytes ? "last frame fails its check" : "last frame fails its check and only zero bytes follow";
    }
    case "lsn-out-of-range":
    case "lsn-discontinuity":
    case "chain-mismatch":
      // The CRC matched: these bytes were written whole, so this is not a torn write.
      return null;
  }
}

/** True if the bytes [frameStart, eof) form a frame whose CRC matches (only its length is off). */
function completeFrameEndsAtEof(storageFs: StorageFs, fd: number, frameStart: number, eof: number): boolean {
  const frameBytes = eof - frameStart;
  if (frameBytes < FRAME_HEADER_BYTES || frameBytes > FRAME_HEADER_BYTES + MAX_PAYLOAD_BYTES) return false;
  const frame = Buffer.allocUnsafe(frameBytes);
  if (readFully(storageFs, fd, frame, 0, frameBytes, frameStart) !== frameBytes) return false;
  return crc32c(frame.subarray(FRAME_CRC_COVERAGE_START)) === frame.readUInt32LE(FRAME_CRC_OFFSET);
}

const SEARCH_CHUNK_BYTES = 1024 * 1024;

/** True if bytes [from, to) of the file are all zero. */
function isAllZero(storageFs: StorageFs, fd: number, from: number, to: number): boolean {
  if (from >= to) return true;
  const chunk = Buffer.allocUnsafe(Math.min(SEARCH_CHUNK_BYTES, to - from));
  const zeros = Buffer.alloc(chunk.length);
  for (let at = from; at < to; ) {
    const want = Math.min(chunk.length, to - at);
    const got = readFully(storageFs, fd, chunk, 0, want, at);
    assertStorage(got === want, "file shrank during recovery");
    if (!chunk.subarray(0, got).equals(zeros.subarray(0, got))) return false;
    at += got;
  }
  return true;
}

/**
 * True if a complete, CRC-valid frame carrying `lsn` starts anywhere in [from, to). Found by
 * searching for the 8-byte lsn pattern (fast native indexOf), then checking the CRC.
 */
function findValidFrameWithLsn(storageFs: StorageFs, fd: number, from: number, to: number, lsn: number): boolean {
  const pattern = Buffer.alloc(8);
  writeSafeU64LE(pattern, lsn, 0);
  const overlap = pattern.length - 1;
  const chunk = Buffer.allocUnsafe(SEARCH_CHUNK_BYTES + overlap);
  // The lsn field sits FRAME_LSN_OFFSET bytes into a frame.
  for (let chunkStart = from + FRAME_LSN_OFFSET; chunkStart < to; chunkStart += SEARCH_CHUNK_BYTES) {
    const want = Math.min(chunk.length, to - chunkStart);
    const got = readFully(storageFs, fd, chunk, 0, want, chunkStart);
    const view = chunk.subarray(0, got);
    for (let hit = view.indexOf(pattern); hit !== -1; hit = view.indexOf(pattern, hit + 1)) {
      const frameStart = chunkStart + hit - FRAME_LSN_OFFSET;
      if (isValidFrameAt(storageFs, fd, frameStart, to, lsn)) return true;
    }
  }
  return false;
}

function isValidFrameAt(storageFs: StorageFs, fd: number, frameStart: number, eof: number, lsn: number): boolean {
  if (eof - frameStart < FRAME_HEADER_BYTES) return false;
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  if (readFully(storageFs, fd, header, 0, FRAME_HEADER_BYTES, frameStart) !== FRAME_HEADER_BYTES) return false;
  const payloadBytes = readFramePayloadLength(header, 0);
  const frameBytes = FRAME_HEADER_BYTES + payloadBytes;
  if (payloadBytes > MAX_PAYLOAD_BYTES || frameStart + frameBytes > eof) return false;
  if (readFrameLsn(header, 0) !== lsn) return false;
  const frame = Buffer.allocUnsafe(frameBytes);
  if (readFully(storageFs, fd, frame, 0, frameBytes, frameStart) !== frameBytes) return false;
  return frameCrcMatches(frame, 0, frameBytes);
}
