/**
 * Segment files: naming and the 32-byte segment header.
 *
 * A segment is named after the global log position of its first frame, zero-padded to 20 digits
 * (`00000000000000000000.seg`). Log positions count FRAME bytes only: segment headers are not
 * part of the position space, so position p inside segment with base b lives at file offset
 * SEGMENT_HEADER_BYTES + (p - b). That keeps positions independent of where rotation happened,
 * which lets `append` hand out a position before the commit decides whether to rotate.
 *
 * Header layout (32 bytes):
 *   offset  size  field
 *   0       8     magic "SEGLOG\r\n" (the CR LF catches text-mode mangling)
 *   8       4     formatVersion u32 LE (= 1)
 *   12      4     reserved, zero
 *   16      8     basePositionBytes u64 LE (must equal the file name)
 *   24      4     reserved, zero
 *   28      4     crc32c u32 LE over bytes [0, 28)
 *
 * Headers are written to `<name>.tmp`, fsynced, renamed into place and the directory fsynced, so
 * a segment file with a torn header cannot exist; a bad header is always corruption.
 */
import * as path from "node:path";
import { assertSafeUint } from "./assert.js";
import { crc32c } from "./crc32c.js";
import { readSafeU64LE, writeSafeU64LE } from "./safe-u64.js";
import { fsyncDirectory, writeFully, type StorageFs } from "./storage-fs.js";

export const SEGMENT_HEADER_BYTES = 32;
export const SEGMENT_FORMAT_VERSION = 1;
export const SEGMENT_MAGIC = Buffer.from("SEGLOG\r\n", "latin1");
export const SEGMENT_FILE_SUFFIX = ".seg";
export const TEMP_FILE_SUFFIX = ".tmp";
const SEGMENT_NAME_PATTERN = /^(\d{20})\.seg$/;
const SEGMENT_NAME_DIGITS = 20;
const HEADER_CRC_OFFSET = 28;

export function segmentFileName(basePositionBytes: number): string {
  assertSafeUint(basePositionBytes, "segment base position");
  return `${String(basePositionBytes).padStart(SEGMENT_NAME_DIGITS, "0")}${SEGMENT_FILE_SUFFIX}`;
}

/** Base position encoded in a segment file name, or null if the name is not a segment name. */
export function parseSegmentFileName(fileName: string): number | null {
  const match = SEGMENT_NAME_PATTERN.exec(fileName);
  if (match === null || match[1] === undefined) return null;
  const value = Number(match[1]);
  return Number.isSafeInteger(value) ? value : null;
}

export function encodeSegmentHeader(basePositionBytes: number): Buffer {
  const header = Buffer.alloc(SEGMENT_HEADER_BYTES);
  SEGMENT_MAGIC.copy(header, 0);
  header.writeUInt32LE(SEGMENT_FORMAT_VERSION, 8);
  writeSafeU64LE(header, basePositionBytes, 16);
  header.writeUInt32LE(crc32c(header.subarray(0, HEADER_CRC_OFFSET)), HEADER_CRC_OFFSET);
  return header;
}

/** Returns null if the header is valid for `expectedBasePositionBytes`, else the reason. */
export function segmentHeaderProblem(header: Buffer, expectedBasePositionBytes: number): string | null {
  if (header.length < SEGMENT_HEADER_BYTES) return `segment header truncated (${header.length} bytes)`;
  if (!header.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)) return "bad segment magic";
  const storedCrc = header.readUInt32LE(HEADER_CRC_OFFSET);
  if (crc32c(header.subarray(0, HEADER_CRC_OFFSET)) !== storedCrc) return "segment header crc mismatch";
  const version = header.readUInt32LE(8);
  if (version !== SEGMENT_FORMAT_VERSION) return `unsupported segment format version ${version}`;
  const base = readSafeU64LE(header, 16);
  if (base !== expectedBasePositionBytes) {
    return `segment header base position ${base} does not match file name base ${expectedBasePositionBytes}`;
  }
  return null;
}

/**
 * Creates `<dir>/<base>.seg` atomically (temp file, fsync, rename, fsync directory) and returns
 * its path and an fd opened read-write. Any exception leaves at most a `.tmp` file, which the
 * next open removes.
 */
export function createSegmentFile(
  storageFs: StorageFs,
  dirPath: string,
  basePositionBytes: number,
): { filePath: string; fd: number } {
  const filePath = path.join(dirPath, segmentFileName(basePositionBytes));
  const tempPath = filePath + TEMP_FILE_SUFFIX;
  const tempFd = storageFs.openSync(tempPath, "w");
  try {
    writeFully(storageFs, tempFd, encodeSegmentHeader(basePositionBytes), 0);
    storageFs.fsyncSync(tempFd);
  } finally {
    storageFs.closeSync(tempFd);
  }
  storageFs.renameSync(tempPath, filePath);
  fsyncDirectory(storageFs, dirPath);
  return { filePath, fd: storageFs.openSync(filePath, "r+") };
}
