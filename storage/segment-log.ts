/**
 * Append-only segment log with group commit, for a single writer thread.
 *
 * Contract:
 *  - `append(payload)` only stages a frame in memory (assigning its lsn, position and chain);
 *    nothing is durable and nothing may be acknowledged yet.
 *  - `commitSync()` writes the whole staged batch with ONE pwrite of ONE buffer and ONE
 *    fdatasync, and returns only when it is durable. Callers append many payloads per event-loop
 *    turn, commit once, then release replies.
 *  - If a write or flush fails, the log is permanently failed: that commit throws LogFailedError
 *    and so does every later append/commit. Never retried, never reported as success.
 *  - `close()` commits nothing: staged frames that were never committed are dropped and their
 *    lsns are reused after reopen.
 *  - One writer per directory. There is no lock file; the caller must guarantee it.
 *
 * Positions count frame bytes only (segment headers excluded), see segment-file.ts.
 */
import * as path from "node:path";
import { assertStorage } from "./assert.js";
import { LogClosedError, LogCorruptError, LogFailedError, StorageLimitError } from "./errors.js";
import { FRAME_CHAIN_OFFSET, FRAME_HEADER_BYTES, MAX_PAYLOAD_BYTES, sealFrameInPlace } from "./frame.js";
import { FrameReader, ReadFdCache, locateIn, type LocatedPosition, type LogReadView } from "./frame-reader.js";
import { CHAIN_HASH_BYTES, genesisChainHash, shortHex } from "./hash-chain.js";
import type { SegmentInfo } from "./log-segments.js";
import { recoverLog, type RecoveryReport } from "./recovery.js";
import type { LogCheckpoint, SeekPoint } from "./checkpoint.js";
import { SEGMENT_HEADER_BYTES, createSegmentFile, readSegmentHeader as readHeader } from "./segment-file.js";
import {
  DEFAULT_READ_CHUNK_BYTES,
  MIN_READ_CHUNK_BYTES,
  SegmentReader,
  type LogFrame,
  type VerifyMode,
} from "./segment-reader.js";
import { nodeStorageFs, type StorageFs } from "./storage-fs.js";

const MIB = 1024 * 1024;
export const DEFAULT_SEGMENT_SIZE_BYTES = 64 * MIB;
export const MAX_SEGMENT_SIZE_BYTES = 1024 * 1024 * MIB; // 1 TiB, far below 2^53
export const MIN_SEGMENT_SIZE_BYTES = SEGMENT_HEADER_BYTES + FRAME_HEADER_BYTES;
export const DEFAULT_MAX_BATCH_BYTES = 64 * MIB;
export const MAX_BATCH_BYTES_LIMIT = 1024 * MIB;
const INITIAL_STAGING_BYTES = 64 * 1024;
export interface SegmentLogOptions {
  /** Directory holding the segment files (created if missing). */
  readonly dir: string;
  /** Rotate before a batch that would make the file (header included) larger than this. Default 64 MiB. */
  readonly segmentSizeBytes?: number;
  /** Largest payload `append` accepts. Default and hard maximum: 16 MiB. */
  readonly maxPayloadBytes?: number;
  /** Largest staged batch (frame bytes). Default 64 MiB; must hold one maximal frame. */
  readonly maxBatchBytes?: number;
  /** Read chunk size for scans and recovery. Default 4 MiB. */
  readonly readChunkBytes?: number;
  /** Recompute the SHA-256 chain of the scanned segments during open (slower start). Default false: CRC + lsn only. */
  readonly verifyChainOnOpen?: boolean;
  /**
   * Fast open after a snapshot: sealed segments (every segment except the last) whose frames all
   * lie before this log position are accepted WITHOUT reading their frames. Only their header
   * (magic, version, CRC, base = file name), the tiling of positions and the lsn boundaries
   * between segment headers are checked. The segment holding this position and every later one
   * (always including the last) are fully scanned as usual. Default: absent = scan everything.
   * Damage inside a trusted segment is not detected by open; `verify()` detects it.
   * Pass the position of the first frame you will replay (e.g. `endPosition` recorded when a
   * snapshot was taken). Mutually exclusive with `trustSealedSegmentsThroughLsn`.
   */
  readonly trustSealedSegmentsBeforePosition?: number;
  /**
   * Same as `trustSealedSegmentsBeforePosition`, bounded by lsn instead: sealed segments whose
   * frames all have lsn <= this value are trusted (their lsn range comes from consecutive
   * segment headers). Pass the lsn you replay after, e.g. `snapshot.lsn`. Mutually exclusive
   * with `trustSealedSegmentsBeforePosition`.
   */
  readonly trustSealedSegmentsThroughLsn?: number;
  /**
   * Fast open of the last segment: a point the caller saved state at (a snapshot's lsn, chain head
   * and the position of that lsn's frame, see checkpoint.ts). When it lies in the last segment and
   * its frame checks out, frames before it are accepted without reading them (as a trusted sealed
   * segment's are) and `frames(lsn)` starts reading there. Ignored with `verifyChainOnOpen`.
   * Damage before it is not detected by open; `verify()` detects it.
   */
  readonly checkpoint?: LogCheckpoint;
  /** File-system calls; default node:fs. Tests inject failures here. */
  readonly fs?: StorageFs;
}

