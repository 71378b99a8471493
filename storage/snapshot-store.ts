/**
 * Snapshot files: an opaque payload plus the log lsn and chain head it corresponds to.
 *
 * Snapshots are an optimisation; the log is the truth. A snapshot that fails validation is
 * skipped (and reported) and the next older one is used, or none, in which case the caller
 * replays the whole log.
 *
 * File `snapshot-<lsn, 20 digits>.snap`, layout:
 *   offset  size  field
 *   0       8     magic "SNAPSHT\n"
 *   8       4     formatVersion u32 LE (= 1)
 *   12      4     crc32c u32 LE over bytes [16, end of file)
 *   16      8     lsn u64 LE (must equal the file name)
 *   24      8     payloadLengthBytes u64 LE (file size must be 64 + this)
 *   32      32    chainHead
 *   64      n     payload
 *
 * Writes go to `<name>.tmp`, fsync, rename, fsync directory: a reader sees the old set of
 * snapshots or the new one, never a half-written file under a final name.
 * Recommended location: `<shard dir>/snapshots/` (the segment log ignores subdirectories).
 */
import * as path from "node:path";
import { assertSafeUint, assertStorage } from "./assert.js";
import { crc32c } from "./crc32c.js";
import { SnapshotWriteError } from "./errors.js";
import { CHAIN_HASH_BYTES } from "./hash-chain.js";
import { readSafeU64LE, writeSafeU64LE } from "./safe-u64.js";
import { fsyncDirectory, fsyncDirectoryAsync, readFully, writeFullyAsync, nodeStorageFs, type StorageFs } from "./storage-fs.js";

export const SNAPSHOT_HEADER_BYTES = 64;
export const SNAPSHOT_FORMAT_VERSION = 1;
export const SNAPSHOT_MAGIC = Buffer.from("SNAPSHT\n", "latin1");
export const DEFAULT_MAX_SNAPSHOT_PAYLOAD_BYTES = 1024 * 1024 * 1024;
const SNAPSHOT_NAME_PATTERN = /^snapshot-(\d{20})\.snap$/;
const SNAPSHOT_TEMP_SUFFIX = ".tmp";
const CRC_OFFSET = 12;
const CRC_COVERAGE_START = 16;
/** How much of a payload one turn of `write` checksums and hands to the file system. */
const WRITE_SLICE_BYTES = 1024 * 1024;

export interface SnapshotInput {
  readonly lsn: number;
  readonly chainHead: Uint8Array;
  /** The payload, in parts written one after another (their concatenation is what a load returns). */
  readonly payloadParts: readonly Uint8Array[];
}

export interface LoadedSnapshot {
  readonly lsn: number;
  readonly chainHead: Buffer;
  readonly payload: Buffer;
  readonly filePath: string;
}

export interface InvalidSnapshot {
  readonly filePath: string;
  readonly reason: string;
}

export interface LoadResult {
  /** Newest snapshot that validated, or null (replay the log from the start). */
  readonly snapshot: LoadedSnapshot | null;
  /** Newer snapshots that were skipped, newest first, with the reason. */
  readonly invalid: readonly InvalidSnapshot[];
}

export interface SnapshotStoreOptions {
  readonly dir: string;
  readonly maxPayloadBytes?: number;
  readonly fs?: StorageFs;
}

export function snapshotFileName(lsn: number): string {
  assertSafeUint(lsn, "snapshot lsn");
  return `snapshot-${String(lsn).padStart(20, "0")}.snap`;
}

export class SnapshotStore {
  readonly dir: string;
  private readonly storageFs: StorageFs;
  private readonly maxPayloadBytes: number;
  /**
   * Lsns of the snapshots this store wrote, or read and found valid: `prune` does not read them
   * again. Reading back a file just written checks only the page cache, and it cost a checkpoint
   * a read and CRC of every kept snapshot on the thread that serves (the gateway's for the
   * idempotency index, a shard's for its state), stalling its requests.
   */
  private readonly knownValid = new Set<number>();

