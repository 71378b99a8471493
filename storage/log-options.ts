/**
 * Options of `SegmentLog.open`: what they mean, their defaults and bounds, and their validation,
 * done once before recovery touches the directory so a bad option never half-opens a log.
 */
import * as path from "node:path";
import type { LogCheckpoint } from "./checkpoint.js";
import { FRAME_HEADER_BYTES, MAX_PAYLOAD_BYTES } from "./frame.js";
import { SEGMENT_HEADER_BYTES } from "./segment-file.js";
import { DEFAULT_READ_CHUNK_BYTES, MIN_READ_CHUNK_BYTES } from "./segment-reader.js";
import { nodeStorageFs, type StorageFs } from "./storage-fs.js";

const MIB = 1024 * 1024;
export const DEFAULT_SEGMENT_SIZE_BYTES = 64 * MIB;
export const MAX_SEGMENT_SIZE_BYTES = 1024 * 1024 * MIB; // 1 TiB, far below 2^53
export const MIN_SEGMENT_SIZE_BYTES = SEGMENT_HEADER_BYTES + FRAME_HEADER_BYTES;
export const DEFAULT_MAX_BATCH_BYTES = 64 * MIB;
export const MAX_BATCH_BYTES_LIMIT = 1024 * MIB;
const MAX_READ_CHUNK_BYTES = 256 * MIB;

export interface SegmentLogOptions {
  /** Directory holding the segment files (created if missing). */
  readonly dir: string;
  /** Rotate before a batch that would make the file (header included) larger than this. Default 64 MiB. */
  readonly segmentSizeBytes?: number;
  /** Largest payload `append` accepts. Default and hard maximum: 16 MiB. */
  readonly maxPayloadBytes?: number;
  /** Largest staged batch (frame bytes). Default 64 MiB; must hold one maximal frame. */
  readonly maxBatchBytes?: number;
  /** Read chunk size for scans and recovery. Default 4 MiB. */
  readonly readChunkBytes?: number;
  /** Recompute the SHA-256 chain of the scanned segments during open (slower start). Default false: CRC + lsn only. */
  readonly verifyChainOnOpen?: boolean;
  /**
   * Fast open after a snapshot: sealed segments (every segment except the last) whose frames all
   * lie before this log position are accepted WITHOUT reading their frames. Only their header
   * (magic, version, CRC, base = file name), the tiling of positions and the lsn boundaries
   * between segment headers are checked. The segment holding this position and every later one
   * (always including the last) are fully scanned as usual. Default: absent = scan everything.
   * Damage inside a trusted segment is not detected by open; `verify()` detects it.
   * Pass the position of the first frame you will replay (e.g. `endPosition` recorded when a
   * snapshot was taken). Mutually exclusive with `trustSealedSegmentsThroughLsn`.
   */
  readonly trustSealedSegmentsBeforePosition?: number;
  /**
   * Same as `trustSealedSegmentsBeforePosition`, bounded by lsn instead: sealed segments whose
   * frames all have lsn <= this value are trusted (their lsn range comes from consecutive
   * segment headers). Pass the lsn you replay after, e.g. `snapshot.lsn`. Mutually exclusive
   * with `trustSealedSegmentsBeforePosition`.
   */
  readonly trustSealedSegmentsThroughLsn?: number;
  /**
   * Fast open of the last segment: a point the caller saved state at (a snapshot's lsn, chain head
   * and the position of that lsn's frame, see checkpoint.ts). When it lies in the last segment and
   * its frame checks out, frames before it are accepted without reading them (as a trusted sealed
   * segment's are) and `frames(lsn)` starts reading there. Ignored with `verifyChainOnOpen`.
   * Damage before it is not detected by open; `verify()` detects it.
   */
  readonly checkpoint?: LogCheckpoint;
  /** File-system calls; default node:fs. Tests inject failures here. */
  readonly fs?: StorageFs;
}

/** The options after validation, with every default filled in. */
export interface LogSettings {
  /** Absolute path of the log's directory. */
  readonly dir: string;
  readonly storageFs: StorageFs;
  readonly segmentSizeBytes: number;
  readonly maxPayloadBytes: number;
  readonly maxBatchBytes: number;
  readonly readChunkBytes: number;
  readonly verifyChainOnOpen: boolean;
  readonly trustSealedSegmentsBeforePosition: number | null;
  readonly trustSealedSegmentsThroughLsn: number | null;
  readonly checkpoint: LogCheckpoint | null;
}

/** Validates `options` (RangeError naming the option) and fills in the defaults. */
export function resolveLogOptions(options: SegmentLogOptions): LogSettings {
  const dir = path.resolve(options.dir);
  const storageFs = options.fs ?? nodeStorageFs;
  const segmentSizeBytes = checkedOption(options.segmentSizeBytes, DEFAULT_SEGMENT_SIZE_BYTES,
    MIN_SEGMENT_SIZE_BYTES, MAX_SEGMENT_SIZE_BYTES, "segmentSizeBytes");
  const maxPayloadBytes = checkedOption(options.maxPayloadBytes, MAX_PAYLOAD_BYTES, 0, MAX_PAYLOAD_BYTES, "maxPayloadBytes");
  const maxBatchBytes = checkedOption(options.maxBatchBytes, DEFAULT_MAX_BATCH_BYTES,
    FRAME_HEADER_BYTES + maxPayloadBytes, MAX_BATCH_BYTES_LIMIT, "maxBatchBytes");
  const readChunkBytes = checkedOption(options.readChunkBytes, DEFAULT_READ_CHUNK_BYTES,
    MIN_READ_CHUNK_BYTES, MAX_READ_CHUNK_BYTES, "readChunkBytes");

  const trustBeforePosition = optionalBound(options.trustSealedSegmentsBeforePosition, "trustSealedSegmentsBeforePosition");
  const trustThroughLsn = optionalBound(options.trustSealedSegmentsThroughLsn, "trustSealedSegmentsThroughLsn");
  if (trustBeforePosition !== null && trustThroughLsn !== null) {
    throw new RangeError("pass at most one of trustSealedSegmentsBeforePosition and trustSealedSegmentsThroughLsn");
  }
  return {
    dir,
    storageFs,
    segmentSizeBytes,
    maxPayloadBytes,
    maxBatchBytes,
    readChunkBytes,
    verifyChainOnOpen: options.verifyChainOnOpen ?? false,
    trustSealedSegmentsBeforePosition: trustBeforePosition,
    trustSealedSegmentsThroughLsn: trustThroughLsn,
    checkpoint: options.checkpoint ?? null,
  };
}

function checkedOption(value: number | undefined, fallback: number, min: number, max: number, name: string): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < min || chosen > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${chosen}`);
  }
  return chosen;
}

function optionalBound(value: number | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  return value;
}
