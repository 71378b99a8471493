/**
 * Open-time recovery: scan every segment, verify every frame, and decide what a bad frame means.
 *
 * Rules (see docs/storage.md):
 *  - A bad frame at the tail of the LAST segment is a torn write of a commit that never
 *    returned, so it was never acknowledged. It is truncated away (ftruncate + fsync) and
 *    reported. "Tail" means: fewer than a header's bytes remain, or the declared extent runs
 *    past EOF, or the frame fits but fails its CRC/length check and every byte after its
 *    declared extent up to EOF is zero.
 *  - Even then, if the evidence says the frame was complete and only its length field is
 *    damaged (the CRC matches when the frame is taken to end at EOF, or a valid frame with the
 *    next lsn follows), the open is refused: truncating would drop acknowledged data.
 *  - Anything else (bad frame in an earlier segment, bad frame followed by non-zero data, a
 *    CRC-valid frame with the wrong lsn or chain, a bad segment header, a gap between segments,
 *    a missing first segment) throws LogCorruptError naming file and offset. Nothing is skipped.
 */
import * as path from "node:path";
import { assertStorage } from "./assert.js";
import { crc32c } from "./crc32c.js";
import { LogCorruptError } from "./errors.js";
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
import { genesisChainHash } from "./hash-chain.js";
import { writeSafeU64LE } from "./safe-u64.js";
import {
  SEGMENT_FILE_SUFFIX,
  SEGMENT_HEADER_BYTES,
  TEMP_FILE_SUFFIX,
  createSegmentFile,
  parseSegmentFileName,
  segmentFileName,
  segmentHeaderProblem,
} from "./segment-file.js";
import { SegmentReader, type FrameProblem, type VerifyMode } from "./segment-reader.js";
import { fsyncDirectory, readFully, type StorageFs } from "./storage-fs.js";

/** In-memory description of one segment file. Mutated only by the log for its active segment. */
export interface SegmentInfo {
  readonly basePositionBytes: number;
  readonly filePath: string;
  /** Committed frame bytes in the file (file size minus header). */
  frameBytes: number;
  /** lsn of the first frame; for an empty segment, the lsn its first frame will get. */
  readonly firstLsn: number;
  frameCount: number;
  /** chain of the frame just before this segment (genesis for the first segment). */
  readonly previousChain: Buffer;
}

/** A torn tail that recovery removed. */
export interface TornTailTruncation {
  readonly segmentFile: string;
  /** Global log position where the removed bytes started (= the new endPosition). */
  readonly truncatedAtPosition: number;
  readonly truncatedAtFileOffsetBytes: number;
  readonly truncatedBytes: number;
  /** Which check the first removed frame failed, e.g. "extent-past-end: ...". */
  readonly reason: string;
}

export interface RecoveryReport {
  readonly segmentsScanned: number;
  readonly framesScanned: number;
  /** Non-null when a torn tail was truncated. */
  readonly truncation: TornTailTruncation | null;
  /** Leftover `*.seg.tmp` files from an interrupted rotation, deleted on open. */
  readonly removedTempFiles: readonly string[];
  /** True when the directory held no segment and the first one was created. */
  readonly createdFirstSegment: boolean;
  readonly chainVerified: boolean;
}

export interface RecoveredLog {
  readonly segments: SegmentInfo[];
  /** Read-write fd of the last segment, positioned nowhere (all writes are positional). */
  readonly activeFd: number;
  readonly lastLsn: number;
  readonly chainHead: Buffer;
  readonly endPosition: number;
  readonly report: RecoveryReport;
}

export interface RecoverOptions {
  readonly storageFs: StorageFs;
  readonly dirPath: string;
  readonly verifyChain: boolean;
  readonly readChunkBytes: number;
}

