/**
 * Append-only segment log with group commit, for a single writer thread: the public facade.
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
 *  - One writer per directory. The log takes no lock; the caller must guarantee it (the service
 *    holds the data directory's lock, data-dir-lock.ts, before opening any log in it).
 *
 * Positions count frame bytes only (segment headers excluded), see segment-file.ts.
 *
 * Where the work is done: options (log-options.ts), open-time recovery (recovery.ts), the segments
 * in memory and rotation (log-segments.ts), staging and group commit (log-appender.ts), reads
 * (log-reader.ts, frame-reader.ts), the audit (log-verify.ts), open/failed/closed (log-lifecycle.ts).
 */
import type { LogReadView } from "./frame-reader.js";
import { LogAppender, type AppendResult, type CommitResult, type LogStats } from "./log-appender.js";
import { LogLifecycle } from "./log-lifecycle.js";
import { resolveLogOptions, type SegmentLogOptions } from "./log-options.js";
import { LogReader, type FramesOptions } from "./log-reader.js";
import { LogSegments } from "./log-segments.js";
import { verifySegments, type VerifyResult } from "./log-verify.js";
import { recoverLog, type RecoveryReport } from "./recovery.js";
import type { LogFrame } from "./segment-reader.js";
import type { StorageFs } from "./storage-fs.js";

export class SegmentLog {
  readonly dir: string;
  /** What open-time recovery found and did (torn tail truncation, removed temp files). */
  readonly recovery: RecoveryReport;

  private readonly storageFs: StorageFs;
  private readonly readChunkBytes: number;
  private readonly lifecycle: LogLifecycle;
  private readonly segments: LogSegments;
  private readonly appender: LogAppender;
  private readonly reader: LogReader;

  private constructor(options: SegmentLogOptions) {
    const settings = resolveLogOptions(options);
    this.dir = settings.dir;
    this.storageFs = settings.storageFs;
    this.readChunkBytes = settings.readChunkBytes;
    const recovered = recoverLog({
      storageFs: this.storageFs,
      dirPath: this.dir,
      verifyChain: settings.verifyChainOnOpen,
      readChunkBytes: this.readChunkBytes,
      trustSealedSegmentsBeforePosition: settings.trustSealedSegmentsBeforePosition,
      trustSealedSegmentsThroughLsn: settings.trustSealedSegmentsThroughLsn,
      checkpoint: settings.checkpoint,
    });
    this.recovery = recovered.report;
    this.lifecycle = new LogLifecycle(this.dir);
    this.segments = new LogSegments(this.storageFs, this.dir, recovered.segments, recovered.activeFd);
    this.appender = new LogAppender(this.segments, this.lifecycle, {
      storageFs: this.storageFs,
      segmentSizeBytes: settings.segmentSizeBytes,
      maxPayloadBytes: settings.maxPayloadBytes,
      maxBatchBytes: settings.maxBatchBytes,
      lastLsn: recovered.lastLsn,
      endPosition: recovered.endPosition,
      chainHead: recovered.chainHead,
      lastFramePosition: recovered.lastFramePosition,
    });
    this.reader = new LogReader({
      dir: this.dir,
      storageFs: this.storageFs,
      readChunkBytes: this.readChunkBytes,
      segments: this.segments,
      durable: this.appender,
      lifecycle: this.lifecycle,
      seekPoint: recovered.seekPoint,
    });
  }

  /** Opens (or creates) the log in `options.dir`, running recovery. Throws LogCorruptError. */
  static open(options: SegmentLogOptions): SegmentLog {
    return new SegmentLog(options);
  }

  /** lsn of the last durable frame (0 for an empty log). Staged frames are not included. */
  get lastLsn(): number {
    return this.appender.lastLsn;
  }

  /** Chain hash of the last durable frame (32 zero bytes for an empty log). A copy. */
  get chainHead(): Buffer {
    return this.appender.chainHead;
  }

  /**
   * Position of the last durable frame, for a checkpoint (see `checkpoint`); −1 when unknown (an
   * empty log, or an open that did not read the last frame and no frame was committed since).
   */
  get lastFramePosition(): number {
    return this.appender.lastFramePosition;
  }

  /** Global position just past the last durable frame = total durable frame bytes. */
  get endPosition(): number {
    return this.appender.endPosition;
  }

  get stagedFrames(): number {
    return this.appender.stagedFrames;
  }

  get stagedBytes(): number {
    return this.appender.stagedBytes;
  }

  /** True once a write/flush failed; every later append/commit throws LogFailedError. */
  get failed(): boolean {
    return this.lifecycle.failed;
  }

  get closed(): boolean {
    return this.lifecycle.closed;
  }

  /** The error that put the log into the failed state, if any. */
  get failure(): unknown {
    return this.lifecycle.failure;
  }

  get stats(): LogStats {
    return this.appender.stats;
  }

  /** Absolute paths of the segment files, oldest first. */
  segmentFiles(): string[] {
    return this.segments.list.map((segment) => segment.filePath);
  }

  /**
   * Stages one frame. Nothing is written: the frame becomes durable with the next successful
   * `commitSync()`. Throws StorageLimitError (log stays usable) if the payload or the batch is
   * too large; throws LogFailedError/LogClosedError if the log cannot accept writes.
   */
  append(payload: Uint8Array): AppendResult {
    return this.appender.append(payload);
  }

  /**
   * Makes every staged frame durable: rotate if needed, ONE pwrite of the batch, ONE fdatasync.
   * On any I/O error the log becomes permanently failed and LogFailedError is thrown.
   */
  commitSync(): CommitResult {
    return this.appender.commitSync();
  }

  /**
   * Reads one durable frame by position (as returned by append). Always checks the CRC and
   * returns owned copies. A position that is not a frame boundary fails the CRC check and
   * throws LogCorruptError (the error says so).
   */
  readAt(position: number): LogFrame {
    return this.reader.readAt(position);
  }

  /**
   * `readAt` for many ascending positions, frames close together read with one pread
   * (frame-reader.ts); the frames handed to `visit` own their bytes.
   */
  readManyAt(positions: ArrayLike<number>, visit: (frame: LogFrame, index: number) => void): void {
    this.reader.readManyAt(positions, visit);
  }

  /**
   * The durable extent as plain data, for reading frames on another thread (`LogView`): the
   * segments as they are now, up to the current end. Later commits are not part of it.
   */
  readView(): LogReadView {
    return this.reader.readView();
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
    return this.reader.frames(fromLsnExclusive, options);
  }

  /**
   * Full integrity audit of the durable log, whatever open trusted (log-verify.ts). Returns the
   * first mismatch (file + offset) instead of throwing.
   */
  verify(): VerifyResult {
    this.lifecycle.assertReadable();
    return verifySegments(this.storageFs, this.segments.list.map((segment) => ({ ...segment })), this.readChunkBytes);
  }

  /**
   * Closes the files. Commits nothing: staged, uncommitted frames are dropped. Idempotent.
   * Allowed in the failed state (that is how a failed log is shut down before reopening).
   */
  close(): void {
    if (!this.lifecycle.close()) return;
    this.appender.dropStaged();
    this.reader.closeFiles();
    this.segments.closeActive();
  }
}
