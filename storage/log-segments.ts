/**
 * The log's segments in memory: one `SegmentInfo` per segment file, oldest first, and the fd of the
 * last one, the active segment that appends go to. Rotation adds a segment here; finding the
 * segment of an lsn is a binary search here. Everything else about a segment is on disk.
 */
import { assertStorage } from "./assert.js";
import { LogCorruptError } from "./errors.js";
import { createSegmentFile, type SegmentHeader } from "./segment-file.js";
import type { StorageFs } from "./storage-fs.js";

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

export class LogSegments {
  private activeFdValue: number;
  private rotationsCount = 0;

  /** `list` and `activeFd` as recovery left them: the last segment open read-write. */
  constructor(
    private readonly storageFs: StorageFs,
    private readonly dir: string,
    /** Oldest first; never empty. The last one is the active segment. */
    readonly list: SegmentInfo[],
    activeFd: number,
  ) {
    this.activeFdValue = activeFd;
  }

  /** Read-write fd of the active segment (writes are positional). */
  get activeFd(): number {
    return this.activeFdValue;
  }

  /** Segments created by rotation since open. */
  get rotations(): number {
    return this.rotationsCount;
  }

  active(): SegmentInfo {
    const active = this.list[this.list.length - 1];
    assertStorage(active !== undefined, "log has no segment");
    return active;
  }

  /**
   * Creates the next segment, starting at `header` (the durable end), and makes it the write
   * target. The previous segment's data is already durable (every commit fdatasyncs), so its fd is
   * only closed.
   */
  rotate(header: SegmentHeader): SegmentInfo {
    const created = createSegmentFile(this.storageFs, this.dir, header);
    const previousFd = this.activeFdValue;
    this.activeFdValue = created.fd;
    const segment: SegmentInfo = {
      basePositionBytes: header.basePositionBytes,
      filePath: created.filePath,
      frameBytes: 0,
      firstLsn: header.firstLsn,
      frameCount: 0,
      previousChain: Buffer.from(header.previousChain),
    };
    this.list.push(segment);
    this.rotationsCount++;
    this.storageFs.closeSync(previousFd);
    return segment;
  }

  /**
   * Binary search: index of the last segment whose firstLsn is <= lsn. For lsn in
   * [1, lastLsn] that is the segment holding it (sealed segments are never empty).
   */
  indexForLsn(lsn: number): number {
    const segments = this.list;
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((segments[middle] as SegmentInfo).firstLsn <= lsn) low = middle;
      else high = middle - 1;
    }
    const found = segments[low];
    assertStorage(found !== undefined && found.firstLsn <= lsn && lsn < found.firstLsn + Math.max(1, found.frameCount), "no segment for lsn");
    return low;
  }

  closeActive(): void {
    this.storageFs.closeSync(this.activeFdValue);
  }
}

/** A segment (trusted at open) holds a different number of frames than its neighbours' headers say. */
export function segmentCountMismatch(segment: SegmentInfo, direction: "more" | "fewer"): LogCorruptError {
  return new LogCorruptError(segment.filePath, 0,
    `segment holds ${direction} than the ${segment.frameCount} frames (lsn ${segment.firstLsn}..${segment.firstLsn + segment.frameCount - 1}) ` +
      `that the segment headers (firstLsn of this and the next segment) say`);
}