export interface AppendResult {
  readonly lsn: number;
  /** Global log position of the staged frame; valid for readAt once committed. */
  readonly position: number;
}

export interface CommitResult {
  /** Frames made durable by this commit (0 if nothing was staged: no I/O then). */
  readonly frames: number;
  readonly bytes: number;
  readonly lastLsn: number;
  readonly endPosition: number;
}

export interface LogStats {
  readonly bytesWritten: number;
  readonly commits: number;
  readonly framesWritten: number;
  readonly rotations: number;
  readonly segments: number;
}

export interface FramesOptions {
  /** Default "crc". "chain" also recomputes the hash chain; "none" trusts the bytes. */
  readonly verify?: VerifyMode;
  /**
   * Default false: `payload` and `chain` are views into the read buffer, valid only until the
   * iterator advances. True: each frame gets its own copies (slower, safe to keep).
   */
  readonly copyPayloads?: boolean;
}

export type VerifyResult =
  | { readonly ok: true; readonly framesVerified: number; readonly lastLsn: number; readonly chainHead: Buffer }
  | { readonly ok: false; readonly framesVerified: number; readonly error: LogCorruptError };

type LogState = "open" | "failed" | "closed";

export class SegmentLog {
  readonly dir: string;
  /** What open-time recovery found and did (torn tail truncation, removed temp files). */
  readonly recovery: RecoveryReport;

  private readonly storageFs: StorageFs;
  private readonly segmentSizeBytes: number;
  private readonly maxPayloadBytes: number;
  private readonly maxBatchBytes: number;
  private readonly readChunkBytes: number;
  private readonly segments: SegmentInfo[];
  private committedLastFramePosition: number;
  /** A frame boundary inside a segment where reads may start (from a checkpoint), or null. */
  private readonly seekPoint: SeekPoint | null;
  private activeFd: number;
  /** Read-only fds of sealed segments (readAt); the active segment is read through its own fd. */
  private readonly readFds: ReadFdCache;
  private readonly frameReader: FrameReader;
  private state: LogState = "open";
  private failureCause: unknown = null;

  // Committed (durable) state.
  private committedLastLsn: number;
  private committedEndPosition: number;
  private readonly committedChainHead: Buffer;

  // Staged batch: frames encoded back to back, ready to be written as one buffer.
  private staging: Buffer;
  private stagedBytesCount = 0;
  private stagedFramesCount = 0;
  /** Offset in `staging` of the last staged frame (its chain is the next frame's previous chain). */
  private lastStagedFrameOffset = -1;

  private bytesWritten = 0;
  private commits = 0;
  private framesWritten = 0;
  private rotations = 0;

