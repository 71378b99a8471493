/**
 * Files embedded in the single binary (`dist/market-service`, a Node single executable application)
 * that must exist on disk to be used: the SEA carries each as an asset, but the dynamic loader can
 * only map a file (native addons, native-addon.ts) and a worker thread is started from a file (the
 * worker pool's module, engine/binary/pool-worker-file.ts). Each one is written ONCE to a private cache
 * directory and used from there:
 *
 *   directory  os.tmpdir()/market-service-<first 16 hex digits of the asset's SHA-256>/  mode 0700
 *   file       <asset name>, written to a temporary name in that directory, then renamed   mode 0500
 *
 * A present file is reused only if it is a regular file owned by this user, mode 0500, and its
 * SHA-256 equals the asset's; anything else is replaced (atomically, by rename). The directory must
 * be a real directory (not a symlink) owned by this user with no group/other access, otherwise the
 * binary refuses: in a shared /tmp another user could otherwise plant code for us to load.
 * Concurrent starts (main thread and workers, or two processes) are safe: each writer uses its own
 * temporary name and rename is atomic.
 *
 * `os.tmpdir()` follows TMPDIR.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as sea from "node:sea";
import { threadId } from "node:worker_threads";

export class EmbeddedFileError extends Error {
  override name = "EmbeddedFileError";
}

export interface ExtractedFile {
  asset: string;
  /** Absolute path of the extracted file. */
  file: string;
  /** SHA-256 (hex) of the asset, equal to that of the file. */
  sha256: string;
  bytes: number;
  /** true: this thread wrote the file; false: a matching file was already there and was reused. */
  extracted: boolean;
}

/** How an embedded file is named in messages: "uWebSockets.js native addon", and "Addons" for the hint. */
export interface EmbeddedFileKind {
  what: string;
  plural: string;
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o500;

/** The directory extracted files live under (`os.tmpdir()`, i.e. TMPDIR or /tmp). */
export function embeddedCacheRoot(): string {
  return os.tmpdir();
}

/** `<root>/market-service-<sha256-16>`: one directory per distinct content. */
export function embeddedCacheDir(sha256: string, root: string = embeddedCacheRoot()): string {
  return path.join(root, `market-service-${sha256.slice(0, 16)}`);
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** Creates the directory 0700, or accepts an existing one only if it is private to this user. */
function ensurePrivateDirectory(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: DIR_MODE });
    fs.chmodSync(dir, DIR_MODE); // independent of the umask
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} exists and is not a directory`);
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid) throw new Error(`${dir} is owned by uid ${stat.uid}, not by this user (uid ${uid})`);
  if ((stat.mode & 0o077) !== 0) {
    throw new Error(`${dir} has mode 0${(stat.mode & 0o777).toString(8)}; it must be 0700 (no access for group or others)`);
  }
}

/** True when `file` is our own 0500 regular file with exactly the expected content. */
function isIntactCopy(file: string, sha256: string): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  const uid = currentUid();
  if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o777) !== FILE_MODE) return false;
  return sha256Hex(fs.readFileSync(file)) === sha256;
}

function writeAtomically(dir: string, file: string, bytes: Uint8Array): void {
  const temporary = path.join(dir, `.${path.basename(file)}.${process.pid}.${threadId}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fd = fs.openSync(temporary, "wx", FILE_MODE);
    try {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
      fs.fchmodSync(fd, FILE_MODE);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

const extractedInThisThread = new Map<string, ExtractedFile>();

/**
 * Extracts (or reuses) the embedded `asset` and returns where it is. Once per thread; later calls
 * return the same answer. Throws EmbeddedFileError naming the cause.
 */
export function extractEmbeddedFile(asset: string, kind: EmbeddedFileKind): ExtractedFile {
  const cached = extractedInThisThread.get(asset);
  if (cached !== undefined) return cached;
  if (!sea.isSea()) throw new EmbeddedFileError(`${kind.what}: embedded files exist only inside the single binary`);

  let bytes: Uint8Array;
  try {
    // A view of the blob inside the executable, not a copy; it is only read.
    bytes = new Uint8Array(sea.getRawAsset(asset) as ArrayBuffer);
  } catch (error) {
    throw new EmbeddedFileError(`the binary carries no ${kind.what} (asset ${JSON.stringify(asset)}): ${errorText(error)}`);
  }
  const sha256 = sha256Hex(bytes);
  const root = embeddedCacheRoot();
  const dir = embeddedCacheDir(sha256, root);
  const file = path.join(dir, asset);

  let extracted = false;
  try {
    ensurePrivateDirectory(dir);
    if (!isIntactCopy(file, sha256)) {
      writeAtomically(dir, file, bytes);
      extracted = true;
    }
  } catch (error) {
    throw new EmbeddedFileError(
      `cannot extract the embedded ${kind.what} to ${file}: ${errorText(error)}. ` +
        `${kind.plural} are extracted once under os.tmpdir() (${root}; set TMPDIR to choose another directory), ` +
        "which must be writable by this user.",
    );
  }
  const result: ExtractedFile = { asset, file, sha256, bytes: bytes.length, extracted };
  extractedInThisThread.set(asset, result);
  return result;
}
