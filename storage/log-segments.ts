/**
 * The log's segments in memory: one `SegmentInfo` per segment file, oldest first.
 */

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
