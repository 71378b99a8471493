/**
 * Reading durable frames by position, for two owners:
 *  - the log itself (`SegmentLog.readAt` / `readManyAt`, on the writer's thread);
 *  - a `LogView`: a frozen durable extent of a log (`SegmentLog.readView()`, plain data that can be
 *    posted to another thread), read there without the writer. Committed frames never change and
 *    sealed segments are never removed, so a reader needs no coordination with the writer; frames
 *    committed after the view was taken lie outside it and are refused like any position past
 *    the end.
 * Both check the same things: the frame's declared length stays inside its segment, its CRC, and
 * that its lsn belongs to the segment. A position that is not a frame boundary fails those checks.
 */
import { assertStorage } from "./assert.js";
import { LogClosedError, LogCorruptError } from "./errors.js";
import { FRAME_CHAIN_OFFSET, FRAME_HEADER_BYTES, FRAME_PAYLOAD_OFFSET, MAX_PAYLOAD_BYTES, frameCrcMatches, readFrameLsn, readFramePayloadLength } from "./frame.js";
import { SEGMENT_HEADER_BYTES } from "./segment-file.js";
import { SegmentReader, type LogFrame } from "./segment-reader.js";
import { genesisChainHash } from "./hash-chain.js";
import { nodeStorageFs, readFully, type StorageFs } from "./storage-fs.js";

/**
 * First read of `readAt` guesses the frame fits in this many bytes, so a small frame (a claim's,
 * say) costs one pread. It reads into a buffer the reader keeps: an audit calls `readAt` once per
 * command, and a fresh buffer per call (one larger than Node's pooled size) made each call
 * markedly slower (docs/storage.md, "Reading").
 */
const READ_AT_FIRST_READ_BYTES = 1024;
/** `readManyAt` reads frames lying within this many bytes of each other with one pread. */
const READ_MANY_WINDOW_BYTES = 256 * 1024;
/** `LogView.frames` reads its segments in chunks of this many bytes. */
const FRAMES_READ_CHUNK_BYTES = 1024 * 1024;
/** Sealed segments a reader keeps open (see ReadFdCache). */
const READ_FDS_KEPT = 4;

/** What a reader needs to know of one segment file (a subset of recovery's SegmentInfo). */
export interface SegmentExtent {
  readonly basePositionBytes: number;
  readonly filePath: string;
  /** Committed frame bytes in the file (file size minus header). */
  readonly frameBytes: number;
  readonly firstLsn: number;
  readonly frameCount: number;
}

/** Where a durable position lies: its segment, the fd to read it with, and file offsets. */
export interface LocatedPosition {
  segment: SegmentExtent;
  fd: number;
  fileOffset: number;
  segmentEnd: number;
}

/** Finds a durable position (throws RangeError outside the durable extent). */
export type PositionLocator = (position: number) => LocatedPosition;

/** Binary search: the last of `segments` (ascending bases) whose base is <= position. */
function segmentForPosition<S extends SegmentExtent>(segments: readonly S[], position: number): S {
  let low = 0;
  let high = segments.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    const candidate = segments[middle] as S;
    if (candidate.basePositionBytes <= position) low = middle;
    else high = middle - 1;
  }
  const found = segments[low];
  assertStorage(found !== undefined && found.basePositionBytes <= position, "no segment for position");
  return found;
}

/**
 * Read-only fds of segment files, kept open for later reads: a record read or an audit re-reads a
 * market's commands one position at a time, and an open + close per frame cost more than the read
 * (docs/storage.md, "Reading"). At most READ_FDS_KEPT stay open, the least recently used is closed
 * first.
 */
export class ReadFdCache {
  private readonly fds = new Map<string, number>();

  constructor(private readonly storageFs: StorageFs) {}

  get(filePath: string): number {
    const kept = this.fds.get(filePath);
    if (kept !== undefined) {
      this.fds.delete(filePath); // re-insert: Map order is the recency order
      this.fds.set(filePath, kept);
      return kept;
    }
    if (this.fds.size >= READ_FDS_KEPT) {
      const [oldestPath, oldestFd] = this.fds.entries().next().value as [string, number];
      this.fds.delete(oldestPath);
      this.storageFs.closeSync(oldestFd);
    }
    const fd = this.storageFs.openSync(filePath, "r");
    this.fds.set(filePath, fd);
    return fd;
  }

  get size(): number {
    return this.fds.size;
  }

  closeAll(): void {
    for (const fd of this.fds.values()) this.storageFs.closeSync(fd);
    this.fds.clear();
  }
}

export class FrameReader {
  /** `readAt`'s first read lands here; what it returns is copied out. */
  private readonly readAtScratch = Buffer.allocUnsafe(READ_AT_FIRST_READ_BYTES);
  private windowBuffer: Buffer | undefined;

  constructor(
    private readonly locate: PositionLocator,
    private readonly storageFs: StorageFs,
  ) {}

  /** One durable frame by position; checked (CRC, length, lsn) and returned as owned copies. */
  readAt(position: number): LogFrame {
    return this.readOneAt(this.locate(position), position);
  }

