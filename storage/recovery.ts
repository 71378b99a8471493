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
 *
 * The steps, in order: `listSegmentFiles` (or `startEmptyLog` for a new directory); then for each
 * segment, oldest first, the tiling check and either `acceptTrustedSegment` (trusted-segments.ts)
 * or `scanSegment`, which for the last segment may start at a checkpoint (`startAtCheckpoint`) and
 * settles a bad frame with `truncateTornTail` (the evidence rules are in torn-tail.ts); finally
 * `recoveredFrom` builds the result and its report.
 */
import * as path from "node:path";
import { assertStorage } from "./assert.js";
import { checkpointProblem, type LogCheckpoint, type SeekPoint } from "./checkpoint.js";
import { LogCorruptError } from "./errors.js";
import { genesisChainHash } from "./hash-chain.js";
import type { SegmentInfo } from "./log-segments.js";
import {
  SEGMENT_FILE_SUFFIX,
  SEGMENT_HEADER_BYTES,
  TEMP_FILE_SUFFIX,
  checkHeaderContinues,
  createSegmentFile,
  parseSegmentFileName,
  readSegmentHeader,
} from "./segment-file.js";
import { SegmentReader, type FrameProblem, type VerifyMode } from "./segment-reader.js";
import { fsyncDirectory, type StorageFs } from "./storage-fs.js";
import { tornTailReason } from "./torn-tail.js";
import { SegmentHeaders, acceptTrustedSegment, type TrustBound } from "./trusted-segments.js";

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

/**
 * What the walk over the segment files has established so far. Each step below reads it and
 * moves it on; when the last segment has been scanned it is the recovered log.
 */
interface RecoveryWalk {
  readonly segments: SegmentInfo[];
  /** Where the next segment must start: the end of the frames accepted so far. */
  endPosition: number;
  /** lsn the next frame must carry. */
  nextLsn: number;
  /** Chain of the last frame accepted so far (genesis before the first). */
  chain: Buffer;
  framesScanned: number;
  segmentsTrusted: number;
  framesTrusted: number;
  lastFramePosition: number;
  /** Read-write fd of the last segment, once it has been scanned (−1 before). */
  activeFd: number;
  truncation: TornTailTruncation | null;
  seekPoint: SeekPoint | null;
  framesTrustedByCheckpoint: number;
  checkpointRejected: string | null;
}

/** Where a segment's scan starts: a frame boundary, the lsn of the frame there and the chain before it. */
interface ScanStart {
  readonly fileOffset: number;
  readonly lsn: number;
  readonly previousChain: Buffer;
}

/**
 * Opens the log's directory for appending: lists the segment files, accepts each in order (from
 * its header alone while trusted, otherwise by scanning its frames), truncates a torn tail of the
 * last one, and returns the last segment's fd, the durable end and a report. Throws
 * LogCorruptError when the files are not a log this layer wrote.
 */
export function recoverLog(options: RecoverOptions): RecoveredLog {
  const { storageFs, dirPath } = options;
  storageFs.mkdirSync(dirPath);
  const { bases, removedTempFiles } = listSegmentFiles(storageFs, dirPath);
  if (bases.length === 0) return startEmptyLog(options, removedTempFiles);

  const headers = new SegmentHeaders(storageFs, dirPath, bases);
  const bound: TrustBound = { beforePosition: options.trustSealedSegmentsBeforePosition, throughLsn: options.trustSealedSegmentsThroughLsn };
  const walk: RecoveryWalk = {
    segments: [], endPosition: 0, nextLsn: 1, chain: genesisChainHash(), framesScanned: 0, segmentsTrusted: 0, framesTrusted: 0,
    lastFramePosition: -1, activeFd: -1, truncation: null, seekPoint: null, framesTrustedByCheckpoint: 0, checkpointRejected: null,
  };
  let trusting = bound.beforePosition !== null || bound.throughLsn !== null; // trusted segments form a prefix: once one is scanned, all later ones are
  for (let index = 0; index < bases.length; index++) {
    const base = bases[index] as number;
    const isLast = index === bases.length - 1;
    const filePath = headers.filePath(index);
    if (base !== walk.endPosition) {
      throw new LogCorruptError(filePath, 0,
        `segment starts at log position ${base} but the previous segments end at ${walk.endPosition} (missing or extra segment)`);
    }
    trusting = trusting && !isLast && headers.liesBeforeTrustBound(index, bound);
    if (trusting) {
      const trusted = acceptTrustedSegment(headers, index, walk.nextLsn, walk.chain);
      walk.segments.push(trusted.segment);
      walk.segmentsTrusted++;
      walk.framesTrusted += trusted.segment.frameCount;
      walk.endPosition = base + trusted.segment.frameBytes;
      walk.nextLsn = trusted.nextLsn;
      walk.chain = trusted.chain;
    } else {
      scanSegment(options, walk, base, filePath, isLast);
    }
  }
  assertStorage(walk.activeFd >= 0, "recovery must leave the last segment open");
  return recoveredFrom(walk, options, removedTempFiles);
}