export function recoverLog(options: RecoverOptions): RecoveredLog {
  const { storageFs, dirPath } = options;
  storageFs.mkdirSync(dirPath);

  const removedTempFiles: string[] = [];
  const bases: number[] = [];
  for (const name of storageFs.readdirSync(dirPath)) {
    if (name.endsWith(SEGMENT_FILE_SUFFIX + TEMP_FILE_SUFFIX)) {
      storageFs.unlinkSync(path.join(dirPath, name));
      removedTempFiles.push(name);
      continue;
    }
    if (!name.endsWith(SEGMENT_FILE_SUFFIX)) continue; // snapshots/, lock files, ...: not ours
    const base = parseSegmentFileName(name);
    if (base === null) {
      throw new LogCorruptError(path.join(dirPath, name), 0, "file looks like a segment but its name is not 20 digits + .seg");
    }
    bases.push(base);
  }
  if (removedTempFiles.length > 0) fsyncDirectory(storageFs, dirPath);
  bases.sort((a, b) => a - b);

  if (bases.length === 0) {
    // The directory itself may have just been created: make its name durable too.
    fsyncDirectory(storageFs, path.dirname(dirPath));
    const created = createSegmentFile(storageFs, dirPath, 0);
    return {
      segments: [{ basePositionBytes: 0, filePath: created.filePath, frameBytes: 0, firstLsn: 1, frameCount: 0, previousChain: genesisChainHash() }],
      activeFd: created.fd,
      lastLsn: 0,
      chainHead: genesisChainHash(),
      endPosition: 0,
      report: { segmentsScanned: 0, framesScanned: 0, truncation: null, removedTempFiles, createdFirstSegment: true, chainVerified: options.verifyChain },
    };
  }

  const segments: SegmentInfo[] = [];
  let expectedBase = 0;
  let nextLsn = 1;
  let chain = genesisChainHash();
  let framesScanned = 0;
  let truncation: TornTailTruncation | null = null;
  let activeFd = -1;
  const verify: VerifyMode = options.verifyChain ? "chain" : "crc";

  for (let index = 0; index < bases.length; index++) {
    const base = bases[index] as number;
    const isLast = index === bases.length - 1;
    const filePath = path.join(dirPath, segmentFileName(base));
    if (base !== expectedBase) {
      throw new LogCorruptError(filePath, 0,
        `segment starts at log position ${base} but the previous segments end at ${expectedBase} (missing or extra segment)`);
    }
    const fd = storageFs.openSync(filePath, isLast ? "r+" : "r");
    let keepFdOpen = false;
    try {
      const fileSizeBytes = storageFs.fstatSync(fd).size;
      const header = Buffer.alloc(SEGMENT_HEADER_BYTES);
      const headerBytes = readFully(storageFs, fd, header, 0, SEGMENT_HEADER_BYTES, 0);
      const headerProblem = segmentHeaderProblem(header.subarray(0, headerBytes), base);
      if (headerProblem !== null) throw new LogCorruptError(filePath, 0, headerProblem);

      const firstLsn = nextLsn;
      const previousChain = Buffer.from(chain);
      const reader = new SegmentReader({
        storageFs, fd, basePositionBytes: base, endFileOffsetBytes: fileSizeBytes,
        firstExpectedLsn: firstLsn, previousChain, verify, readChunkBytes: options.readChunkBytes,
      });
      while (reader.next() !== null) { /* the reader verifies; we only need its end state */ }
      const endFileOffset = reader.nextFileOffsetBytes;
      const problem = reader.problem;
      if (problem !== null) {
        const tornReason = isLast ? tornTailReason(storageFs, fd, problem, fileSizeBytes, reader.nextExpectedLsn) : null;
        if (tornReason === null) {
          throw new LogCorruptError(filePath, problem.fileOffsetBytes,
            `${problem.kind} at log position ${problem.position}: ${problem.detail}` +
              (isLast ? " (not a torn tail: data follows it or the frame is complete)" : " (not in the last segment)"));
        }
        storageFs.ftruncateSync(fd, endFileOffset);
        storageFs.fsyncSync(fd);
        truncation = {
          segmentFile: filePath,
          truncatedAtPosition: problem.position,
          truncatedAtFileOffsetBytes: endFileOffset,
          truncatedBytes: fileSizeBytes - endFileOffset,
          reason: `${problem.kind}: ${tornReason}`,
        };
        assertStorage(problem.fileOffsetBytes === endFileOffset, "torn frame must start at the end of valid frames");
      } else {
        assertStorage(endFileOffset === fileSizeBytes, "clean scan must end at EOF");
      }
      framesScanned += reader.framesRead;
      const frameBytes = endFileOffset - SEGMENT_HEADER_BYTES;
      if (frameBytes === 0 && !isLast) {
        // Rotation only happens right before a batch is written, so only the last segment may be empty.
        throw new LogCorruptError(filePath, SEGMENT_HEADER_BYTES, "segment other than the last one holds no frames");
      }
      segments.push({ basePositionBytes: base, filePath, frameBytes, firstLsn, frameCount: reader.framesRead, previousChain });
      expectedBase = base + frameBytes;
      nextLsn = reader.nextExpectedLsn;
      chain = Buffer.from(reader.lastChain);
      if (isLast) {
        activeFd = fd;
        keepFdOpen = true;
      }
    } finally {
      if (!keepFdOpen) storageFs.closeSync(fd);
    }
  }

  assertStorage(activeFd >= 0, "recovery must leave the last segment open");
  return {
    segments,
    activeFd,
    lastLsn: nextLsn - 1,
    chainHead: chain,
    endPosition: expectedBase,
    report: { segmentsScanned: segments.length, framesScanned, truncation, removedTempFiles, createdFirstSegment: false, chainVerified: options.verifyChain },
  };
}

/**
 * Decides whether a bad frame at the tail of the last segment is a torn write. Returns a
 * human-readable reason when it is, null when the open must be refused.
 */
function tornTailReason(
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