  private constructor(options: SegmentLogOptions) {
    this.dir = path.resolve(options.dir);
    this.storageFs = options.fs ?? nodeStorageFs;
    this.readFds = new ReadFdCache(this.storageFs);
    this.frameReader = new FrameReader((position) => this.locate(position), this.storageFs);
    this.segmentSizeBytes = checkedOption(options.segmentSizeBytes, DEFAULT_SEGMENT_SIZE_BYTES,
      MIN_SEGMENT_SIZE_BYTES, MAX_SEGMENT_SIZE_BYTES, "segmentSizeBytes");
    this.maxPayloadBytes = checkedOption(options.maxPayloadBytes, MAX_PAYLOAD_BYTES, 0, MAX_PAYLOAD_BYTES, "maxPayloadBytes");
    this.maxBatchBytes = checkedOption(options.maxBatchBytes, DEFAULT_MAX_BATCH_BYTES,
      FRAME_HEADER_BYTES + this.maxPayloadBytes, MAX_BATCH_BYTES_LIMIT, "maxBatchBytes");
    this.readChunkBytes = checkedOption(options.readChunkBytes, DEFAULT_READ_CHUNK_BYTES,
      MIN_READ_CHUNK_BYTES, 256 * MIB, "readChunkBytes");

    const trustBeforePosition = optionalBound(options.trustSealedSegmentsBeforePosition, "trustSealedSegmentsBeforePosition");
    const trustThroughLsn = optionalBound(options.trustSealedSegmentsThroughLsn, "trustSealedSegmentsThroughLsn");
    if (trustBeforePosition !== null && trustThroughLsn !== null) {
      throw new RangeError("pass at most one of trustSealedSegmentsBeforePosition and trustSealedSegmentsThroughLsn");
    }

    const recovered = recoverLog({
      storageFs: this.storageFs,
      dirPath: this.dir,
      verifyChain: options.verifyChainOnOpen ?? false,
      readChunkBytes: this.readChunkBytes,
      trustSealedSegmentsBeforePosition: trustBeforePosition,
      trustSealedSegmentsThroughLsn: trustThroughLsn,
      checkpoint: options.checkpoint ?? null,
    });
    this.committedLastFramePosition = recovered.lastFramePosition;
    this.seekPoint = recovered.seekPoint;
    this.segments = recovered.segments;
    this.activeFd = recovered.activeFd;
    this.committedLastLsn = recovered.lastLsn;
    this.committedEndPosition = recovered.endPosition;
    this.committedChainHead = Buffer.from(recovered.chainHead);
    this.recovery = recovered.report;
    this.staging = Buffer.allocUnsafe(Math.min(INITIAL_STAGING_BYTES, this.maxBatchBytes));
  }

  /** Opens (or creates) the log in `options.dir`, running recovery. Throws LogCorruptError. */
  static open(options: SegmentLogOptions): SegmentLog {
    return new SegmentLog(options);
  }

  /** lsn of the last durable frame (0 for an empty log). Staged frames are not included. */
  get lastLsn(): number {
    return this.committedLastLsn;
  }

  /** Chain hash of the last durable frame (32 zero bytes for an empty log). A copy. */
  get chainHead(): Buffer {
    return Buffer.from(this.committedChainHead);
  }

  /**
   * Position of the last durable frame, for a checkpoint (see `checkpoint`); −1 when unknown (an
   * empty log, or an open that did not read the last frame and no frame was committed since).
   */
  get lastFramePosition(): number {
    return this.committedLastFramePosition;
  }

  /** Global position just past the last durable frame = total durable frame bytes. */
  get endPosition(): number {
    return this.committedEndPosition;
  }

  get stagedFrames(): number {
    return this.stagedFramesCount;
  }

  get stagedBytes(): number {
    return this.stagedBytesCount;
  }

  /** True once a write/flush failed; every later append/commit throws LogFailedError. */
  get failed(): boolean {
    return this.state === "failed";
  }

  get closed(): boolean {
    return this.state === "closed";
  }

  get stats(): LogStats {
    return {
      bytesWritten: this.bytesWritten,
      commits: this.commits,
      framesWritten: this.framesWritten,
      rotations: this.rotations,
      segments: this.segments.length,
    };
  }

  /** Absolute paths of the segment files, oldest first. */
  segmentFiles(): string[] {
    return this.segments.map((segment) => segment.filePath);
  }