/**
 * The segment files in the directory, by base position. Leftover `*.seg.tmp` files of an
 * interrupted rotation are deleted (no segment was ever named after them, so they hold no
 * acknowledged frame); a `.seg` file whose name is not a base position cannot be placed in the
 * log, so it refuses the open.
 */
function listSegmentFiles(storageFs: StorageFs, dirPath: string): { bases: number[]; removedTempFiles: string[] } {
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
  return { bases, removedTempFiles };
}

/** A directory without segments is a new log: its first segment is created, empty. */
function startEmptyLog(options: RecoverOptions, removedTempFiles: string[]): RecoveredLog {
  const { storageFs, dirPath } = options;
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
      segmentsScanned: 0, framesScanned: 0, segmentsTrusted: 0, framesTrusted: 0, trustedEndPosition: 0, trustedLastLsn: 0,
      truncation: null, removedTempFiles, createdFirstSegment: true, chainVerified: options.verifyChain, framesTrustedByCheckpoint: 0,
      checkpointRejected: options.checkpoint === null ? null : "the log is empty",
    },
    lastFramePosition: -1,
    seekPoint: null,
  };
}

/**
 * Accepts a segment that is not trusted by reading its frames (from a usable checkpoint on, for
 * the last one): header continuity, then every frame's CRC, lsn and, if asked, chain. A bad frame
 * is a truncated torn tail or a refused open (see `truncateTornTail`). The last segment's fd
 * stays open: it is the one appends go to.
 */
function scanSegment(options: RecoverOptions, walk: RecoveryWalk, base: number, filePath: string, isLast: boolean): void {
  const { storageFs } = options;
  const fd = storageFs.openSync(filePath, isLast ? "r+" : "r");
  let keepFdOpen = false;
  try {
    const fileSizeBytes = storageFs.fstatSync(fd).size;
    const header = readSegmentHeader(storageFs, fd, filePath, base);
    checkHeaderContinues(filePath, header, walk.nextLsn, walk.chain);
    const firstLsn = walk.nextLsn;
    const previousChain = Buffer.from(walk.chain);
    let start: ScanStart = { fileOffset: SEGMENT_HEADER_BYTES, lsn: firstLsn, previousChain };
    if (isLast && options.checkpoint !== null) start = startAtCheckpoint(options, options.checkpoint, walk, fd, base, fileSizeBytes, start);
    const verify: VerifyMode = options.verifyChain ? "chain" : "crc";
    const reader = new SegmentReader({
      storageFs, fd, basePositionBytes: base, endFileOffsetBytes: fileSizeBytes, startFileOffsetBytes: start.fileOffset,
      firstExpectedLsn: start.lsn, previousChain: start.previousChain, verify, readChunkBytes: options.readChunkBytes,
    });
    for (let frame = reader.next(); frame !== null; frame = reader.next()) walk.lastFramePosition = frame.position;
    const endFileOffset = reader.nextFileOffsetBytes;
    if (reader.problem !== null) {
      walk.truncation = truncateTornTail(storageFs, fd, filePath, reader, reader.problem, fileSizeBytes, isLast);
    } else {
      assertStorage(endFileOffset === fileSizeBytes, "clean scan must end at EOF");
    }
    walk.framesScanned += reader.framesRead;
    const frameCount = start.lsn - firstLsn + reader.framesRead;
    const frameBytes = endFileOffset - SEGMENT_HEADER_BYTES;
    if (frameBytes === 0 && !isLast) {
      // Rotation only happens right before a batch is written, so only the last segment may be empty.
      throw new LogCorruptError(filePath, SEGMENT_HEADER_BYTES, "segment other than the last one holds no frames");
    }
    walk.segments.push({ basePositionBytes: base, filePath, frameBytes, firstLsn, frameCount, previousChain });
    walk.endPosition = base + frameBytes;
    walk.nextLsn = reader.nextExpectedLsn;
    walk.chain = Buffer.from(reader.lastChain);
    if (isLast) {
      walk.activeFd = fd;
      keepFdOpen = true;
    }
  } finally {
    if (!keepFdOpen) storageFs.closeSync(fd);
  }
}

