/**
 * Public API of the storage layer: durable bytes. Payloads are opaque; encoding them (msgpackr) and
 * giving them meaning is the caller's job. Beside the segment logs and snapshots exported here, the
 * folder holds the data directory's own small files, imported from their modules: its lock
 * (data-dir-lock.ts, with process-stat.ts), its recorded layout (data-dir-layout.ts: the shard count
 * in cluster.json) and the atomic, durable write of a small file (atomic-file.ts). Imports nothing
 * of the service.
 */
export { SegmentLog } from "./segment-log.js";
export { DEFAULT_SEGMENT_SIZE_BYTES, DEFAULT_MAX_BATCH_BYTES, type SegmentLogOptions } from "./log-options.js";
export type { AppendResult, CommitResult, LogStats } from "./log-appender.js";
export type { FramesOptions } from "./log-reader.js";
export type { VerifyResult } from "./log-verify.js";
export type { LogFrame, VerifyMode, FrameProblemKind } from "./segment-reader.js";
export type { RecoveryReport, TornTailTruncation } from "./recovery.js";
export type { LogCheckpoint } from "./checkpoint.js";
export {
  SnapshotStore,
  snapshotFileName,
  type SnapshotInput,
  type SnapshotStoreOptions,
  type LoadedSnapshot,
  type InvalidSnapshot,
  type LoadResult,
} from "./snapshot-store.js";
export {
  StorageError,
  StorageInvariantError,
  StorageLimitError,
  LogClosedError,
  LogCorruptError,
  LogFailedError,
  SnapshotWriteError,
} from "./errors.js";
export { nodeStorageFs, type StorageFs, type OpenFlags } from "./storage-fs.js";
export { FRAME_HEADER_BYTES, MAX_PAYLOAD_BYTES } from "./frame.js";
export { SEGMENT_HEADER_BYTES, segmentFileName } from "./segment-file.js";
export { CHAIN_HASH_BYTES, genesisChainHash, nextChainHash } from "./hash-chain.js";
export { crc32c } from "./crc32c.js";
export { LogView, type LogReadView, type SegmentExtent } from "./frame-reader.js";