  /**
   * Stages one frame. Nothing is written: the frame becomes durable with the next successful
   * `commitSync()`. Throws StorageLimitError (log stays usable) if the payload or the batch is
   * too large; throws LogFailedError/LogClosedError if the log cannot accept writes.
   */
  append(payload: Uint8Array): AppendResult {
    this.assertWritable();
    if (!(payload instanceof Uint8Array)) throw new TypeError("payload must be a Uint8Array");
    if (payload.length > this.maxPayloadBytes) {
      throw new StorageLimitError(`payload of ${payload.length} bytes exceeds maxPayloadBytes ${this.maxPayloadBytes}`);
    }
    const frameBytes = FRAME_HEADER_BYTES + payload.length;
    const frameOffset = this.stagedBytesCount;
    if (frameOffset + frameBytes > this.maxBatchBytes) {
      throw new StorageLimitError(`batch would reach ${frameOffset + frameBytes} bytes, over maxBatchBytes ${this.maxBatchBytes}; commit first`);
    }
    const lsn = this.committedLastLsn + this.stagedFramesCount + 1;
    assertStorage(Number.isSafeInteger(lsn), "lsn overflowed Number.MAX_SAFE_INTEGER");
    this.ensureStagingCapacity(frameOffset + frameBytes);
    const chainSlot = frameOffset + FRAME_CHAIN_OFFSET;
    if (this.lastStagedFrameOffset < 0) {
      this.staging.set(this.committedChainHead, chainSlot);
    } else {
      const previousSlot = this.lastStagedFrameOffset + FRAME_CHAIN_OFFSET;
      this.staging.copyWithin(chainSlot, previousSlot, previousSlot + CHAIN_HASH_BYTES);
    }
    const written = sealFrameInPlace(this.staging, frameOffset, lsn, payload);
    assertStorage(written === frameBytes, "encoded frame size mismatch");
    this.lastStagedFrameOffset = frameOffset;
    this.stagedBytesCount = frameOffset + frameBytes;
    this.stagedFramesCount++;
    return { lsn, position: this.committedEndPosition + frameOffset };
  }

  /**
   * Makes every staged frame durable: rotate if needed, ONE pwrite of the batch, ONE fdatasync.
   * On any I/O error the log becomes permanently failed and LogFailedError is thrown.
   */
  commitSync(): CommitResult {
    this.assertWritable();
    const frames = this.stagedFramesCount;
    const bytes = this.stagedBytesCount;
    if (frames === 0) {
      return { frames: 0, bytes: 0, lastLsn: this.committedLastLsn, endPosition: this.committedEndPosition };
    }
    let active = this.activeSegment();
    try {
      // Rotate before a batch that would overflow; an empty segment takes any batch (so one
      // oversized batch still fits somewhere). A batch never spans two segments.
      if (active.frameCount > 0 && SEGMENT_HEADER_BYTES + active.frameBytes + bytes > this.segmentSizeBytes) {
        active = this.rotate();
      }
      const fileOffset = SEGMENT_HEADER_BYTES + active.frameBytes;
      const writtenBytes = this.storageFs.writeSync(this.activeFd, this.staging, 0, bytes, fileOffset);
      if (writtenBytes !== bytes) {
        throw new Error(`short write: ${writtenBytes} of ${bytes} bytes at ${active.filePath} offset ${fileOffset}`);
      }
      this.storageFs.fdatasyncSync(this.activeFd);
    } catch (cause) {
      this.state = "failed";
      this.failureCause = cause;
      this.dropStaged();
      throw new LogFailedError(`commit failed, log is now permanently failed: ${describe(cause)}`, { cause });
    }
    active.frameBytes += bytes;
    active.frameCount += frames;
    this.committedLastFramePosition = this.committedEndPosition + this.lastStagedFrameOffset;
    this.committedEndPosition += bytes;
    this.committedLastLsn += frames;
    const chainAt = this.lastStagedFrameOffset + FRAME_CHAIN_OFFSET;
    this.staging.copy(this.committedChainHead, 0, chainAt, chainAt + CHAIN_HASH_BYTES);
    this.bytesWritten += bytes;
    this.framesWritten += frames;
    this.commits++;
    this.dropStaged();
    return { frames, bytes, lastLsn: this.committedLastLsn, endPosition: this.committedEndPosition };
  }

  /**
   * Reads one durable frame by position (as returned by append). Always checks the CRC and
   * returns owned copies. A position that is not a frame boundary fails the CRC check and
   * throws LogCorruptError (the error says so).
   */
  readAt(position: number): LogFrame {
    return this.frameReader.readAt(position);
  }

