/**
 * Open-time recovery: check how the segments tile the log, verify the frames of every segment
 * that is scanned, and decide what a bad frame means.
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
 *    CRC-valid frame with the wrong lsn or chain, a bad segment header, a header whose firstLsn
 *    or previousChain does not continue the segments before it, a gap between segments, a
 *    missing first segment) throws LogCorruptError naming file and offset. Nothing is skipped.
 *
 * Trusted sealed segments (option `trustSealedSegmentsBeforePosition` / `...ThroughLsn`): a
 * prefix of sealed segments (never the last one) can be accepted WITHOUT reading their frames.
 * For those only the header (magic, version, CRC, base = file name), the tiling (base = previous
 * base + previous frame bytes, frame bytes = file size - header) and the lsn boundaries (the next
 * header's firstLsn minus this header's firstLsn = this segment's frame count, >= 1) are
 * checked. The first scanned segment starts from its own header's firstLsn and previousChain.
 * Damage inside a trusted segment is therefore NOT detected by open; `SegmentLog.verify()`
 * (which always scans everything) detects it.
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
  MAX_FRAME_BYTES,
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
  parseSegmentHeader,
  segmentFileName,
  type SegmentHeader,
} from "./segment-file.js";
import { SegmentReader, type FrameProblem, type VerifyMode } from "./segment-reader.js";
import { checkpointProblem, type LogCheckpoint } from "./checkpoint.js";
import { fsyncDirectory, readFully, type StorageFs } from "./storage-fs.js";

/** In-memory description of one segment file. Mutated only by the log for its active segment. */
export interface SegmentInfo {
  readonly basePositionBytes: number;
  readonly filePath: string;
  /** Committed frame bytes in the file (file size minus header). */
  frameBytes: number;
  /** lsn of the first frame; for an empty segment, the lsn its first frame will get (= header firstLsn). */
  readonly firstLsn: number;
  frameCount: number;
  /** chain of the frame just before this segment (genesis for the first segment; = header previousChain). */
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
  /** Segments whose frames were read and checked (CRC, lsn, torn-tail rules; chain if requested). */
  readonly segmentsScanned: number;
  readonly framesScanned: number;
  /**
   * Sealed segments accepted without reading their frames (header, tiling and lsn boundaries
   * only), because they lie wholly before the trust bound passed to open. 0 by default.
   */
  readonly segmentsTrusted: number;
  /** Frames in the trusted segments (derived from the segment headers' firstLsn values). */
  readonly framesTrusted: number;
  /** Log position where the trusted prefix ends (= base of the first scanned segment); 0 if none. */
  readonly trustedEndPosition: number;
  /** Last lsn inside the trusted prefix; 0 if none. Frames after it were scanned by this open. */
  readonly trustedLastLsn: number;
  /** Non-null when a torn tail was truncated. */
  readonly truncation: TornTailTruncation | null;
  /** Leftover `*.seg.tmp` files from an interrupted rotation, deleted on open. */
  readonly removedTempFiles: readonly string[];
  /** True when the directory held no segment and the first one was created. */
  readonly createdFirstSegment: boolean;
  /** True when the chain was recomputed for the SCANNED segments (option verifyChainOnOpen). */
  readonly chainVerified: boolean;
  /**
   * Frames of the last segment accepted up to a checkpoint without reading them (option
   * `checkpoint`); 0 when none was given, it lies in an earlier segment, or it failed its check.
   */
  readonly framesTrustedByCheckpoint: number;
  /** Why a given checkpoint was not used (null when used or not given). */
  readonly checkpointRejected: string | null;
}

/** Where reading may start inside a segment: a frame boundary with its lsn and previous chain. */
export interface SeekPoint {
  readonly segmentBasePositionBytes: number;
  /** Log position of the frame. */
  readonly position: number;
  readonly lsn: number;
  /** Chain of the frame before it. */
  readonly previousChain: Buffer;
}

