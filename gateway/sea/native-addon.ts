/**
 * Native addons embedded in the single binary (`dist/market-service`, a Node single executable
 * application): the SEA carries each `.node` file as an asset, but the dynamic loader can only map a
 * file, so each one is written ONCE to a private cache directory and `process.dlopen`ed from there.
 *
 *   directory  os.tmpdir()/market-service-<first 16 hex digits of the asset's SHA-256>/  mode 0700
 *   file       <asset name>, written to a temporary name in that directory, then renamed   mode 0500
 *
 * A present file is reused only if it is a regular file owned by this user, mode 0500, and its
 * SHA-256 equals the asset's; anything else is replaced (atomically, by rename). The directory must
 * be a real directory (not a symlink) owned by this user with no group/other access, otherwise the
 * binary refuses: in a shared /tmp another user could otherwise plant a library for us to load.
 * Concurrent starts (main thread and shard workers, or two processes) are safe: each writer uses its
 * own temporary name and rename is atomic.
 *
 * `os.tmpdir()` follows TMPDIR. It must be on a filesystem that allows executable mappings (not
 * mounted noexec), or dlopen fails; the binary then refuses to start with that reason.
 *
 * Only the single binary uses this module (build/build-binary.ts aliases the addon packages to
 * uws-addon.ts and crc32-addon.ts); `node dist/gateway/...` and the tests load the packages normally.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as sea from "node:sea";
import { threadId } from "node:worker_threads";

export class EmbeddedAddonError extends Error {
  override name = "EmbeddedAddonError";
}

export interface ExtractedAddon {
  asset: string;
  /** Absolute path of the extracted file that was dlopen'ed. */
  file: string;
  /** SHA-256 (hex) of the asset, equal to that of the file. */
  sha256: string;
  bytes: number;
  /** true: this thread wrote the file; false: a matching file was already there and was reused. */
  extracted: boolean;
  /** Time to hash, check or extract, and dlopen, in milliseconds. */
  ms: number;
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o500;

/** The directory extracted addons live under (`os.tmpdir()`, i.e. TMPDIR or /tmp). */
export function addonCacheRoot(): string {
  return os.tmpdir();
}

/** `<root>/market-service-<sha256-16>`: one directory per distinct addon content. */
export function addonCacheDir(sha256: string, root: string = addonCacheRoot()): string {
  return path.join(root, `market-service-${sha256.slice(0, 16)}`);
}

const loadedInThisThread = new Map<string, { addon: ExtractedAddon; exports: unknown }>();

/** Addons this thread has loaded so far (the self-check reports them). */
export function loadedAddons(): ExtractedAddon[] {
  return [...loadedInThisThread.values()].map((entry) => entry.addon);
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function errorText(error: unknown): string {
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

/**
 * Extracts (or reuses) the embedded addon `asset` and dlopens it with RTLD_NOW. Once per thread;
 * later calls return the same exports. Throws EmbeddedAddonError naming the cause.
 */
export function loadEmbeddedAddon(asset: string, what: string): { exports: unknown; addon: ExtractedAddon } {
  const cached = loadedInThisThread.get(asset);
  if (cached !== undefined) return cached;
  const started = performance.now();
  if (!sea.isSea()) throw new EmbeddedAddonError(`${what}: embedded addons exist only inside the single binary`);

  let bytes: Uint8Array;
  try {
    // A view of the blob inside the executable, not a copy; it is only read.
    bytes = new Uint8Array(sea.getRawAsset(asset) as ArrayBuffer);
  } catch (error) {
    throw new EmbeddedAddonError(`the binary carries no ${what} native addon (asset ${JSON.stringify(asset)}): ${errorText(error)}`);
  }
  const sha256 = sha256Hex(bytes);
  const root = addonCacheRoot();
  const dir = addonCacheDir(sha256, root);
  const file = path.join(dir, asset);

  let extracted = false;
  try {
    ensurePrivateDirectory(dir);
    if (!isIntactCopy(file, sha256)) {
      writeAtomically(dir, file, bytes);
      extracted = true;
    }
  } catch (error) {
    throw new EmbeddedAddonError(
      `cannot extract the embedded ${what} native addon to ${file}: ${errorText(error)}. ` +
        `Addons are extracted once under os.tmpdir() (${root}; set TMPDIR to choose another directory), ` +
        "which must be writable by this user.",
    );
  }

  const module = { exports: {} as unknown };
  try {
    process.dlopen(module, file, os.constants.dlopen.RTLD_NOW);
  } catch (error) {
    throw new EmbeddedAddonError(
      `cannot load the embedded ${what} native addon from ${file}: ${errorText(error)}. ` +
        `The directory (${root}; set TMPDIR to choose another) must be on a filesystem that allows executable mappings (not mounted noexec).`,
    );
  }
  const addon: ExtractedAddon = { asset, file, sha256, bytes: bytes.length, extracted, ms: performance.now() - started };
  const entry = { exports: module.exports, addon };
  loadedInThisThread.set(asset, entry);
  return entry;
}