  /**
   * `readAt` for many ascending positions, frames close together read with one pread
   * (frame-reader.ts); the frames handed to `visit` own their bytes.
   */
  readManyAt(positions: ArrayLike<number>, visit: (frame: LogFrame, index: number) => void): void {
    this.frameReader.readManyAt(positions, visit);
  }

  /**
   * The durable extent as plain data, for reading frames on another thread (`LogView`): the
   * segments as they are now, up to the current end. Later commits are not part of it.
   */
  readView(): LogReadView {
    this.assertReadable();
    return {
      dir: this.dir,
      segments: this.segments.map(({ basePositionBytes, filePath, frameBytes, firstLsn, frameCount }) => ({ basePositionBytes, filePath, frameBytes, firstLsn, frameCount })),
      endPosition: this.committedEndPosition,
    };
  }

  /** The segment, fd and file offsets of a durable position (throws RangeError outside the log). */
  private locate(position: number): LocatedPosition {
    this.assertReadable();
    const active = this.activeSegment();
    return locateIn(this.segments, this.committedEndPosition, position, (segment) => (segment === active ? this.activeFd : this.readFds.get(segment.filePath)));
  }

  /**
   * Yields durable frames with lsn > fromLsnExclusive in lsn order, across segments, reading
   * in `readChunkBytes` chunks. The set of frames is fixed when iteration starts (later commits
   * are not seen). Bad bytes throw LogCorruptError naming file and offset. Unless
   * `copyPayloads` is set, `payload`/`chain` are views valid only until the next step.
   * Reading starts at the segment holding lsn fromLsnExclusive + 1 (binary search over the
   * segments' firstLsn); older segments are not opened. In "chain" mode the chain starts from
   * that segment's header previousChain and is carried across later segments, each of whose
   * header previousChain must match it.
   */
  frames(fromLsnExclusive = 0, options: FramesOptions = {}): Generator<LogFrame, void, undefined> {
    // Validate eagerly (a generator body would only run at the first next()).
    this.assertReadable();
    if (!Number.isSafeInteger(fromLsnExclusive) || fromLsnExclusive < 0 || fromLsnExclusive > this.committedLastLsn) {
      throw new RangeError(`fromLsnExclusive ${fromLsnExclusive} is outside [0, ${this.committedLastLsn}]`);
    }
    // Snapshot the durable extent now so commits made while iterating do not race the reader.
    const snapshot: SegmentInfo[] = [];
    if (fromLsnExclusive < this.committedLastLsn) {
      for (let index = this.segmentIndexForLsn(fromLsnExclusive + 1); index < this.segments.length; index++) {
        const segment = this.segments[index] as SegmentInfo;
        if (segment.frameCount > 0) snapshot.push({ ...segment });
      }
    }
    return this.readSegments(snapshot, fromLsnExclusive, options.verify ?? "crc", options.copyPayloads ?? false);
  }

  private *readSegments(
    snapshot: readonly SegmentInfo[],
    fromLsnExclusive: number,
    verify: VerifyMode,
    copyPayloads: boolean,
  ): Generator<LogFrame, void, undefined> {
    // Chain carried across segments in "chain" mode (null before the first segment).
    let carriedChain: Buffer | null = null;
    for (const segment of snapshot) {
      if (carriedChain !== null && !carriedChain.equals(segment.previousChain)) {
        throw new LogCorruptError(segment.filePath, 0,
          `segment header previousChain ${shortHex(segment.previousChain)}… does not match the chain ${shortHex(carriedChain)}… of the frame before this segment`);
      }
      const endLsnExclusive = segment.firstLsn + segment.frameCount;
      // Start at the checkpoint when the frames wanted all lie after it (not when verifying the
      // chain, which needs every frame from the segment's start).
      const seek = this.seekPoint;
      const fromSeek = seek !== null && seek.segmentBasePositionBytes === segment.basePositionBytes && seek.lsn <= fromLsnExclusive + 1 && verify !== "chain";
      const fd = this.storageFs.openSync(segment.filePath, "r");
      try {
        const reader = new SegmentReader({
          storageFs: this.storageFs,
          fd,
          basePositionBytes: segment.basePositionBytes,
          endFileOffsetBytes: SEGMENT_HEADER_BYTES + segment.frameBytes,
          startFileOffsetBytes: fromSeek ? SEGMENT_HEADER_BYTES + (seek.position - segment.basePositionBytes) : SEGMENT_HEADER_BYTES,
          firstExpectedLsn: fromSeek ? seek.lsn : segment.firstLsn,
          previousChain: fromSeek ? seek.previousChain : segment.previousChain,
          verify,
          readChunkBytes: this.readChunkBytes,
        });
        for (let frame = reader.next(); frame !== null; frame = reader.next()) {
          // Only possible when the segment was trusted at open and its neighbours' headers lie.
          if (frame.lsn >= endLsnExclusive) throw segmentCountMismatch(segment, "more");
          if (frame.lsn <= fromLsnExclusive) continue;
          yield copyPayloads
            ? { lsn: frame.lsn, position: frame.position, payload: Buffer.from(frame.payload), chain: Buffer.from(frame.chain) }
            : frame;
        }
        const problem = reader.problem;
        if (problem !== null) {
          throw new LogCorruptError(segment.filePath, problem.fileOffsetBytes,
            `${problem.kind} at log position ${problem.position}: ${problem.detail}`);
        }
        if (reader.framesRead !== endLsnExclusive - (fromSeek ? seek.lsn : segment.firstLsn)) throw segmentCountMismatch(segment, "fewer");
        if (verify === "chain") carriedChain = Buffer.from(reader.lastChain);
      } finally {
        this.storageFs.closeSync(fd);
      }
    }
  }

