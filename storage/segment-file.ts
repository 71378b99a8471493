/**
 * Segment files: naming and the 72-byte segment header (format version 2).
 *
 * A segment is named after the global log position of its first frame, zero-padded to 20 digits
 * (`00000000000000000000.seg`). Log positions count FRAME bytes only: segment headers are not
 * part of the position space, so position p inside segment with base b lives at file offset
 * SEGMENT_HEADER_BYTES + (p - b). That keeps positions independent of where rotation happened,
 * which lets `append` hand out a position before the commit decides whether to rotate.
 *
 * Header layout (72 bytes):
 *   offset  size  field
 *   0       8     magic "SEGLOG\r\n" (the CR LF catches text-mode mangling)
 *   8       4     formatVersion u32 LE (= 2)
 *   12      4     reserved, zero
 *   16      8     basePositionBytes u64 LE (must equal the file name)
 *   24      8     firstLsn u64 LE: lsn the segment's first frame has (or will get), >= 1
 *   32      32    previousChain: chain of the frame just before this segment (genesis = zeros for the first)
 *   64      4     reserved, zero
 *   68      4     crc32c u32 LE over bytes [0, 68)
 *
 * firstLsn and previousChain let open trust sealed segments without reading their frames, and
 * let frames(fromLsn) start at the right segment with a correct previous chain (see recovery.ts).
 *
 * Headers are written to `<name>.tmp`, fsynced, renamed into place and the directory fsynced, so
 * a segment file with a torn header cannot exist; a bad header is always corruption.
 */
import * as path from "node:path";
import { assertSafeUint, assertStorage } from "./assert.js";
import { crc32c } from "./crc32c.js";
import { LogCorruptError } from "./errors.js";
import { CHAIN_HASH_BYTES, shortHex } from "./hash-chain.js";
import { readSafeU64LE, writeSafeU64LE } from "./safe-u64.js";
import { fsyncDirectory, readFully, writeFully, type StorageFs } from "./storage-fs.js";

export const SEGMENT_HEADER_BYTES = 72;
export const SEGMENT_FORMAT_VERSION = 2;
export const SEGMENT_MAGIC = Buffer.from("SEGLOG\r\n", "latin1");
export const SEGMENT_FILE_SUFFIX = ".seg";
export const TEMP_FILE_SUFFIX = ".tmp";
const SEGMENT_NAME_PATTERN = /^(\d{20})\.seg$/;
const SEGMENT_NAME_DIGITS = 20;
export const SEGMENT_HEADER_VERSION_OFFSET = 8;
export const SEGMENT_HEADER_BASE_OFFSET = 16;
export const SEGMENT_HEADER_FIRST_LSN_OFFSET = 24;
export const SEGMENT_HEADER_PREVIOUS_CHAIN_OFFSET = 32;
export const SEGMENT_HEADER_CRC_OFFSET = 68;
const RESERVED_FIELDS: readonly number[] = [12, 64]; // u32 each, must be zero

/** The decoded content of a segment header. */
export interface SegmentHeader {
  readonly basePositionBytes: number;
  /** lsn of the segment's first frame (for an empty segment: the lsn its first frame will get). */
  readonly firstLsn: number;
  /** chain value of the frame just before this segment (32 zero bytes for the first segment). */
  readonly previousChain: Buffer;
}

export type SegmentHeaderParse =
  | { readonly ok: true; readonly header: SegmentHeader }
  | { readonly ok: false; readonly problem: string };

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

export function encodeSegmentHeader(header: SegmentHeader): Buffer {
  assertSafeUint(header.basePositionBytes, "segment base position");
  assertSafeUint(header.firstLsn, "segment first lsn");
  assertStorage(header.firstLsn >= 1, "segment first lsn must be >= 1");
  assertStorage(header.previousChain.length === CHAIN_HASH_BYTES, "segment previous chain must be 32 bytes");
  const out = Buffer.alloc(SEGMENT_HEADER_BYTES);
  SEGMENT_MAGIC.copy(out, 0);
  out.writeUInt32LE(SEGMENT_FORMAT_VERSION, SEGMENT_HEADER_VERSION_OFFSET);
  writeSafeU64LE(out, header.basePositionBytes, SEGMENT_HEADER_BASE_OFFSET);
  writeSafeU64LE(out, header.firstLsn, SEGMENT_HEADER_FIRST_LSN_OFFSET);
  header.previousChain.copy(out, SEGMENT_HEADER_PREVIOUS_CHAIN_OFFSET);
  out.writeUInt32LE(crc32c(out.subarray(0, SEGMENT_HEADER_CRC_OFFSET)), SEGMENT_HEADER_CRC_OFFSET);
  return out;
}

/**
 * Decodes and validates a header read from the file whose name says `expectedBasePositionBytes`:
 * size, magic, CRC, version (only 2 is accepted), reserved fields, base position = file name,
 * firstLsn in [1, 2^53-1]. Returns the reason on failure.
 */
