/**
 * Sequential frame reader over one segment file, reading in large chunks so a replay costs one
 * pread per chunk (default 4 MiB) instead of one or two per frame.
 *
 * The reader never throws for bad bytes. It stops and records a `FrameProblem`; the caller
 * decides what that means (open-time recovery may truncate a torn tail, everything else turns
 * it into a LogCorruptError). Returned `payload` and `chain` are views into the chunk buffer and
 * are only valid until the next `next()` call.
 */
import { assertStorage } from "./assert.js";
import { CHAIN_HASH_BYTES } from "./hash-chain.js";
import {
  FRAME_CHAIN_OFFSET,
  FRAME_HEADER_BYTES,
  FRAME_PAYLOAD_OFFSET,
  MAX_PAYLOAD_BYTES,
  frameChainMatches,
  frameCrcMatches,
  readFrameLsn,
  readFramePayloadLength,
} from "./frame.js";
import { SEGMENT_HEADER_BYTES } from "./segment-file.js";
import type { StorageFs } from "./storage-fs.js";

export const DEFAULT_READ_CHUNK_BYTES = 4 * 1024 * 1024;
export const MIN_READ_CHUNK_BYTES = 4096;

/** One frame as read from the log. */
export interface LogFrame {
  readonly lsn: number;
  /** Global log position (frame bytes only, headers excluded) of the frame's first byte. */
  readonly position: number;
  readonly payload: Buffer;
  /** chain_n stored in the frame. */
  readonly chain: Buffer;
}

/**
 * Frame handed out by the reader. `chain` is computed on access: creating a Buffer view is not
 * free next to the rest of a frame's work, and replay rarely needs the chain, so eager views
 * measurably slowed replay (docs/storage.md, "Measured performance"). Like `payload`, it is only
 * valid until the reader advances. Because `chain` is a getter, object spread (`{...frame}`) does
 * not copy it.
 */
class FrameView implements LogFrame {
  constructor(
    readonly lsn: number,
    readonly position: number,
    readonly payload: Buffer,
    private readonly source: Buffer,
    private readonly chainOffset: number,
  ) {}

  get chain(): Buffer {
    return this.source.subarray(this.chainOffset, this.chainOffset + CHAIN_HASH_BYTES);
  }
}

export type FrameProblemKind =
  | "incomplete-header"
  | "length-exceeds-max"
  | "extent-past-end"
  | "crc-mismatch"
  | "lsn-out-of-range"
  | "lsn-discontinuity"
  | "chain-mismatch";

export interface FrameProblem {
  readonly kind: FrameProblemKind;
  readonly fileOffsetBytes: number;
  readonly position: number;
  /** Header-declared frame size, when the header was complete. */
  readonly declaredFrameBytes: number | null;
  readonly detail: string;
}

/**
 * How much a scan checks. "none": trust the bytes (they were CRC-checked on open). "crc":
 * recompute every frame CRC. "chain": CRC plus the SHA-256 chain (tamper evidence, slowest).
 * Lsn continuity is always checked because it costs nothing.
 */
export type VerifyMode = "none" | "crc" | "chain";

export interface SegmentReaderOptions {
  readonly storageFs: StorageFs;
  readonly fd: number;
  readonly basePositionBytes: number;
  /** Frames are read from `startFileOffsetBytes` up to this file offset (exclusive). */
  readonly endFileOffsetBytes: number;
  /** A frame boundary to start at; default SEGMENT_HEADER_BYTES (the segment's first frame). */
  readonly startFileOffsetBytes?: number;
  /** lsn the first frame read must carry. */
  readonly firstExpectedLsn: number;
  /** chain of the frame before the first frame read (genesis for the log's first frame). */
  readonly previousChain: Buffer;
  readonly verify: VerifyMode;
  readonly readChunkBytes: number;
}