  /**
   * Full integrity audit of the durable log, whatever open trusted: every segment header is
   * re-read and must continue the log (its firstLsn = the next lsn, its previousChain = the
   * chain of the frame before it, as computed by this scan), and every frame is checked (CRC,
   * lsn continuity, the whole SHA-256 chain from genesis). Returns the first mismatch (file +
   * offset) instead of throwing.
   */
  verify(): VerifyResult {
    this.assertReadable();
    const snapshot = this.segments.map((segment) => ({ ...segment }));
    let framesVerified = 0;
    let nextLsn = 1;
    let chain = genesisChainHash();
    /** Previous segment, checked after the next header so a lying header is named first. */
    let previous: { segment: SegmentInfo; framesRead: number } | null = null;
    try {
      for (const segment of snapshot) {
        const fd = this.storageFs.openSync(segment.filePath, "r");
        try {
          const header = readHeader(this.storageFs, fd, segment.filePath, segment.basePositionBytes);
          if (header.firstLsn !== nextLsn) {
            throw new LogCorruptError(segment.filePath, 0,
              `segment header firstLsn ${header.firstLsn} does not match the lsn computed by the scan (${nextLsn})`);
          }
          if (!header.previousChain.equals(chain)) {
            throw new LogCorruptError(segment.filePath, 0,
              `segment header previousChain ${shortHex(header.previousChain)}… does not match the chain computed by the scan (${shortHex(chain)}…)`);
          }
          if (previous !== null && previous.framesRead !== previous.segment.frameCount) {
            throw segmentCountMismatch(previous.segment, previous.framesRead > previous.segment.frameCount ? "more" : "fewer");
          }
          if (segment.firstLsn !== nextLsn) {
            throw new LogCorruptError(segment.filePath, 0,
              `segment firstLsn ${segment.firstLsn} recorded at open does not match the lsn computed by the scan (${nextLsn})`);
          }
          const reader = new SegmentReader({
            storageFs: this.storageFs,
            fd,
            basePositionBytes: segment.basePositionBytes,
            endFileOffsetBytes: SEGMENT_HEADER_BYTES + segment.frameBytes,
            firstExpectedLsn: nextLsn,
            previousChain: chain,
            verify: "chain",
            readChunkBytes: this.readChunkBytes,
          });
          while (reader.next() !== null) framesVerified++;
          const problem = reader.problem;
          if (problem !== null) {
            throw new LogCorruptError(segment.filePath, problem.fileOffsetBytes,
              `${problem.kind} at log position ${problem.position}: ${problem.detail}`);
          }
          nextLsn = reader.nextExpectedLsn;
          chain = Buffer.from(reader.lastChain);
          previous = { segment, framesRead: reader.framesRead };
        } finally {
          this.storageFs.closeSync(fd);
        }
      }
      if (previous !== null && previous.framesRead !== previous.segment.frameCount) {
        throw segmentCountMismatch(previous.segment, previous.framesRead > previous.segment.frameCount ? "more" : "fewer");
      }
    } catch (error) {
      if (error instanceof LogCorruptError) return { ok: false, framesVerified, error };
      throw error;
    }
    return { ok: true, framesVerified, lastLsn: nextLsn - 1, chainHead: chain };
  }

