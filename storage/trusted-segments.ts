/**
 * Trusted sealed segments: the part of open-time recovery that accepts a sealed segment from its
 * header alone, without reading its frames (options `trustSealedSegmentsBeforePosition` /
 * `trustSealedSegmentsThroughLsn`, see recovery.ts and docs/storage.md, "Trusted open after a
 * snapshot").
 *
 * A sealed segment's frame count and the chain at its end are not in its own header: they follow
 * from the NEXT segment's header (its firstLsn and previousChain), because a header is written
 * once, when its segment is created. So headers are read one segment ahead, and each is read once.
 */
import * as path from "node:path";
import { LogCorruptError } from "./errors.js";
import { FRAME_HEADER_BYTES, MAX_FRAME_BYTES } from "./frame.js";
import type { SegmentInfo } from "./log-segments.js";
import { SEGMENT_HEADER_BYTES, checkHeaderContinues, readSegmentHeader, segmentFileName, type SegmentHeader } from "./segment-file.js";
import type { StorageFs } from "./storage-fs.js";

/** Header and size of one segment file, read without scanning its frames. */
interface SegmentFacts {
  readonly header: SegmentHeader;
  readonly fileSizeBytes: number;
}

/** The bound below which sealed segments may be trusted (null: no bound of that kind). */
export interface TrustBound {
  readonly beforePosition: number | null;
  readonly throughLsn: number | null;
}

/** A trusted segment and where the log continues after it. */
export interface TrustedSegment {
  readonly segment: SegmentInfo;
  /** lsn of the first frame after the segment (the next header's firstLsn). */
  readonly nextLsn: number;
  /** Chain of the segment's last frame (the next header's previousChain). */
  readonly chain: Buffer;
}

/** The segment files of a directory by index (ascending bases), their headers read on demand once. */
export class SegmentHeaders {
  private readonly factsByIndex = new Map<number, SegmentFacts>();

  constructor(
    private readonly storageFs: StorageFs,
    private readonly dirPath: string,
    private readonly bases: readonly number[],
  ) {}

  filePath(index: number): string {
    return path.join(this.dirPath, segmentFileName(this.bases[index] as number));
  }

  facts(index: number): SegmentFacts {
    let facts = this.factsByIndex.get(index);
    if (facts === undefined) {
      facts = readSegmentFacts(this.storageFs, this.filePath(index), this.bases[index] as number);
      this.factsByIndex.set(index, facts);
    }
    return facts;
  }

  /** Whether sealed segment `index` (not the last) lies wholly before the trust bound. */
  liesBeforeTrustBound(index: number, bound: TrustBound): boolean {
    const facts = this.facts(index);
    if (bound.beforePosition !== null) {
      const endPosition = facts.header.basePositionBytes + (facts.fileSizeBytes - SEGMENT_HEADER_BYTES);
      if (endPosition > bound.beforePosition) return false;
    }
    if (bound.throughLsn !== null) {
      const lastLsn = this.facts(index + 1).header.firstLsn - 1;
      if (lastLsn > bound.throughLsn) return false;
    }
    return true;
  }
}

/**
 * Accepts sealed segment `index` without reading its frames. What is checked instead: its header
 * continues the log (`nextLsn`, `chain`), it holds frame bytes, and the frame count the next
 * header implies is possible for that many bytes. The tiling (its base) is checked by the caller.
 */
export function acceptTrustedSegment(headers: SegmentHeaders, index: number, nextLsn: number, chain: Buffer): TrustedSegment {
  const filePath = headers.filePath(index);
  const { header, fileSizeBytes } = headers.facts(index);
  checkHeaderContinues(filePath, header, nextLsn, chain);
  const frameBytes = fileSizeBytes - SEGMENT_HEADER_BYTES;
  if (frameBytes === 0) {
    throw new LogCorruptError(filePath, SEGMENT_HEADER_BYTES, "segment other than the last one holds no frames");
  }
  const next = headers.facts(index + 1).header;
  const frameCount = next.firstLsn - header.firstLsn;
  if (frameCount < 1 || frameCount * FRAME_HEADER_BYTES > frameBytes || frameCount * MAX_FRAME_BYTES < frameBytes) {
    throw new LogCorruptError(headers.filePath(index + 1), 0,
      `segment header firstLsn ${next.firstLsn} implies that the previous segment ${path.basename(filePath)} ` +
        `(firstLsn ${header.firstLsn}, ${frameBytes} frame bytes) holds ${frameCount} frames, which is impossible ` +
        `(a sealed segment holds at least one frame, each of ${FRAME_HEADER_BYTES} to ${MAX_FRAME_BYTES} bytes)`);
  }
  return {
    segment: { basePositionBytes: header.basePositionBytes, filePath, frameBytes, firstLsn: header.firstLsn, frameCount, previousChain: header.previousChain },
    // Frames are not read: the next segment's header supplies where they end.
    nextLsn: next.firstLsn,
    chain: Buffer.from(next.previousChain),
  };
}

function readSegmentFacts(storageFs: StorageFs, filePath: string, base: number): SegmentFacts {
  const fd = storageFs.openSync(filePath, "r");
  try {
    const fileSizeBytes = storageFs.fstatSync(fd).size;
    return { header: readSegmentHeader(storageFs, fd, filePath, base), fileSizeBytes };
  } finally {
    storageFs.closeSync(fd);
  }
}