export interface RecoveredLog {
  readonly segments: SegmentInfo[];
  /** Read-write fd of the last segment, positioned nowhere (all writes are positional). */
  readonly activeFd: number;
  readonly lastLsn: number;
  readonly chainHead: Buffer;
  readonly endPosition: number;
  /** Position of the frame with lsn `lastLsn`; −1 when open did not see it (no frame, or trusted). */
  readonly lastFramePosition: number;
  /** Set when a checkpoint was used: reads of the last segment may start there. */
  readonly seekPoint: SeekPoint | null;
  readonly report: RecoveryReport;
}

export interface RecoverOptions {
  readonly storageFs: StorageFs;
  readonly dirPath: string;
  readonly verifyChain: boolean;
  readonly readChunkBytes: number;
  /** Trust sealed segments whose frames all lie before this log position (null: no bound). */
  readonly trustSealedSegmentsBeforePosition: number | null;
  /** Trust sealed segments whose frames all have lsn <= this (null: no bound). */
  readonly trustSealedSegmentsThroughLsn: number | null;
  /** Start the last segment's scan here when the checkpoint checks out (null: scan it whole). */
  readonly checkpoint: LogCheckpoint | null;
}

/** Header and size of one segment file, read without scanning its frames. */
interface SegmentFacts {
  readonly header: SegmentHeader;
  readonly fileSizeBytes: number;
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

  const emptyTrust = { segmentsTrusted: 0, framesTrusted: 0, trustedEndPosition: 0, trustedLastLsn: 0 };
  if (bases.length === 0) {
    // The directory itself may have just been created: make its name durable too.
    fsyncDirectory(storageFs, path.dirname(dirPath));
    const created = createSegmentFile(storageFs, dirPath, { basePositionBytes: 0, firstLsn: 1, previousChain: genesisChainHash() });
    return {
      segments: [{ basePositionBytes: 0, filePath: created.filePath, frameBytes: 0, firstLsn: 1, frameCount: 0, previousChain: genesisChainHash() }],
      activeFd: created.fd,
      lastLsn: 0,
      chainHead: genesisChainHash(),
      endPosition: 0,
      report: {
        segmentsScanned: 0, framesScanned: 0, ...emptyTrust, truncation: null, removedTempFiles,
        createdFirstSegment: true, chainVerified: options.verifyChain, framesTrustedByCheckpoint: 0,
        checkpointRejected: options.checkpoint === null ? null : "the log is empty",
      },
      lastFramePosition: -1,
      seekPoint: null,
    };
  }

  const filePathOf = (index: number): string => path.join(dirPath, segmentFileName(bases[index] as number));
  // Headers read ahead (a trusted segment's frame count comes from the NEXT header), by index.
  const factsCache = new Map<number, SegmentFacts>();
  const factsOf = (index: number): SegmentFacts => {
    let facts = factsCache.get(index);
    if (facts === undefined) {
      facts = readSegmentFacts(storageFs, filePathOf(index), bases[index] as number);
      factsCache.set(index, facts);
    }
    return facts;
  };
  const trustBoundPosition = options.trustSealedSegmentsBeforePosition;
  const trustBoundLsn = options.trustSealedSegmentsThroughLsn;
  /** Whether sealed segment `index` (not the last) lies wholly before the trust bound. */
  const liesBeforeTrustBound = (index: number): boolean => {
    const facts = factsOf(index);
    if (trustBoundPosition !== null) {
      const endPosition = facts.header.basePositionBytes + (facts.fileSizeBytes - SEGMENT_HEADER_BYTES);
      if (endPosition > trustBoundPosition) return false;
    }
    if (trustBoundLsn !== null) {
      const lastLsn = factsOf(index + 1).header.firstLsn - 1;
      if (lastLsn > trustBoundLsn) return false;
    }
    return true;
  };
  const trustEnabled = trustBoundPosition !== null || trustBoundLsn !== null;