  /**
   * Closes the files. Commits nothing: staged, uncommitted frames are dropped. Idempotent.
   * Allowed in the failed state (that is how a failed log is shut down before reopening).
   */
  close(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.dropStaged();
    this.readFds.closeAll();
    this.storageFs.closeSync(this.activeFd);
  }

  /** The error that put the log into the failed state, if any. */
  get failure(): unknown {
    return this.failureCause;
  }

  private activeSegment(): SegmentInfo {
    const active = this.segments[this.segments.length - 1];
    assertStorage(active !== undefined, "log has no segment");
    return active;
  }

  /** Creates the next segment at the current end position and makes it the write target. */
  private rotate(): SegmentInfo {
    const created = createSegmentFile(this.storageFs, this.dir, {
      basePositionBytes: this.committedEndPosition,
      firstLsn: this.committedLastLsn + 1,
      previousChain: this.committedChainHead,
    });
    const previousFd = this.activeFd;
    this.activeFd = created.fd;
    const segment: SegmentInfo = {
      basePositionBytes: this.committedEndPosition,
      filePath: created.filePath,
      frameBytes: 0,
      firstLsn: this.committedLastLsn + 1,
      frameCount: 0,
      previousChain: Buffer.from(this.committedChainHead),
    };
    this.segments.push(segment);
    this.rotations++;
    // The previous segment's data is already durable (every commit fdatasyncs), so only close it.
    this.storageFs.closeSync(previousFd);
    return segment;
  }

  /**
   * Binary search: index of the last segment whose firstLsn is <= lsn. For lsn in
   * [1, lastLsn] that is the segment holding it (sealed segments are never empty).
   */
  private segmentIndexForLsn(lsn: number): number {
    let low = 0;
    let high = this.segments.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((this.segments[middle] as SegmentInfo).firstLsn <= lsn) low = middle;
      else high = middle - 1;
    }
    const found = this.segments[low];
    assertStorage(found !== undefined && found.firstLsn <= lsn && lsn < found.firstLsn + Math.max(1, found.frameCount), "no segment for lsn");
    return low;
  }

  private ensureStagingCapacity(requiredBytes: number): void {
    if (requiredBytes <= this.staging.length) return;
    let capacity = this.staging.length;
    while (capacity < requiredBytes) capacity *= 2;
    const grown = Buffer.allocUnsafe(Math.min(capacity, this.maxBatchBytes));
    assertStorage(grown.length >= requiredBytes, "staging buffer cannot hold the batch");
    this.staging.copy(grown, 0, 0, this.stagedBytesCount);
    this.staging = grown;
  }

  private dropStaged(): void {
    this.stagedBytesCount = 0;
    this.stagedFramesCount = 0;
    this.lastStagedFrameOffset = -1;
  }

  private assertWritable(): void {
    if (this.state === "closed") throw new LogClosedError(`log ${this.dir} is closed`);
    if (this.state === "failed") {
      throw new LogFailedError(`log ${this.dir} failed earlier and accepts no more writes: ${describe(this.failureCause)}`, { cause: this.failureCause });
    }
  }

  private assertReadable(): void {
    if (this.state === "closed") throw new LogClosedError(`log ${this.dir} is closed`);
  }
}

function checkedOption(value: number | undefined, fallback: number, min: number, max: number, name: string): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < min || chosen > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${chosen}`);
  }
  return chosen;
}

function optionalBound(value: number | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  return value;
}

/** A segment (trusted at open) holds a different number of frames than its neighbours' headers say. */
function segmentCountMismatch(segment: SegmentInfo, direction: "more" | "fewer"): LogCorruptError {
  return new LogCorruptError(segment.filePath, 0,
    `segment holds ${direction} than the ${segment.frameCount} frames (lsn ${segment.firstLsn}..${segment.firstLsn + segment.frameCount - 1}) ` +
      `that the segment headers (firstLsn of this and the next segment) say`);
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
