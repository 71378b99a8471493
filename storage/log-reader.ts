/**
 * The read side of the log, on the writer's thread: one frame by position (`readAt`,
 * `readManyAt`, through frame-reader.ts), the durable extent as plain data for another thread
 * (`readView`), and a scan of frames in lsn order across segments (`frames`).
 *
 * Only durable frames are read: every read is bounded by the durable end the appender holds, and
 * what a scan or a view covers is fixed when it starts, so commits made meanwhile never race it.
 */
import { LogCorruptError } from "./errors.js";
import { FrameReader, ReadFdCache, locateIn, type LocatedPosition, type LogReadView } from "./frame-reader.js";
import type { SeekPoint } from "./checkpoint.js";
import type { DurableEnd } from "./log-appender.js";
import type { LogLifecycle } from "./log-lifecycle.js";
import { segmentCountMismatch, type LogSegments, type SegmentInfo } from "./log-segments.js";
import { SEGMENT_HEADER_BYTES, headerChainMismatch } from "./segment-file.js";
import { SegmentReader, type LogFrame, type VerifyMode } from "./segment-reader.js";
import type { StorageFs } from "./storage-fs.js";

export interface FramesOptions {
  /** Default "crc". "chain" also recomputes the hash chain; "none" trusts the bytes. */
  readonly verify?: VerifyMode;
  /**
   * Default false: `payload` and `chain` are views into the read buffer, valid only until the
   * iterator advances. True: each frame gets its own copies (slower, safe to keep).
   */
  readonly copyPayloads?: boolean;
}

/** What the reader is built from; the segments and the durable end are shared with the appender. */
export interface LogReaderParts {
  readonly dir: string;
  readonly storageFs: StorageFs;
  readonly readChunkBytes: number;
  readonly segments: LogSegments;
  readonly durable: DurableEnd;
  readonly lifecycle: LogLifecycle;
  /** A frame boundary inside a segment where scans may start (from a checkpoint), or null. */
  readonly seekPoint: SeekPoint | null;
}

export class LogReader {
  private readonly dir: string;
  private readonly storageFs: StorageFs;
  private readonly readChunkBytes: number;
  private readonly segments: LogSegments;
  private readonly durable: DurableEnd;
  private readonly lifecycle: LogLifecycle;
  private readonly seekPoint: SeekPoint | null;
  /** Read-only fds of sealed segments (readAt); the active segment is read through its own fd. */
  private readonly readFds: ReadFdCache;
  private readonly frameReader: FrameReader;

  constructor(parts: LogReaderParts) {
    this.dir = parts.dir;
    this.storageFs = parts.storageFs;
    this.readChunkBytes = parts.readChunkBytes;
    this.segments = parts.segments;
    this.durable = parts.durable;
    this.lifecycle = parts.lifecycle;
    this.seekPoint = parts.seekPoint;
    this.readFds = new ReadFdCache(this.storageFs);
    this.frameReader = new FrameReader((position) => this.locate(position), this.storageFs);
  }

  readAt(position: number): LogFrame {
    return this.frameReader.readAt(position);
  }

  readManyAt(positions: ArrayLike<number>, visit: (frame: LogFrame, index: number) => void): void {
    this.frameReader.readManyAt(positions, visit);
  }

  readView(): LogReadView {
    this.lifecycle.assertReadable();
    return {
      dir: this.dir,
      segments: this.segments.list.map(({ basePositionBytes, filePath, frameBytes, firstLsn, frameCount }) => ({ basePositionBytes, filePath, frameBytes, firstLsn, frameCount })),
      endPosition: this.durable.endPosition,
    };
  }

  /**
   * Durable frames with lsn > fromLsnExclusive, in lsn order, from the segment holding lsn
   * fromLsnExclusive + 1 on (older segments are not opened). Validated now, read lazily.
   */
  frames(fromLsnExclusive: number, options: FramesOptions): Generator<LogFrame, void, undefined> {
    // Validate eagerly (a generator body would only run at the first next()).
    this.lifecycle.assertReadable();
    const lastLsn = this.durable.lastLsn;
    if (!Number.isSafeInteger(fromLsnExclusive) || fromLsnExclusive < 0 || fromLsnExclusive > lastLsn) {
      throw new RangeError(`fromLsnExclusive ${fromLsnExclusive} is outside [0, ${lastLsn}]`);
    }
    // Snapshot the durable extent now so commits made while iterating do not race the reader.
    const snapshot: SegmentInfo[] = [];
    if (fromLsnExclusive < lastLsn) {
      const segments = this.segments.list;
      for (let index = this.segments.indexForLsn(fromLsnExclusive + 1); index < segments.length; index++) {
        const segment = segments[index] as SegmentInfo;
        if (segment.frameCount > 0) snapshot.push({ ...segment });
      }
    }
    return this.readSegments(snapshot, fromLsnExclusive, options.verify ?? "crc", options.copyPayloads ?? false);
  }

  /** Closes the read-only fds kept for `readAt`. */
  closeFiles(): void {
    this.readFds.closeAll();
  }

  /** The segment, fd and file offsets of a durable position (throws RangeError outside the log). */
  private locate(position: number): LocatedPosition {
    this.lifecycle.assertReadable();
    const active = this.segments.active();
    return locateIn(this.segments.list, this.durable.endPosition, position, (segment) => (segment === active ? this.segments.activeFd : this.readFds.get(segment.filePath)));
  }

  /**
   * The scan behind `frames()`, one generator over every segment of the snapshot (one level of
   * generator per frame, not one per segment). In "chain" mode the chain is carried across
   * segments, and each later segment's header previousChain must match it.
   */
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
        throw headerChainMismatch(segment.filePath, segment.previousChain, carriedChain);
      }
      const endLsnExclusive = segment.firstLsn + segment.frameCount;
      const fd = this.storageFs.openSync(segment.filePath, "r");
      try {
        const reader = this.segmentReader(segment, fd, fromLsnExclusive, verify);
        const firstLsn = reader.nextExpectedLsn;
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
        if (reader.framesRead !== endLsnExclusive - firstLsn) throw segmentCountMismatch(segment, "fewer");
        if (verify === "chain") carriedChain = Buffer.from(reader.lastChain);
      } finally {
        this.storageFs.closeSync(fd);
      }
    }
  }

  /**
   * A reader of one segment's committed frames. It starts at the checkpoint when the frames wanted
   * all lie after it (not when verifying the chain, which needs every frame from the segment's
   * start); otherwise at the segment's first frame.
   */
  private segmentReader(segment: SegmentInfo, fd: number, fromLsnExclusive: number, verify: VerifyMode): SegmentReader {
    const seek = this.seekPoint;
    const fromSeek = seek !== null && seek.segmentBasePositionBytes === segment.basePositionBytes && seek.lsn <= fromLsnExclusive + 1 && verify !== "chain";
    return new SegmentReader({
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
  }
}
