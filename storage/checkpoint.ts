/**
 * A checkpoint: a point of the log the caller vouches for, because it saved state there (a
 * snapshot): the lsn and chain head of the log at that moment, and where that lsn's frame starts and
 * ends. Open uses it to start reading the last segment at the checkpoint instead of at its first
 * frame; frames before it are then accepted like a trusted sealed segment's (see recovery.ts).
 *
 * The checkpoint is not taken on faith: the frame it names is read and must be a whole frame at that
 * position whose CRC matches, whose lsn is the checkpoint's and whose chain field is the
 * checkpoint's chain head. A checkpoint from another log, or one the log no longer reaches, fails
 * that check, and open falls back to scanning the whole segment.
 */
import {
  FRAME_CHAIN_OFFSET,
  FRAME_HEADER_BYTES,
  FRAME_PAYLOAD_OFFSET,
  MAX_FRAME_BYTES,
  frameCrcMatches,
  readFrameLsn,
  readFramePayloadLength,
} from "./frame.js";
import { CHAIN_HASH_BYTES } from "./hash-chain.js";
import { SEGMENT_HEADER_BYTES } from "./segment-file.js";
import { readFully, type StorageFs } from "./storage-fs.js";

export interface LogCheckpoint {
  /** lsn of the last frame the saved state covers (≥ 1). */
  readonly lsn: number;
  /** The log's chain head after that frame. */
  readonly chainHead: Uint8Array;
  /** Log position where that frame starts. */
  readonly lastFramePosition: number;
  /** Log position just past it (the log's end when the state was saved). */
  readonly endPosition: number;
}

/** Where reading may start inside a segment: a frame boundary with its lsn and previous chain. */
export interface SeekPoint {
  readonly segmentBasePositionBytes: number;
  /** Log position of the frame. */
  readonly position: number;
  readonly lsn: number;
  /** Chain of the frame before it. */
  readonly previousChain: Buffer;
}

/** Why `checkpoint` cannot be used in the segment at `basePositionBytes`, or null when it can. */
export function checkpointProblem(
  storageFs: StorageFs,
  fd: number,
  basePositionBytes: number,
  fileSizeBytes: number,
  checkpoint: LogCheckpoint,
): string | null {
  const { lsn, chainHead, lastFramePosition, endPosition } = checkpoint;
  if (!Number.isSafeInteger(lsn) || lsn < 1) return "lsn is not a positive safe integer";
  if (chainHead.length !== CHAIN_HASH_BYTES) return "chain head is not 32 bytes";
  if (!Number.isSafeInteger(lastFramePosition) || lastFramePosition < basePositionBytes) return "its frame is not in this segment";
  const frameBytes = endPosition - lastFramePosition;
  if (!Number.isSafeInteger(endPosition) || frameBytes < FRAME_HEADER_BYTES || frameBytes > MAX_FRAME_BYTES) {
    return "its frame extent is not a possible frame";
  }
  const fileOffset = SEGMENT_HEADER_BYTES + (lastFramePosition - basePositionBytes);
  if (fileOffset + frameBytes > fileSizeBytes) return "the segment ends before its frame does";
  const frame = Buffer.allocUnsafe(frameBytes);
  if (readFully(storageFs, fd, frame, 0, frameBytes, fileOffset) !== frameBytes) return "short read";
  if (FRAME_HEADER_BYTES + readFramePayloadLength(frame, 0) !== frameBytes) return "the frame there has another length";
  if (!frameCrcMatches(frame, 0, frameBytes)) return "the frame there fails its CRC";
  if (readFrameLsn(frame, 0) !== lsn) return `the frame there has lsn ${readFrameLsn(frame, 0)}, not ${lsn}`;
  if (!frame.subarray(FRAME_CHAIN_OFFSET, FRAME_PAYLOAD_OFFSET).equals(chainHead)) return "the frame there has another chain";
  return null;
}