export function parseSegmentHeader(bytes: Buffer, expectedBasePositionBytes: number): SegmentHeaderParse {
  const fail = (problem: string): SegmentHeaderParse => ({ ok: false, problem });
  if (bytes.length < SEGMENT_HEADER_BYTES) return fail(`segment header truncated (${bytes.length} bytes)`);
  if (!bytes.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)) return fail("bad segment magic");
  const storedCrc = bytes.readUInt32LE(SEGMENT_HEADER_CRC_OFFSET);
  if (crc32c(bytes.subarray(0, SEGMENT_HEADER_CRC_OFFSET)) !== storedCrc) return fail("segment header crc mismatch");
  const version = bytes.readUInt32LE(SEGMENT_HEADER_VERSION_OFFSET);
  if (version !== SEGMENT_FORMAT_VERSION) return fail(`unsupported segment format version ${version} (expected ${SEGMENT_FORMAT_VERSION})`);
  for (const offset of RESERVED_FIELDS) {
    if (bytes.readUInt32LE(offset) !== 0) return fail(`segment header reserved field at offset ${offset} is not zero`);
  }
  const base = readSafeU64LE(bytes, SEGMENT_HEADER_BASE_OFFSET);
  if (base !== expectedBasePositionBytes) {
    return fail(`segment header base position ${base} does not match file name base ${expectedBasePositionBytes}`);
  }
  const firstLsn = readSafeU64LE(bytes, SEGMENT_HEADER_FIRST_LSN_OFFSET);
  if (firstLsn < 1) return fail("segment header firstLsn is 0 or above 2^53-1");
  const previousChain = Buffer.from(bytes.subarray(SEGMENT_HEADER_PREVIOUS_CHAIN_OFFSET, SEGMENT_HEADER_PREVIOUS_CHAIN_OFFSET + CHAIN_HASH_BYTES));
  return { ok: true, header: { basePositionBytes: base, firstLsn, previousChain } };
}

/** Returns null if the header is valid for `expectedBasePositionBytes`, else the reason. */
export function segmentHeaderProblem(bytes: Buffer, expectedBasePositionBytes: number): string | null {
  const parsed = parseSegmentHeader(bytes, expectedBasePositionBytes);
  return parsed.ok ? null : parsed.problem;
}

/**
 * Creates `<dir>/<base>.seg` atomically (temp file, fsync, rename, fsync directory) with the
 * given header and returns its path and an fd opened read-write. Any exception leaves at most
 * a `.tmp` file, which the next open removes.
 */
export function createSegmentFile(
  storageFs: StorageFs,
  dirPath: string,
  header: SegmentHeader,
): { filePath: string; fd: number } {
  const encoded = encodeSegmentHeader(header);
  const filePath = path.join(dirPath, segmentFileName(header.basePositionBytes));
  const tempPath = filePath + TEMP_FILE_SUFFIX;
  const tempFd = storageFs.openSync(tempPath, "w");
  try {
    writeFully(storageFs, tempFd, encoded, 0);
    storageFs.fsyncSync(tempFd);
  } finally {
    storageFs.closeSync(tempFd);
  }
  storageFs.renameSync(tempPath, filePath);
  fsyncDirectory(storageFs, dirPath);
  return { filePath, fd: storageFs.openSync(filePath, "r+") };
}

/** Reads and validates the header through an open fd; throws LogCorruptError naming the file. */
export function readSegmentHeader(storageFs: StorageFs, fd: number, filePath: string, base: number): SegmentHeader {
  const bytes = Buffer.alloc(SEGMENT_HEADER_BYTES);
  const got = readFully(storageFs, fd, bytes, 0, SEGMENT_HEADER_BYTES, 0);
  const parsed = parseSegmentHeader(bytes.subarray(0, got), base);
  if (!parsed.ok) throw new LogCorruptError(filePath, 0, parsed.problem);
  return parsed.header;
}

/**
 * A segment's header must continue the log before it: its firstLsn is the next lsn and its
 * previousChain is the chain of the frame just before it. Its CRC is valid at this point, so a
 * mismatch is not a torn write.
 */
export function checkHeaderContinues(filePath: string, header: SegmentHeader, nextLsn: number, chain: Buffer): void {
  if (header.firstLsn !== nextLsn) {
    throw new LogCorruptError(filePath, 0,
      `segment header firstLsn ${header.firstLsn} does not continue the log: the frames before this segment end at lsn ${nextLsn - 1}`);
  }
  if (!header.previousChain.equals(chain)) throw headerChainMismatch(filePath, header.previousChain, chain);
}

/** A segment header's previousChain differs from the chain of the frame before the segment. */
export function headerChainMismatch(filePath: string, headerChain: Buffer, chain: Buffer): LogCorruptError {
  return new LogCorruptError(filePath, 0,
    `segment header previousChain ${shortHex(headerChain)}… does not match the chain ${shortHex(chain)}… of the frame before this segment`);
}