/**
 * Where the last segment's scan starts when the caller passed a checkpoint. The frames before a
 * checkpoint whose frame checks out are trusted, as a sealed segment's are, so the scan (and later
 * `frames()`) starts right after it. Otherwise (the whole chain is to be verified, the point lies
 * in an earlier segment, or its frame fails the check) the scan starts at the segment's first
 * frame and the walk records why.
 */
function startAtCheckpoint(
  options: RecoverOptions,
  checkpoint: LogCheckpoint,
  walk: RecoveryWalk,
  fd: number,
  base: number,
  fileSizeBytes: number,
  segmentStart: ScanStart,
): ScanStart {
  const firstLsn = segmentStart.lsn;
  walk.checkpointRejected = options.verifyChain
    ? "the chain is verified on open"
    : checkpoint.lsn < firstLsn
      ? "it lies before this segment"
      : checkpointProblem(options.storageFs, fd, base, fileSizeBytes, checkpoint);
  if (walk.checkpointRejected !== null) return segmentStart;
  const start = { fileOffset: SEGMENT_HEADER_BYTES + (checkpoint.endPosition - base), lsn: checkpoint.lsn + 1, previousChain: Buffer.from(checkpoint.chainHead) };
  walk.framesTrustedByCheckpoint = checkpoint.lsn + 1 - firstLsn;
  walk.lastFramePosition = checkpoint.lastFramePosition;
  walk.seekPoint = { segmentBasePositionBytes: base, position: checkpoint.endPosition, lsn: start.lsn, previousChain: start.previousChain };
  return start;
}

/**
 * A bad frame ended the scan. At the tail of the last segment it may be a torn write of a commit
 * that never returned, so never acknowledged: it is cut off (ftruncate + fsync) and reported.
 * Anywhere else, or when the evidence says the frame was complete (torn-tail.ts), cutting would
 * drop acknowledged data, so the open is refused.
 */
function truncateTornTail(
  storageFs: StorageFs,
  fd: number,
  filePath: string,
  reader: SegmentReader,
  problem: FrameProblem,
  fileSizeBytes: number,
  isLast: boolean,
): TornTailTruncation {
  const endFileOffset = reader.nextFileOffsetBytes;
  const tornReason = isLast ? tornTailReason(storageFs, fd, problem, fileSizeBytes, reader.nextExpectedLsn) : null;
  if (tornReason === null) {
    throw new LogCorruptError(filePath, problem.fileOffsetBytes,
      `${problem.kind} at log position ${problem.position}: ${problem.detail}` +
        (isLast ? " (not a torn tail: data follows it or the frame is complete)" : " (not in the last segment)"));
  }
  storageFs.ftruncateSync(fd, endFileOffset);
  storageFs.fsyncSync(fd);
  const truncation = {
    segmentFile: filePath,
    truncatedAtPosition: problem.position,
    truncatedAtFileOffsetBytes: endFileOffset,
    truncatedBytes: fileSizeBytes - endFileOffset,
    reason: `${problem.kind}: ${tornReason}`,
  };
  assertStorage(problem.fileOffsetBytes === endFileOffset, "torn frame must start at the end of valid frames");
  return truncation;
}

/** The finished walk as the recovered log, with the report of what open found and did. */
function recoveredFrom(walk: RecoveryWalk, options: RecoverOptions, removedTempFiles: string[]): RecoveredLog {
  const { segments, segmentsTrusted } = walk;
  const lastTrusted = segmentsTrusted > 0 ? segments[segmentsTrusted - 1] : undefined;
  return {
    segments,
    activeFd: walk.activeFd,
    lastLsn: walk.nextLsn - 1,
    chainHead: walk.chain,
    endPosition: walk.endPosition,
    lastFramePosition: walk.lastFramePosition,
    seekPoint: walk.seekPoint,
    report: {
      segmentsScanned: segments.length - segmentsTrusted,
      framesScanned: walk.framesScanned,
      segmentsTrusted,
      framesTrusted: walk.framesTrusted,
      trustedEndPosition: lastTrusted === undefined ? 0 : lastTrusted.basePositionBytes + lastTrusted.frameBytes,
      trustedLastLsn: lastTrusted === undefined ? 0 : lastTrusted.firstLsn + lastTrusted.frameCount - 1,
      truncation: walk.truncation,
      removedTempFiles,
      createdFirstSegment: false,
      chainVerified: options.verifyChain,
      framesTrustedByCheckpoint: walk.framesTrustedByCheckpoint,
      checkpointRejected: walk.checkpointRejected,
    },
  };
}
