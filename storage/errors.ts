/**
 * Error types of the storage layer. Every error that concerns on-disk bytes names the file and
 * the byte offset, because an operator has to be able to find the damage with a hex editor.
 */

/** Base class so callers can catch "anything from storage" in one place. */
export class StorageError extends Error {
  override name = "StorageError";
}

/** A broken internal invariant: a bug in this layer, never a property of the data on disk. */
export class StorageInvariantError extends StorageError {
  override name = "StorageInvariantError";
}

/** A caller exceeded a configured bound (payload too large, batch full). The log stays usable. */
export class StorageLimitError extends StorageError {
  override name = "StorageLimitError";
}

/** Operation on a log or store after `close()`. */
export class LogClosedError extends StorageError {
  override name = "LogClosedError";
}

/**
 * The log's bytes are not what this layer wrote: a bad frame that is not a torn tail, a bad
 * segment header, a gap between segments. The log refuses to open rather than skip anything.
 */
export class LogCorruptError extends StorageError {
  override name = "LogCorruptError";
  /** Absolute path of the damaged file. */
  readonly filePath: string;
  /** Byte offset inside `filePath` where the damage starts (start of the bad frame/header). */
  readonly fileOffsetBytes: number;

  constructor(filePath: string, fileOffsetBytes: number, message: string) {
    super(`${message} [file ${filePath} at byte offset ${fileOffsetBytes}]`);
    this.filePath = filePath;
    this.fileOffsetBytes = fileOffsetBytes;
  }
}

/**
 * A write or flush failed. After an fsync/fdatasync error the kernel may already have dropped
 * the dirty pages, so retrying could report success for data that is gone ("fsyncgate"). The
 * log therefore becomes permanently failed: this error is thrown by the failing commit and by
 * every later append/commit. Recovery is: close, reopen (which rescans the files), retry at a
 * higher layer. The outcome of the failed commit is unknown: its frames may or may not be
 * present after reopen, so it must not have been acknowledged.
 */
export class LogFailedError extends StorageError {
  override name = "LogFailedError";
}

/** A snapshot file could not be written durably. */
export class SnapshotWriteError extends StorageError {
  override name = "SnapshotWriteError";
}

/** The message of an error (or the text of anything else thrown), for a message that wraps it. */
export function describeCause(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