  /**
   * `readAt` for many positions (ascending, each a frame boundary), with `visit` called per frame in
   * order. Frames close together are read with one pread of up to READ_MANY_WINDOW_BYTES: a hot
   * market's commands lie almost back to back in its shard's log, and one pread per command made a
   * record read of a busy market pay a syscall per command (figures in docs/storage.md, "Reading").
   * The same checks as `readAt`; the frames handed to `visit` own their bytes.
   */
  readManyAt(positions: ArrayLike<number>, visit: (frame: LogFrame, index: number) => void): void {
    let i = 0;
    while (i < positions.length) {
      const first = positions[i] as number;
      const located = this.locate(first);
      const { segment, fd, fileOffset } = located;
      const windowBytes = Math.min(READ_MANY_WINDOW_BYTES, located.segmentEnd - fileOffset);
      // A window only pays when the next position lies inside it; otherwise read this one alone.
      // Either way every position reached here is above the one before (checked in the window).
      const next = positions[i + 1];
      if (next === undefined || next - first >= windowBytes) {
        visit(this.readOneAt(located, first), i);
        i += 1;
        continue;
      }
      this.windowBuffer ??= Buffer.allocUnsafe(READ_MANY_WINDOW_BYTES);
      const window = this.windowBuffer;
      if (readFully(this.storageFs, fd, window, 0, windowBytes, fileOffset) !== windowBytes) throw noFrame(segment, fileOffset, first, "short read");
      const windowStart = i;
      for (; i < positions.length; i += 1) {
        const at = positions[i] as number;
        if (at - first >= windowBytes) break;
        if (i > windowStart) assertStorage(at > (positions[i - 1] as number), "readManyAt positions must ascend");
        visit(this.frameIn(window, at - first, windowBytes, segment, fd, fileOffset + (at - first), at), i);
      }
    }
  }

  /** One frame at a located position: a first read of up to READ_AT_FIRST_READ_BYTES, then checks. */
  private readOneAt(located: LocatedPosition, position: number): LogFrame {
    const { segment, fd, fileOffset, segmentEnd } = located;
    const firstReadBytes = Math.min(READ_AT_FIRST_READ_BYTES, segmentEnd - fileOffset);
    const scratch = this.readAtScratch;
    if (readFully(this.storageFs, fd, scratch, 0, firstReadBytes, fileOffset) !== firstReadBytes) throw noFrame(segment, fileOffset, position, "short read");
    return this.frameIn(scratch, 0, firstReadBytes, segment, fd, fileOffset, position);
  }

  /**
   * The frame at `offset` in `buffer`, which holds `bufferBytes` read from file offset
   * `fileOffset - offset` on: checked (length within the segment, CRC, lsn in the segment) and
   * copied out. A frame running past the buffer is read whole from `fd`.
   */
  private frameIn(buffer: Buffer, offset: number, bufferBytes: number, segment: SegmentExtent, fd: number, fileOffset: number, position: number): LogFrame {
    // A header cut by the window's end: read the frame on its own (readAt checks the segment end).
    if (bufferBytes - offset < FRAME_HEADER_BYTES) return this.readAt(position);
    const segmentEnd = SEGMENT_HEADER_BYTES + segment.frameBytes;
    const payloadBytes = readFramePayloadLength(buffer, offset);
    const frameBytes = FRAME_HEADER_BYTES + payloadBytes;
    if (payloadBytes > MAX_PAYLOAD_BYTES || fileOffset + frameBytes > segmentEnd) throw noFrame(segment, fileOffset, position, "declared length runs past the segment");
    let frame = buffer;
    let frameAt = offset;
    if (offset + frameBytes > bufferBytes) {
      const inBuffer = bufferBytes - offset;
      const full = Buffer.allocUnsafe(frameBytes);
      buffer.copy(full, 0, offset, bufferBytes);
      const rest = frameBytes - inBuffer;
      if (readFully(this.storageFs, fd, full, inBuffer, rest, fileOffset + inBuffer) !== rest) throw noFrame(segment, fileOffset, position, "short read");
      frame = full;
      frameAt = 0;
    }
    if (!frameCrcMatches(frame, frameAt, frameBytes)) throw noFrame(segment, fileOffset, position, "crc32c mismatch");
    const lsn = readFrameLsn(frame, frameAt);
    if (lsn < segment.firstLsn || lsn >= segment.firstLsn + segment.frameCount) throw noFrame(segment, fileOffset, position, `lsn ${lsn} does not belong to this segment`);
    return {
      lsn,
      position,
      payload: Buffer.from(frame.subarray(frameAt + FRAME_PAYLOAD_OFFSET, frameAt + frameBytes)),
      chain: Buffer.from(frame.subarray(frameAt + FRAME_CHAIN_OFFSET, frameAt + FRAME_PAYLOAD_OFFSET)),
    };
  }
}