  const segments: SegmentInfo[] = [];
  let expectedBase = 0;
  let nextLsn = 1;
  let chain = genesisChainHash();
  let framesScanned = 0;
  let segmentsTrusted = 0;
  let framesTrusted = 0;
  let trusting = trustEnabled; // trusted segments form a prefix: once one is scanned, all later ones are
  let truncation: TornTailTruncation | null = null;
  let activeFd = -1;
  let lastFramePosition = -1;
  let seekPoint: SeekPoint | null = null;
  let framesTrustedByCheckpoint = 0;
  let checkpointRejected: string | null = null;
  const verify: VerifyMode = options.verifyChain ? "chain" : "crc";

  for (let index = 0; index < bases.length; index++) {
    const base = bases[index] as number;
    const isLast = index === bases.length - 1;
    const filePath = filePathOf(index);
    if (base !== expectedBase) {
      throw new LogCorruptError(filePath, 0,
        `segment starts at log position ${base} but the previous segments end at ${expectedBase} (missing or extra segment)`);
    }

    trusting = trusting && !isLast && liesBeforeTrustBound(index);
    if (trusting) {
      const { header, fileSizeBytes } = factsOf(index);
      checkHeaderContinues(filePath, header, nextLsn, chain);
      const frameBytes = fileSizeBytes - SEGMENT_HEADER_BYTES;
      if (frameBytes === 0) {
        throw new LogCorruptError(filePath, SEGMENT_HEADER_BYTES, "segment other than the last one holds no frames");
      }
      const next = factsOf(index + 1).header;
      const frameCount = next.firstLsn - header.firstLsn;
      if (frameCount < 1 || frameCount * FRAME_HEADER_BYTES > frameBytes || frameCount * MAX_FRAME_BYTES < frameBytes) {
        throw new LogCorruptError(filePathOf(index + 1), 0,
          `segment header firstLsn ${next.firstLsn} implies that the previous segment ${path.basename(filePath)} ` +
            `(firstLsn ${header.firstLsn}, ${frameBytes} frame bytes) holds ${frameCount} frames, which is impossible ` +
            `(a sealed segment holds at least one frame, each of ${FRAME_HEADER_BYTES} to ${MAX_FRAME_BYTES} bytes)`);
      }
      segments.push({ basePositionBytes: base, filePath, frameBytes, firstLsn: header.firstLsn, frameCount, previousChain: header.previousChain });
      segmentsTrusted++;
      framesTrusted += frameCount;
      expectedBase = base + frameBytes;
      // Frames are not read: the next segment's header supplies where they end.
      nextLsn = next.firstLsn;
      chain = Buffer.from(next.previousChain);
      continue;
    }

    const fd = storageFs.openSync(filePath, isLast ? "r+" : "r");
    let keepFdOpen = false;
    try {
      const fileSizeBytes = storageFs.fstatSync(fd).size;
      const header = readHeader(storageFs, fd, filePath, base);
      checkHeaderContinues(filePath, header, nextLsn, chain);

      const firstLsn = nextLsn;
      const previousChain = Buffer.from(chain);
      // The last segment may be read from a checkpoint on (frames before it are trusted, as a
      // sealed segment's are), unless the whole chain is to be verified.
      let start = { fileOffset: SEGMENT_HEADER_BYTES, lsn: firstLsn, previousChain };
      const checkpoint = options.checkpoint;
      if (isLast && checkpoint !== null) {
        checkpointRejected = options.verifyChain
          ? "the chain is verified on open"
          : checkpoint.lsn < firstLsn
            ? "it lies before this segment"
            : checkpointProblem(storageFs, fd, base, fileSizeBytes, checkpoint);
        if (checkpointRejected === null) {
          start = { fileOffset: SEGMENT_HEADER_BYTES + (checkpoint.endPosition - base), lsn: checkpoint.lsn + 1, previousChain: Buffer.from(checkpoint.chainHead) };
          framesTrustedByCheckpoint = checkpoint.lsn + 1 - firstLsn;
          lastFramePosition = checkpoint.lastFramePosition;
          seekPoint = { segmentBasePositionBytes: base, position: checkpoint.endPosition, lsn: start.lsn, previousChain: start.previousChain };
        }
      }
      const reader = new SegmentReader({
        storageFs, fd, basePositionBytes: base, endFileOffsetBytes: fileSizeBytes, startFileOffsetBytes: start.fileOffset,
        firstExpectedLsn: start.lsn, previousChain: start.previousChain, verify, readChunkBytes: options.readChunkBytes,
      });
      for (let frame = reader.next(); frame !== null; frame = reader.next()) lastFramePosition = frame.position;
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
      const frameCount = start.lsn - firstLsn + reader.framesRead;
      const frameBytes = endFileOffset - SEGMENT_HEADER_BYTES;
      if (frameBytes === 0 && !isLast) {
        // Rotation only happens right before a batch is written, so only the last segment may be empty.
        throw new LogCorruptError(filePath, SEGMENT_HEADER_BYTES, "segment other than the last one holds no frames");
      }
      segments.push({ basePositionBytes: base, filePath, frameBytes, firstLsn, frameCount, previousChain });
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
  const lastTrusted = segmentsTrusted > 0 ? segments[segmentsTrusted - 1] : undefined;
  return {
    segments,
    activeFd,
    lastLsn: nextLsn - 1,
    chainHead: chain,
    endPosition: expectedBase,
    lastFramePosition,
    seekPoint,
    report: {
      segmentsScanned: segments.length - segmentsTrusted,
      framesScanned,
      segmentsTrusted,
      framesTrusted,
      trustedEndPosition: lastTrusted === undefined ? 0 : lastTrusted.basePositionBytes + lastTrusted.frameBytes,
      trustedLastLsn: lastTrusted === undefined ? 0 : lastTrusted.firstLsn + lastTrusted.frameCount - 1,
      truncation,
      removedTempFiles,
      createdFirstSegment: false,
      chainVerified: options.verifyChain,
      framesTrustedByCheckpoint,
      checkpointRejected,
    },
  };
}

/** Reads and validates the header through an open fd; throws LogCorruptError naming the file. */
export function readHeader(storageFs: StorageFs, fd: number, filePath: string, base: number): SegmentHeader {
  const bytes = Buffer.alloc(SEGMENT_HEADER_BYTES);
  const got = readFully(storageFs, fd, bytes, 0, SEGMENT_HEADER_BYTES, 0);
  const parsed = parseSegmentHeader(bytes.subarray(0, got), base);
  if (!parsed.ok) throw new LogCorruptError(filePath, 0, parsed.problem);
  return parsed.header;
}

function readSegmentFacts(storageFs: StorageFs, filePath: string, base: number): SegmentFacts {
  const fd = storageFs.openSync(filePath, "r");
  try {
    const fileSizeBytes = storageFs.fstatSync(fd).size;
    return { header: readHeader(storageFs, fd, filePath, base), fileSizeBytes };
  } finally {
    storageFs.closeSync(fd);
  }
}

/**
 * A segment's header must continue the log before it: its firstLsn is the next lsn and its
 * previousChain is the chain of the frame just before it. Its CRC is valid at this point, so a
 * mismatch is not a torn write.
 */
function checkHeaderContinues(filePath: string, header: SegmentHeader, nextLsn: number, chain: Buffer): void {
  if (header.firstLsn !== nextLsn) {
    throw new LogCorruptError(filePath, 0,
      `segment header firstLsn ${header.firstLsn} does not continue the log: the frames before this segment end at lsn ${nextLsn - 1}`);
  }
  if (!header.previousChain.equals(chain)) {
    throw new LogCorruptError(filePath, 0,
      `segment header previousChain ${shortHex(header.previousChain)}… does not match the chain ${shortHex(chain)}… of the frame before this segment`);
  }
}

export function shortHex(chain: Buffer): string {
  return chain.subarray(0, 8).toString("hex");
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