  constructor(options: SnapshotStoreOptions) {
    this.dir = path.resolve(options.dir);
    this.storageFs = options.fs ?? nodeStorageFs;
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_SNAPSHOT_PAYLOAD_BYTES;
    if (!Number.isSafeInteger(this.maxPayloadBytes) || this.maxPayloadBytes < 0 || this.maxPayloadBytes > DEFAULT_MAX_SNAPSHOT_PAYLOAD_BYTES) {
      throw new RangeError(`maxPayloadBytes must be in [0, ${DEFAULT_MAX_SNAPSHOT_PAYLOAD_BYTES}]`);
    }
    this.storageFs.mkdirSync(this.dir);
    // The directory may have just been created; its entry in the parent must be durable
    // before any snapshot inside it can be.
    fsyncDirectory(this.storageFs, path.dirname(this.dir));
  }

  /**
   * Writes a snapshot durably (temp, fsync, rename, fsync directory; replaces one with the same lsn)
   * without holding up the calling thread, which goes on serving meanwhile (a shard takes its
   * snapshot between two batches, the gateway its idempotency index between two requests): the
   * file calls run on libuv's thread pool, and the payload, given in parts, is written and
   * checksummed a slice at a time, each slice in a turn of its own, so no turn computes the CRC of
   * a whole large payload; the header, which holds the CRC, is written last. A large payload is
   * never copied into one buffer. The parts must not change until the promise settles.
   */
  async write(input: SnapshotInput): Promise<{ filePath: string; sizeBytes: number }> {
    const payloadBytes = input.payloadParts.reduce((sum, part) => sum + part.length, 0);
    this.checkInput(input.lsn, input.chainHead, payloadBytes);
    const header = snapshotHeader(input.lsn, input.chainHead, payloadBytes);
    const filePath = path.join(this.dir, snapshotFileName(input.lsn));
    const tempPath = filePath + SNAPSHOT_TEMP_SUFFIX;
    try {
      const fd = await this.storageFs.open(tempPath, "w");
      try {
        let crc = crc32c(header.subarray(CRC_COVERAGE_START));
        let position = SNAPSHOT_HEADER_BYTES;
        for (const part of input.payloadParts) {
          for (let from = 0; from < part.length; from += WRITE_SLICE_BYTES) {
            const slice = part.subarray(from, Math.min(part.length, from + WRITE_SLICE_BYTES));
            crc = crc32c(slice, crc);
            await writeFullyAsync(this.storageFs, fd, slice, position);
            position += slice.length;
          }
        }
        header.writeUInt32LE(crc, CRC_OFFSET);
        await writeFullyAsync(this.storageFs, fd, header, 0);
        await this.storageFs.fsync(fd);
      } finally {
        await this.storageFs.close(fd);
      }
      await this.storageFs.rename(tempPath, filePath);
      await fsyncDirectoryAsync(this.storageFs, this.dir);
    } catch (cause) {
      // Leave the .tmp file (if any) behind: it never has a final name, prune() removes it.
      throw new SnapshotWriteError(`writing snapshot ${filePath} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    }
    this.knownValid.add(input.lsn);
    return { filePath, sizeBytes: SNAPSHOT_HEADER_BYTES + payloadBytes };
  }

  private checkInput(lsn: number, chainHead: Uint8Array, payloadBytes: number): void {
    if (!Number.isSafeInteger(lsn) || lsn < 0) throw new RangeError(`snapshot lsn ${lsn} is not a safe uint`);
    if (chainHead.length !== CHAIN_HASH_BYTES) throw new RangeError("chainHead must be 32 bytes");
    if (payloadBytes > this.maxPayloadBytes) throw new RangeError(`snapshot payload of ${payloadBytes} bytes exceeds ${this.maxPayloadBytes}`);
  }

  /** Snapshot files by name, newest (highest lsn) first. Does not validate contents. */
  list(): Array<{ lsn: number; filePath: string }> {
    const found: Array<{ lsn: number; filePath: string }> = [];
    for (const name of this.storageFs.readdirSync(this.dir)) {
      const match = SNAPSHOT_NAME_PATTERN.exec(name);
      if (match === null || match[1] === undefined) continue;
      const lsn = Number(match[1]);
      if (!Number.isSafeInteger(lsn)) continue;
      found.push({ lsn, filePath: path.join(this.dir, name) });
    }
    return found.sort((a, b) => b.lsn - a.lsn);
  }

  /** Newest snapshot whose header, size and CRC validate; invalid newer ones are reported. */
  loadNewestValid(): LoadResult {
    const invalid: InvalidSnapshot[] = [];
    for (const entry of this.list()) {
      const result = this.readValidated(entry.filePath, entry.lsn);
      if (typeof result === "string") {
        invalid.push({ filePath: entry.filePath, reason: result });
        continue;
      }
      this.knownValid.add(entry.lsn);
      return { snapshot: result, invalid };
    }
    return { snapshot: null, invalid };
  }

  /** The snapshot at `lsn` if its file exists and validates (header, size, CRC), else why it cannot be used. */
  loadValid(lsn: number): LoadedSnapshot | string {
    const result = this.readValidated(path.join(this.dir, snapshotFileName(lsn)), lsn);
    if (typeof result !== "string") this.knownValid.add(lsn);
    return result;
  }

  /**
   * Up to the first `prefixBytes` of the newest snapshot's payload, NOT validated (no CRC: the file
   * is not read whole), or null when there is no snapshot or it cannot be read. For a
   * caller that can start work on a hint and redo it if `loadNewestValid` later disagrees.
   */
  peekNewestPayload(prefixBytes: number): { lsn: number; payloadPrefix: Buffer } | null {
    assertSafeUint(prefixBytes, "prefixBytes");
    const newest = this.list()[0];
    if (newest === undefined) return null;
    let fd: number;
    try {
      fd = this.storageFs.openSync(newest.filePath, "r");
    } catch {
      return null;
    }
    try {
      const sizeBytes = this.storageFs.fstatSync(fd).size;
      const wanted = Math.min(prefixBytes, Math.max(0, sizeBytes - SNAPSHOT_HEADER_BYTES));
      const payloadPrefix = Buffer.allocUnsafe(wanted);
      if (readFully(this.storageFs, fd, payloadPrefix, 0, wanted, SNAPSHOT_HEADER_BYTES) !== wanted) return null;
      return { lsn: newest.lsn, payloadPrefix };
    } finally {
      this.storageFs.closeSync(fd);
    }
  }

  /**
   * Keeps the newest `keep` VALID snapshots and deletes every snapshot older than the oldest
   * kept one, plus leftover temp files. Invalid snapshots newer than that are left in place for
   * inspection (loadNewestValid keeps reporting them). A snapshot this store wrote or loaded counts
   * as valid without being read again (`knownValid`). The deletions are not fsynced: one lost in a
   * crash leaves an older snapshot that the next prune deletes. Returns the deleted paths. The files
   * are deleted off the calling thread (freeing a large file takes the file system a while); a
   * write of the same store must not be under way (its temp file would be deleted).
   */
  async prune(keep = 2): Promise<{ deleted: string[] }> {
    if (!Number.isSafeInteger(keep) || keep < 1) throw new RangeError(`keep must be an integer >= 1, got ${keep}`);
    const deleted = await this.deleteTempFiles();
    const entries = this.list();
    let validKept = 0;
    let cutoffIndex = entries.length;
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as { lsn: number; filePath: string };
      if (!this.knownValid.has(entry.lsn) && typeof this.readValidated(entry.filePath, entry.lsn) === "string") continue;
      this.knownValid.add(entry.lsn);
      validKept++;
      if (validKept === keep) {
        cutoffIndex = index + 1;
        break;
      }
    }
    return { deleted: [...deleted, ...(await this.deleteSnapshots(entries.slice(cutoffIndex)))] };
  }

  /**
   * Deletes every snapshot older than `lsn` (whatever its validity) and leftover temp files: for an
   * owner whose snapshots depend on one another, which knows itself which ones a load still needs.
   * Otherwise as `prune`.
   */
  async pruneOlderThan(lsn: number): Promise<{ deleted: string[] }> {
    assertSafeUint(lsn, "lsn");
    const deleted = await this.deleteTempFiles();
    return { deleted: [...deleted, ...(await this.deleteSnapshots(this.list().filter((entry) => entry.lsn < lsn)))] };
  }

  private async deleteTempFiles(): Promise<string[]> {
    const deleted: string[] = [];
    for (const name of this.storageFs.readdirSync(this.dir)) {
      if (name.startsWith("snapshot-") && name.endsWith(".snap" + SNAPSHOT_TEMP_SUFFIX)) {
        const filePath = path.join(this.dir, name);
        await this.storageFs.unlink(filePath);
        deleted.push(filePath);
      }
    }
    return deleted;
  }

  private async deleteSnapshots(entries: ReadonlyArray<{ lsn: number; filePath: string }>): Promise<string[]> {
    const deleted: string[] = [];
    for (const entry of entries) {
      await this.storageFs.unlink(entry.filePath);
      this.knownValid.delete(entry.lsn);
      deleted.push(entry.filePath);
    }
    return deleted;
  }

  /** Loaded snapshot, or the reason it is invalid. */
  private readValidated(filePath: string, lsnFromName: number): LoadedSnapshot | string {
    let fd: number;
    try {
      fd = this.storageFs.openSync(filePath, "r");
    } catch (error) {
      return `cannot open: ${error instanceof Error ? error.message : String(error)}`;
    }
    try {
      const sizeBytes = this.storageFs.fstatSync(fd).size;
      if (sizeBytes < SNAPSHOT_HEADER_BYTES) return `file of ${sizeBytes} bytes is shorter than the header`;
      if (sizeBytes - SNAPSHOT_HEADER_BYTES > this.maxPayloadBytes) return `payload of ${sizeBytes - SNAPSHOT_HEADER_BYTES} bytes exceeds the limit`;
      const content = Buffer.allocUnsafe(sizeBytes);
      if (readFully(this.storageFs, fd, content, 0, sizeBytes, 0) !== sizeBytes) return "short read";
      return decodeSnapshot(content, lsnFromName, filePath);
    } finally {
      this.storageFs.closeSync(fd);
    }
  }
}

/** The 64-byte header of a payload of `payloadBytes`, its CRC (offset 12) still zero. */
function snapshotHeader(lsn: number, chainHead: Uint8Array, payloadBytes: number): Buffer {
  const header = Buffer.alloc(SNAPSHOT_HEADER_BYTES);
  SNAPSHOT_MAGIC.copy(header, 0);
  header.writeUInt32LE(SNAPSHOT_FORMAT_VERSION, 8);
  writeSafeU64LE(header, lsn, 16);
  writeSafeU64LE(header, payloadBytes, 24);
  header.set(chainHead, 32);
  return header;
}

/** Decoded snapshot, or the reason the bytes are not a valid snapshot for `expectedLsn`. */
export function decodeSnapshot(content: Buffer, expectedLsn: number, filePath: string): LoadedSnapshot | string {
  if (content.length < SNAPSHOT_HEADER_BYTES) return "shorter than the header";
  if (!content.subarray(0, SNAPSHOT_MAGIC.length).equals(SNAPSHOT_MAGIC)) return "bad magic";
  const version = content.readUInt32LE(8);
  if (version !== SNAPSHOT_FORMAT_VERSION) return `unsupported format version ${version}`;
  if (crc32c(content.subarray(CRC_COVERAGE_START)) !== content.readUInt32LE(CRC_OFFSET)) return "crc32c mismatch";
  const lsn = readSafeU64LE(content, 16);
  if (lsn !== expectedLsn) return `header lsn ${lsn} does not match file name lsn ${expectedLsn}`;
  const payloadBytes = readSafeU64LE(content, 24);
  if (payloadBytes !== content.length - SNAPSHOT_HEADER_BYTES) {
    return `header declares ${payloadBytes} payload bytes, file holds ${content.length - SNAPSHOT_HEADER_BYTES}`;
  }
  assertStorage(lsn >= 0, "validated lsn is a safe uint");
  return {
    lsn,
    chainHead: Buffer.from(content.subarray(32, 32 + CHAIN_HASH_BYTES)),
    payload: content.subarray(SNAPSHOT_HEADER_BYTES),
    filePath,
  };
}
