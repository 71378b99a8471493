/**
 * The few file-system calls storage/ makes, behind an interface so tests can inject a failing
 * fdatasync, a short write or a failing rename. The default forwards to node:fs. Sync calls are
 * intended: the log runs in a dedicated worker thread and sync group commit measured fastest.
 * Snapshots are written with the asynchronous calls (libuv's thread pool): a snapshot of a large
 * state takes a while to write and sync, and the thread that takes it goes on serving meanwhile.
 */
import * as fs from "node:fs";
import { promisify } from "node:util";

export type OpenFlags = "r" | "r+" | "w";

export interface StorageFs {
  openSync(path: string, flags: OpenFlags): number;
  closeSync(fd: number): void;
  fstatSync(fd: number): { readonly size: number };
  /** pread: returns bytes read (0 at EOF). */
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, positionBytes: number): number;
  /** pwrite: returns bytes written (may be short). */
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, positionBytes: number): number;
  fdatasyncSync(fd: number): void;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, lengthBytes: number): void;
  readdirSync(dirPath: string): string[];
  mkdirSync(dirPath: string): void;
  renameSync(fromPath: string, toPath: string): void;
  unlinkSync(path: string): void;
  open(path: string, flags: OpenFlags): Promise<number>;
  close(fd: number): Promise<void>;
  write(fd: number, buffer: Uint8Array, offset: number, length: number, positionBytes: number): Promise<number>;
  fsync(fd: number): Promise<void>;
  rename(fromPath: string, toPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

const openAsync = promisify(fs.open);
const closeAsync = promisify(fs.close);
const writeAsync = promisify(fs.write);
const fsyncAsync = promisify(fs.fsync);
const renameAsync = promisify(fs.rename);
const unlinkAsync = promisify(fs.unlink);

export const nodeStorageFs: StorageFs = {
  openSync: (path, flags) => fs.openSync(path, flags, 0o644),
  closeSync: (fd) => fs.closeSync(fd),
  fstatSync: (fd) => fs.fstatSync(fd),
  readSync: (fd, buffer, offset, length, positionBytes) => fs.readSync(fd, buffer, offset, length, positionBytes),
  writeSync: (fd, buffer, offset, length, positionBytes) => fs.writeSync(fd, buffer, offset, length, positionBytes),
  fdatasyncSync: (fd) => fs.fdatasyncSync(fd),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  ftruncateSync: (fd, lengthBytes) => fs.ftruncateSync(fd, lengthBytes),
  readdirSync: (dirPath) => fs.readdirSync(dirPath),
  mkdirSync: (dirPath) => {
    fs.mkdirSync(dirPath, { recursive: true });
  },
  renameSync: (fromPath, toPath) => fs.renameSync(fromPath, toPath),
  unlinkSync: (path) => fs.unlinkSync(path),
  open: (path, flags) => openAsync(path, flags, 0o644),
  close: (fd) => closeAsync(fd),
  write: async (fd, buffer, offset, length, positionBytes) => (await writeAsync(fd, buffer, offset, length, positionBytes)).bytesWritten,
  fsync: (fd) => fsyncAsync(fd),
  rename: (fromPath, toPath) => renameAsync(fromPath, toPath),
  unlink: (path) => unlinkAsync(path),
};

/**
 * Makes a directory entry change (create, rename, unlink) durable. Without this a freshly
 * created and fsynced file can vanish after a power loss because its name was never flushed.
 */
export function fsyncDirectory(storageFs: StorageFs, dirPath: string): void {
  const fd = storageFs.openSync(dirPath, "r");
  try {
    storageFs.fsyncSync(fd);
  } finally {
    storageFs.closeSync(fd);
  }
}

/** `fsyncDirectory` without blocking the calling thread. */
export async function fsyncDirectoryAsync(storageFs: StorageFs, dirPath: string): Promise<void> {
  const fd = await storageFs.open(dirPath, "r");
  try {
    await storageFs.fsync(fd);
  } finally {
    await storageFs.close(fd);
  }
}

/** pread until `length` bytes are read or EOF; returns the number of bytes read. */
export function readFully(
  storageFs: StorageFs,
  fd: number,
  buffer: Uint8Array,
  offset: number,
  length: number,
  positionBytes: number,
): number {
  let done = 0;
  while (done < length) {
    const n = storageFs.readSync(fd, buffer, offset + done, length - done, positionBytes + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** pwrite until everything is written (for snapshot/segment-header files, not group commit). */
export function writeFully(
  storageFs: StorageFs,
  fd: number,
  buffer: Uint8Array,
  positionBytes: number,
): void {
  let done = 0;
  while (done < buffer.length) {
    const n = storageFs.writeSync(fd, buffer, done, buffer.length - done, positionBytes + done);
    if (n <= 0) throw new Error(`write made no progress at ${positionBytes + done}`);
    done += n;
  }
}

/** `writeFully` without blocking the calling thread. */
export async function writeFullyAsync(storageFs: StorageFs, fd: number, buffer: Uint8Array, positionBytes: number): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    const n = await storageFs.write(fd, buffer, done, buffer.length - done, positionBytes + done);
    if (n <= 0) throw new Error(`write made no progress at ${positionBytes + done}`);
    done += n;
  }
}
