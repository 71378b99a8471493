/**
 * One process per data directory (PostgreSQL's postmaster.pid is the model, made stricter).
 *
 * Two processes writing one directory lose acknowledged writes: each appends to the same segment
 * files from its own idea of the tail. So a process that serves or audits a data directory first
 * takes its lock and holds it for its whole life:
 *
 * - The exclusion itself is held by the kernel, not by a file's contents: the process binds an
 *   abstract Unix socket named after the directory's device and inode. Only one socket can be bound
 *   to a name, and the kernel unbinds it when the process dies for any reason, `kill -9` included,
 *   so a crashed holder never blocks the next start and no pid can be mistaken for it.
 * - `market-service.pid` in the directory names the holder for people and for the refusal message:
 *   pid, the command, when it started, and the process identity behind the pid (boot id and the
 *   process's start time in clock ticks since boot). Abstract sockets are per network namespace, so
 *   a holder in another namespace (a container sharing the volume) is caught by this file instead:
 *   it is trusted only while that exact process (same boot, same pid, same start time) is alive and
 *   only for the directory it was written in (device and inode), so a reused pid, a reboot or a
 *   copy of a live directory never makes a stale file look held. A holder killed and not yet reaped
 *   by its parent (a zombie) is not alive: it holds nothing, so a supervisor's immediate restart
 *   succeeds.
 *
 * Linux only, like the rest of the service (/proc and abstract sockets).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import * as path from "node:path";
import { bootId, isAlive, processStat } from "./process-stat.js";

export const LOCK_FILE_NAME = "market-service.pid";

/** Who holds a data directory, as its lock file says. */
export interface LockHolder {
  pid: number;
  /** What the holder runs: "serve", "replay", "verify". */
  command: string;
  /** ISO time the holder took the lock (its own clock). */
  startedAt: string;
  /** /proc/sys/kernel/random/boot_id of the holder's boot. */
  bootId: string;
  /** Field 22 of /proc/<pid>/stat: the holder's start time in clock ticks since boot. */
  startTicks: number;
  /** `<device>:<inode>` of the directory it locked: a pid file copied along with the data is no lock. */
  directory: string;
}

export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      holder === undefined
        ? `data directory ${dataDir} is in use by another process (it is starting, or its pid file is unreadable)`
        : `data directory ${dataDir} is in use by process ${holder.pid} (market-service ${holder.command}, since ${holder.startedAt})`,
    );
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  /** Releases the lock (removes the pid file, unbinds the socket). Idempotent. */
  release(): void;
}

/**
 * Takes the lock on `dataDir` (created if missing) for `command`, or throws DataDirInUseError naming
 * the holder. Resolves within one bind: a held lock is refused at once, never waited for.
 */
export async function lockDataDir(dataDir: string, command: string, nowMs: number): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const { dev, ino } = statSync(dataDir);
  const directory = `${dev}:${ino}`;
  const server = createServer();
  try {
    await bindAbstract(server, `\0market-service/data-dir/${directory}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw new DataDirInUseError(dataDir, readLockHolder(dataDir));
    throw error;
  }
  // The socket only marks ownership; it must not keep the process alive on its own.
  server.unref();
  try {
    const previous = readLockHolder(dataDir);
    if (previous !== undefined && previous.directory === directory && previous.pid !== process.pid && isRunning(previous)) {
      throw new DataDirInUseError(dataDir, previous);
    }
    writeLockFile(dataDir, { pid: process.pid, command, startedAt: new Date(nowMs).toISOString(), ...ownIdentity(), directory });
  } catch (error) {
    server.close();
    throw error;
  }
  let released = false;
  return {
    dataDir,
    release(): void {
      if (released) return;
      released = true;
      const current = readLockHolder(dataDir);
      if (current?.pid === process.pid) {
        try {
          unlinkSync(path.join(dataDir, LOCK_FILE_NAME));
        } catch {
          // Already gone (the directory was removed): nothing left to release.
        }
      }
      server.close();
    },
  };
}

/** The holder named by the directory's pid file, or undefined when there is none or it is unreadable. */
export function readLockHolder(dataDir: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, LOCK_FILE_NAME), "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    const { pid, command, startedAt, bootId, startTicks, directory } = parsed;
    if (!Number.isSafeInteger(pid) || typeof command !== "string" || typeof startedAt !== "string") return undefined;
    if (typeof bootId !== "string" || !Number.isSafeInteger(startTicks) || typeof directory !== "string") return undefined;
    return { pid: pid as number, command, startedAt, bootId, startTicks: startTicks as number, directory };
  } catch {
    return undefined;
  }
}

/**
 * True only if the very process the holder names is alive: same boot, same pid, same start time,
 * and not a zombie (a killed holder its parent has not reaped yet holds nothing; process-stat.ts).
 */
export function isRunning(holder: Pick<LockHolder, "pid" | "bootId" | "startTicks">): boolean {
  if (holder.bootId !== bootId()) return false;
  return isAlive(holder.pid, holder.startTicks);
}

function bindAbstract(server: Server, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: name, exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function ownIdentity(): { bootId: string; startTicks: number } {
  const own = processStat(process.pid);
  if (own === undefined) throw new Error("cannot read /proc/self/stat: the data directory lock needs Linux /proc");
  return { bootId: bootId(), startTicks: own.startTicks };
}

function writeLockFile(dataDir: string, holder: LockHolder): void {
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(holder, null, 2)}\n`, { mode: 0o644 });
  const fd = openSync(temp, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const dirFd = openSync(dataDir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