/** Locate `position` in `segments`, reading it through `fdOf`; shared by the log and its views. */
export function locateIn(segments: readonly SegmentExtent[], endPosition: number, position: number, fdOf: (segment: SegmentExtent) => number): LocatedPosition {
  if (!Number.isSafeInteger(position) || position < 0 || position >= endPosition) {
    throw new RangeError(`position ${position} is outside the durable log [0, ${endPosition})`);
  }
  const segment = segmentForPosition(segments, position);
  const fileOffset = SEGMENT_HEADER_BYTES + (position - segment.basePositionBytes);
  const segmentEnd = SEGMENT_HEADER_BYTES + segment.frameBytes;
  if (segmentEnd - fileOffset < FRAME_HEADER_BYTES) throw noFrame(segment, fileOffset, position, "too close to the segment end for a frame header");
  return { segment, fd: fdOf(segment), fileOffset, segmentEnd };
}

function noFrame(segment: SegmentExtent, fileOffset: number, position: number, why: string): LogCorruptError {
  return new LogCorruptError(segment.filePath, fileOffset,
    `no valid frame at log position ${position}: ${why} (position is not a frame boundary or the frame is damaged)`);
}

/** A durable extent of a log as plain data (structured-clonable): see `SegmentLog.readView()`. */
export interface LogReadView {
  readonly dir: string;
  readonly segments: readonly SegmentExtent[];
  /** Global position just past the last frame of the view. */
  readonly endPosition: number;
}

/**
 * Reads frames of a `LogReadView` on any thread, with fds of its own (read-only). `close()` closes
 * them; a closed view refuses reads.
 */
export class LogView {
  private readonly fds: ReadFdCache;
  private readonly reader: FrameReader;
  private closed = false;

  constructor(
    private readonly view: LogReadView,
    private readonly storageFs: StorageFs = nodeStorageFs,
  ) {
    assertStorage(view.segments.length > 0, "a log view has at least one segment");
    this.fds = new ReadFdCache(storageFs);
    this.reader = new FrameReader((position) => this.locate(position), storageFs);
  }

  get endPosition(): number {
    return this.view.endPosition;
  }

  private locate(position: number): LocatedPosition {
    if (this.closed) throw new LogClosedError(`log view of ${this.view.dir} is closed`);
    return locateIn(this.view.segments, this.view.endPosition, position, (segment) => this.fds.get(segment.filePath));
  }

  readAt(position: number): LogFrame {
    return this.reader.readAt(position);
  }

  readManyAt(positions: ArrayLike<number>, visit: (frame: LogFrame, index: number) => void): void {
    this.reader.readManyAt(positions, visit);
  }

  /**
   * The view's frames in lsn order from its first, at most `limit` of them, each CRC-checked: a
   * sequential read in large chunks (a proof hashes every entry of a log, and a pread per frame
   * cost more than the hashing). The frames handed out are views valid until the next step.
   */
  *frames(limit: number = Number.MAX_SAFE_INTEGER): Generator<LogFrame, void, undefined> {
    yield* this.framesFrom({ position: 0, lsn: 1 }, limit);
  }

  /**
   * As `frames`, but from the frame at log position `from.position`, which must carry lsn
   * `from.lsn` (a frame boundary the caller learnt from an earlier read: a proof's cached tree
   * resumes where it stopped, engine/audit/proof-tree-cache.ts). Segments wholly before it are not
   * opened. A position that is not that frame's start fails like a damaged frame (CRC, lsn).
   */
  *framesFrom(from: { readonly position: number; readonly lsn: number }, limit: number = Number.MAX_SAFE_INTEGER): Generator<LogFrame, void, undefined> {
    let read = 0;
    for (const segment of this.view.segments) {
      if (read >= limit) return;
      const segmentEnd = segment.basePositionBytes + segment.frameBytes;
      // Wholly before the start (an empty segment too, unless the start is its base).
      if (segmentEnd <= from.position && !(segment.frameBytes === 0 && segment.basePositionBytes === from.position)) continue;
      if (from.position >= this.view.endPosition) return;
      if (this.closed) throw new LogClosedError(`log view of ${this.view.dir} is closed`);
      const startsInside = from.position > segment.basePositionBytes;
      const reader = new SegmentReader({
        storageFs: this.storageFs,
        fd: this.fds.get(segment.filePath),
        basePositionBytes: segment.basePositionBytes,
        endFileOffsetBytes: SEGMENT_HEADER_BYTES + Math.min(segment.frameBytes, this.view.endPosition - segment.basePositionBytes),
        ...(startsInside ? { startFileOffsetBytes: SEGMENT_HEADER_BYTES + (from.position - segment.basePositionBytes) } : {}),
        firstExpectedLsn: startsInside ? from.lsn : segment.firstLsn,
        // Unused: the chain is not checked here ("crc"); the reader only needs a 32-byte value.
        previousChain: genesisChainHash(),
        verify: "crc",
        readChunkBytes: FRAMES_READ_CHUNK_BYTES,
      });
      for (let frame = reader.next(); frame !== null && read < limit; frame = reader.next()) {
        read += 1;
        yield frame;
      }
      const problem = reader.problem;
      if (problem !== null) throw new LogCorruptError(segment.filePath, problem.fileOffsetBytes, `${problem.kind}: ${problem.detail}`);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fds.closeAll();
  }
}
