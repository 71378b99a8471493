/**
 * The write side of the log: staging frames and group commit.
 *
 *  - `append(payload)` only stages a frame in memory (assigning its lsn, position and chain);
 *    nothing is durable and nothing may be acknowledged yet.
 *  - `commitSync()` writes the whole staged batch with ONE pwrite of ONE buffer and ONE
 *    fdatasync, rotating to a new segment first when the batch would overflow the active one,
 *    and returns only when the batch is durable. A batch never spans two segments.
 *  - A failed write, flush or rotation fails the log for good (log-lifecycle.ts).
 *
 * It also holds the durable end of the log (last lsn, end position, chain head), which only a
 * commit moves and which every reader asks for.
 */
import { assertStorage } from "./assert.js";
import { LogFailedError, StorageLimitError, describeCause } from "./errors.js";
import { FRAME_CHAIN_OFFSET, FRAME_HEADER_BYTES, sealFrameInPlace } from "./frame.js";
import { CHAIN_HASH_BYTES } from "./hash-chain.js";
import type { LogLifecycle } from "./log-lifecycle.js";
import type { LogSegments, SegmentInfo } from "./log-segments.js";
import { SEGMENT_HEADER_BYTES } from "./segment-file.js";
import type { StorageFs } from "./storage-fs.js";

/** Staging starts this small and doubles as batches need (up to maxBatchBytes). */
const INITIAL_STAGING_BYTES = 64 * 1024;

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

/** The durable end of the log: what readers may read up to. */
export interface DurableEnd {
  /** lsn of the last durable frame (0 for an empty log). */
  readonly lastLsn: number;
  /** Global position just past the last durable frame. */
  readonly endPosition: number;
}

/** What the appender needs to know at open: the limits and the durable end recovery found. */
export interface AppenderStart {
  readonly storageFs: StorageFs;
  readonly segmentSizeBytes: number;
  readonly maxPayloadBytes: number;
  readonly maxBatchBytes: number;
  readonly lastLsn: number;
  readonly endPosition: number;
  readonly chainHead: Buffer;
  readonly lastFramePosition: number;
}

export class LogAppender implements DurableEnd {
  private readonly storageFs: StorageFs;
  private readonly segmentSizeBytes: number;
  private readonly maxPayloadBytes: number;
  private readonly maxBatchBytes: number;

  // Committed (durable) state.
  private committedLastLsn: number;
  private committedEndPosition: number;
  private readonly committedChainHead: Buffer;
  private committedLastFramePosition: number;

  // Staged batch: frames encoded back to back, ready to be written as one buffer.
  private staging: Buffer;
  private stagedBytesCount = 0;
  private stagedFramesCount = 0;
  /** Offset in `staging` of the last staged frame (its chain is the next frame's previous chain). */
  private lastStagedFrameOffset = -1;

  private bytesWritten = 0;
  private commits = 0;
  private framesWritten = 0;

  constructor(
    private readonly segments: LogSegments,
    private readonly lifecycle: LogLifecycle,
    start: AppenderStart,
  ) {
    this.storageFs = start.storageFs;
    this.segmentSizeBytes = start.segmentSizeBytes;
    this.maxPayloadBytes = start.maxPayloadBytes;
    this.maxBatchBytes = start.maxBatchBytes;
    this.committedLastLsn = start.lastLsn;
    this.committedEndPosition = start.endPosition;
    this.committedChainHead = Buffer.from(start.chainHead);
    this.committedLastFramePosition = start.lastFramePosition;
    this.staging = Buffer.allocUnsafe(Math.min(INITIAL_STAGING_BYTES, this.maxBatchBytes));
  }

  get lastLsn(): number {
    return this.committedLastLsn;
  }

  get endPosition(): number {
    return this.committedEndPosition;
  }

  /** Chain hash of the last durable frame, a copy. */
  get chainHead(): Buffer {
    return Buffer.from(this.committedChainHead);
  }

  get lastFramePosition(): number {
    return this.committedLastFramePosition;
  }

  get stagedFrames(): number {
    return this.stagedFramesCount;
  }

  get stagedBytes(): number {
    return this.stagedBytesCount;
  }

  get stats(): LogStats {
    return {
      bytesWritten: this.bytesWritten,
      commits: this.commits,
      framesWritten: this.framesWritten,
      rotations: this.segments.rotations,
      segments: this.segments.list.length,
    };
  }

  /** Stages one frame: encodes it (lsn, chain, CRC) at the end of the staging buffer. */
  append(payload: Uint8Array): AppendResult {
    this.lifecycle.assertWritable();
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

  /** Makes every staged frame durable, then moves the durable end past them. */
  commitSync(): CommitResult {
    this.lifecycle.assertWritable();
    const frames = this.stagedFramesCount;
    const bytes = this.stagedBytesCount;
    if (frames === 0) {
      return { frames: 0, bytes: 0, lastLsn: this.committedLastLsn, endPosition: this.committedEndPosition };
    }
    const active = this.writeBatch(bytes);
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

  /** Forgets the staged frames (their lsns are handed out again). */
  dropStaged(): void {
    this.stagedBytesCount = 0;
    this.stagedFramesCount = 0;
    this.lastStagedFrameOffset = -1;
  }

  /**
   * The I/O of a commit: rotate if needed, one pwrite of the batch, one fdatasync. Returns the
   * segment written to. Any failure fails the log (the batch's outcome on disk is then unknown,
   * so it is never retried or reported as written) and throws LogFailedError.
   */
  private writeBatch(bytes: number): SegmentInfo {
    let active = this.segments.active();
    try {
      // Rotate before a batch that would overflow; an empty segment takes any batch (so one
      // oversized batch still fits somewhere). A batch never spans two segments.
      if (active.frameCount > 0 && SEGMENT_HEADER_BYTES + active.frameBytes + bytes > this.segmentSizeBytes) {
        active = this.segments.rotate({
          basePositionBytes: this.committedEndPosition,
          firstLsn: this.committedLastLsn + 1,
          previousChain: this.committedChainHead,
        });
      }
      const fileOffset = SEGMENT_HEADER_BYTES + active.frameBytes;
      const activeFd = this.segments.activeFd;
      const writtenBytes = this.storageFs.writeSync(activeFd, this.staging, 0, bytes, fileOffset);
      if (writtenBytes !== bytes) {
        throw new Error(`short write: ${writtenBytes} of ${bytes} bytes at ${active.filePath} offset ${fileOffset}`);
      }
      this.storageFs.fdatasyncSync(activeFd);
    } catch (cause) {
      this.lifecycle.fail(cause);
      this.dropStaged();
      throw new LogFailedError(`commit failed, log is now permanently failed: ${describeCause(cause)}`, { cause });
    }
    return active;
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
}