export class SegmentReader {
  private readonly storageFs: StorageFs;
  private readonly fd: number;
  private readonly basePositionBytes: number;
  private readonly endFileOffsetBytes: number;
  private readonly verifyCrc: boolean;
  private readonly verifyChain: boolean;
  private buffer: Buffer;
  /** File offset of buffer[0]. */
  private bufferFileOffsetBytes = SEGMENT_HEADER_BYTES;
  /** Valid bytes in buffer. */
  private bufferFilledBytes = 0;
  /** Index in buffer of the next frame. */
  private cursor = 0;
  private expectedLsn: number;
  /**
   * The last returned frame's chain (the "previous chain" of the next frame). Copying 32 bytes
   * per frame measurably slows replay, so the copy is refreshed lazily: while
   * `lastChainOffset >= 0` the authoritative value is buffer[lastChainOffset, +32).
   */
  private readonly lastChainCopy: Buffer;
  private lastChainOffset = -1;
  private readonly chainScratch = Buffer.allocUnsafe(CHAIN_HASH_BYTES);
  private problemFound: FrameProblem | null = null;
  private framesReadCount = 0;

  constructor(options: SegmentReaderOptions) {
    assertStorage(options.endFileOffsetBytes >= SEGMENT_HEADER_BYTES, "segment end before its header");
    assertStorage(options.readChunkBytes >= MIN_READ_CHUNK_BYTES, "readChunkBytes too small");
    assertStorage(options.previousChain.length === CHAIN_HASH_BYTES, "previous chain must be 32 bytes");
    this.storageFs = options.storageFs;
    this.fd = options.fd;
    this.basePositionBytes = options.basePositionBytes;
    this.endFileOffsetBytes = options.endFileOffsetBytes;
    this.verifyCrc = options.verify !== "none";
    this.verifyChain = options.verify === "chain";
    this.expectedLsn = options.firstExpectedLsn;
    this.lastChainCopy = Buffer.from(options.previousChain);
    const start = options.startFileOffsetBytes ?? SEGMENT_HEADER_BYTES;
    assertStorage(Number.isSafeInteger(start) && start >= SEGMENT_HEADER_BYTES && start <= options.endFileOffsetBytes, "start offset within the segment's frames");
    this.bufferFileOffsetBytes = start;
    const segmentFrameBytes = options.endFileOffsetBytes - start;
    // Never allocate more than the segment holds: small segments get small buffers.
    this.buffer = Buffer.allocUnsafe(Math.max(FRAME_HEADER_BYTES, Math.min(options.readChunkBytes, segmentFrameBytes)));
  }

  /** Set when the reader stopped on a bad frame; null after a clean end. */
  get problem(): FrameProblem | null {
    return this.problemFound;
  }

  /** File offset of the next unread frame (the end of valid frames once the reader stopped). */
  get nextFileOffsetBytes(): number {
    return this.bufferFileOffsetBytes + this.cursor;
  }

  /** lsn the next frame must carry (last returned lsn + 1). */
  get nextExpectedLsn(): number {
    return this.expectedLsn;
  }

  /** Chain of the last returned frame (or the previous chain passed in). Valid until next(). */
  get lastChain(): Buffer {
    this.settleLastChain();
    return this.lastChainCopy;
  }

  get framesRead(): number {
    return this.framesReadCount;
  }

