/**
 * The audit of a log (`SegmentLog.verify()`): whatever open trusted, every segment header is
 * re-read and must continue the log (its firstLsn = the next lsn, its previousChain = the chain of
 * the frame before it, as computed by this scan), and every frame is checked (CRC, lsn continuity,
 * the whole SHA-256 chain from genesis). Open may trust sealed segments or a checkpoint without
 * reading their frames; this is where damage there is found.
 */
import { LogCorruptError } from "./errors.js";
import { genesisChainHash, shortHex } from "./hash-chain.js";
import { segmentCountMismatch, type SegmentInfo } from "./log-segments.js";
import { SEGMENT_HEADER_BYTES, readSegmentHeader } from "./segment-file.js";
import { SegmentReader } from "./segment-reader.js";
import type { StorageFs } from "./storage-fs.js";

export type VerifyResult =
  | { readonly ok: true; readonly framesVerified: number; readonly lastLsn: number; readonly chainHead: Buffer }
  | { readonly ok: false; readonly framesVerified: number; readonly error: LogCorruptError };

/** How far the audit has got: the lsn and chain the next segment must continue from. */
interface AuditPosition {
  framesVerified: number;
  nextLsn: number;
  chain: Buffer;
  /** Previous segment, checked after the next header so a lying header is named first. */
  previous: { segment: SegmentInfo; framesRead: number } | null;
}

/**
 * Audits `segments` (a snapshot of the log's segments, oldest first). Returns the first mismatch
 * (file + offset) instead of throwing.
 */
export function verifySegments(storageFs: StorageFs, segments: readonly SegmentInfo[], readChunkBytes: number): VerifyResult {
  const audit: AuditPosition = { framesVerified: 0, nextLsn: 1, chain: genesisChainHash(), previous: null };
  try {
    for (const segment of segments) verifySegment(storageFs, segment, readChunkBytes, audit);
    checkPreviousFrameCount(audit);
  } catch (error) {
    if (error instanceof LogCorruptError) return { ok: false, framesVerified: audit.framesVerified, error };
    throw error;
  }
  return { ok: true, framesVerified: audit.framesVerified, lastLsn: audit.nextLsn - 1, chainHead: audit.chain };
}

/** Checks one segment's header against the audit so far, then every frame of it; moves the audit on. */
function verifySegment(storageFs: StorageFs, segment: SegmentInfo, readChunkBytes: number, audit: AuditPosition): void {
  const fd = storageFs.openSync(segment.filePath, "r");
  try {
    const header = readSegmentHeader(storageFs, fd, segment.filePath, segment.basePositionBytes);
    if (header.firstLsn !== audit.nextLsn) {
      throw new LogCorruptError(segment.filePath, 0,
        `segment header firstLsn ${header.firstLsn} does not match the lsn computed by the scan (${audit.nextLsn})`);
    }
    if (!header.previousChain.equals(audit.chain)) {
      throw new LogCorruptError(segment.filePath, 0,
        `segment header previousChain ${shortHex(header.previousChain)}… does not match the chain computed by the scan (${shortHex(audit.chain)}…)`);
    }
    checkPreviousFrameCount(audit);
    if (segment.firstLsn !== audit.nextLsn) {
      throw new LogCorruptError(segment.filePath, 0,
        `segment firstLsn ${segment.firstLsn} recorded at open does not match the lsn computed by the scan (${audit.nextLsn})`);
    }
    const reader = new SegmentReader({
      storageFs,
      fd,
      basePositionBytes: segment.basePositionBytes,
      endFileOffsetBytes: SEGMENT_HEADER_BYTES + segment.frameBytes,
      firstExpectedLsn: audit.nextLsn,
      previousChain: audit.chain,
      verify: "chain",
      readChunkBytes,
    });
    while (reader.next() !== null) audit.framesVerified++;
    const problem = reader.problem;
    if (problem !== null) {
      throw new LogCorruptError(segment.filePath, problem.fileOffsetBytes,
        `${problem.kind} at log position ${problem.position}: ${problem.detail}`);
    }
    audit.nextLsn = reader.nextExpectedLsn;
    audit.chain = Buffer.from(reader.lastChain);
    audit.previous = { segment, framesRead: reader.framesRead };
  } finally {
    storageFs.closeSync(fd);
  }
}

/** The previous segment held as many frames as open recorded for it (trusted segments: as its neighbours' headers said). */
function checkPreviousFrameCount(audit: AuditPosition): void {
  const previous = audit.previous;
  if (previous !== null && previous.framesRead !== previous.segment.frameCount) {
    throw segmentCountMismatch(previous.segment, previous.framesRead > previous.segment.frameCount ? "more" : "fewer");
  }
}