  /** Next valid frame, or null at the end or at the first problem (see `problem`). */
  next(): LogFrame | null {
    if (this.problemFound !== null) return null;
    const frameFileOffset = this.bufferFileOffsetBytes + this.cursor;
    const remainingBytes = this.endFileOffsetBytes - frameFileOffset;
    if (remainingBytes === 0) return null;
    const position = this.basePositionBytes + (frameFileOffset - SEGMENT_HEADER_BYTES);
    if (remainingBytes < FRAME_HEADER_BYTES) {
      return this.stop("incomplete-header", frameFileOffset, position, null,
        `only ${remainingBytes} bytes left, a frame header needs ${FRAME_HEADER_BYTES}`);
    }
    this.ensureAvailable(FRAME_HEADER_BYTES);
    const payloadBytes = readFramePayloadLength(this.buffer, this.cursor);
    const frameBytes = FRAME_HEADER_BYTES + payloadBytes;
    if (payloadBytes > MAX_PAYLOAD_BYTES) {
      return this.stop("length-exceeds-max", frameFileOffset, position, frameBytes,
        `declared payload length ${payloadBytes} exceeds maximum ${MAX_PAYLOAD_BYTES}`);
    }
    if (frameBytes > remainingBytes) {
      return this.stop("extent-past-end", frameFileOffset, position, frameBytes,
        `frame declares ${frameBytes} bytes but only ${remainingBytes} remain`);
    }
    this.ensureAvailable(frameBytes);
    const at = this.cursor;
    const buffer = this.buffer;
    if (this.verifyCrc && !frameCrcMatches(buffer, at, frameBytes)) {
      return this.stop("crc-mismatch", frameFileOffset, position, frameBytes, "frame crc32c mismatch");
    }
    const lsn = readFrameLsn(buffer, at);
    if (lsn < 1) {
      return this.stop("lsn-out-of-range", frameFileOffset, position, frameBytes, `stored lsn is 0 or above 2^53-1`);
    }
    if (lsn !== this.expectedLsn) {
      return this.stop("lsn-discontinuity", frameFileOffset, position, frameBytes,
        `expected lsn ${this.expectedLsn}, found ${lsn}`);
    }
    if (this.verifyChain) {
      this.settleLastChain();
      if (!frameChainMatches(buffer, at, frameBytes, this.lastChainCopy, this.chainScratch)) {
        return this.stop("chain-mismatch", frameFileOffset, position, frameBytes,
          `hash chain mismatch at lsn ${lsn}: stored chain != SHA-256(previous chain || payload)`);
      }
    }
    const chainAt = at + FRAME_CHAIN_OFFSET;
    this.lastChainOffset = chainAt;
    this.cursor = at + frameBytes;
    this.expectedLsn = lsn + 1;
    this.framesReadCount++;
    return new FrameView(lsn, position, buffer.subarray(at + FRAME_PAYLOAD_OFFSET, at + frameBytes), buffer, chainAt);
  }

  /** Copies the last frame's chain out of the buffer before the buffer is reused. */
  private settleLastChain(): void {
    if (this.lastChainOffset < 0) return;
    this.buffer.copy(this.lastChainCopy, 0, this.lastChainOffset, this.lastChainOffset + CHAIN_HASH_BYTES);
    this.lastChainOffset = -1;
  }

  private stop(
    kind: FrameProblemKind,
    fileOffsetBytes: number,
    position: number,
    declaredFrameBytes: number | null,
    detail: string,
  ): null {
    this.problemFound = { kind, fileOffsetBytes, position, declaredFrameBytes, detail };
    return null;
  }

  /**
   * Makes buffer[cursor, cursor + byteCount) valid. The caller has checked that the bytes exist
   * before endFileOffsetBytes. Moves the unread tail to the front (invalidating views handed
   * out earlier) and refills with one large pread; grows the buffer for frames larger than it.
   */
  private ensureAvailable(byteCount: number): void {
    if (this.cursor + byteCount <= this.bufferFilledBytes) return;
    this.settleLastChain(); // the bytes before the cursor are about to be overwritten
    const unreadBytes = this.bufferFilledBytes - this.cursor;
    if (byteCount > this.buffer.length) {
      const grown = Buffer.allocUnsafe(byteCount);
      this.buffer.copy(grown, 0, this.cursor, this.bufferFilledBytes);
      this.buffer = grown;
    } else if (this.cursor > 0 && unreadBytes > 0) {
      this.buffer.copyWithin(0, this.cursor, this.bufferFilledBytes);
    }
    this.bufferFileOffsetBytes += this.cursor;
    this.bufferFilledBytes = unreadBytes;
    this.cursor = 0;
    while (this.bufferFilledBytes < byteCount) {
      const fileOffset = this.bufferFileOffsetBytes + this.bufferFilledBytes;
      const wantBytes = Math.min(this.buffer.length - this.bufferFilledBytes, this.endFileOffsetBytes - fileOffset);
      assertStorage(wantBytes > 0, "segment reader asked to read past its end");
      const readBytes = this.storageFs.readSync(this.fd, this.buffer, this.bufferFilledBytes, wantBytes, fileOffset);
      // The file shrank underneath us (someone else truncated it): not a state we can reason about.
      assertStorage(readBytes > 0, `unexpected EOF at file offset ${fileOffset}; segment changed while reading`);
      this.bufferFilledBytes += readBytes;
    }
  }
}
