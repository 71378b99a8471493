/**
 * One process per data directory, with real processes: a second server on a live directory exits at
 * once naming the holder; a holder killed with -9 never blocks the next start, even before its parent
 * reaps it (a zombie); a pid file that names a reused pid, another boot or another directory is stale;
 * replay and verify refuse a live directory and leave its log untouched.
 */
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { LOCK_FILE_NAME, lockDataDir, readLockHolder } from "../../storage/data-dir-lock.js";
import { processStat } from "../../storage/process-stat.js";
import {
  acknowledgedWrites,
  CLI_JS,
  eventually,
  listeningUrl,
  MAIN_JS,
  publishedVersion,
  serverEnv,
  spawnCaptured,
  startServer,
  tempDataDir,
  type Spawned,
} from "./support.js";

const running: Spawned[] = [];
afterEach(async () => {
  for (const spawned of running.splice(0)) {
    if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill("SIGKILL");
    await spawned.exited;
  }
});

async function serve(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Spawned & { url: string }> {
  const server = await startServer(dataDir, extraEnv);
  running.push(server);
  return server;
}

/** Every file of every shard directory with its size: what an audit must leave as it found it. */
function shardFiles(dataDir: string): Record<string, number> {
  const files: Record<string, number> = {};
  for (const shard of readdirSync(path.join(dataDir, "shards"))) {
    const shardDir = path.join(dataDir, "shards", shard);
    for (const name of readdirSync(shardDir)) files[`${shard}/${name}`] = statSync(path.join(shardDir, name)).size;
  }
  return files;
}

describe("one process per data directory", () => {
  it("a second server on a live directory exits non-zero at once, naming the directory and the holder's pid", async () => {
    const dataDir = tempDataDir("lock-two");
    const first = await serve(dataDir);
    await acknowledgedWrites(first.url, "alice");

    const second = spawnCaptured(process.execPath, [MAIN_JS], { env: serverEnv(dataDir) });
    running.push(second);
    // It exits by itself while the first still holds the directory: it neither waits for the lock nor
    // retries (that would hang here). How fast it goes is not measured: on a machine whose cores
    // other work keeps busy, even starting Node can take seconds (decisions.md I18: the lock is taken
    // before the service's modules load).
    const exit = await second.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(second.output()).toContain(`data directory ${dataDir} is in use by process ${first.child.pid}`);

    // The first server is unharmed and still acknowledges.
    await acknowledgedWrites(first.url, "bob");
    expect(await publishedVersion(first.url, "bob-market", "bob")).toBe(2);
  });

  it("a server killed with -9 does not block the next start, and what it acknowledged is there", async () => {
    const dataDir = tempDataDir("lock-kill9");
    const first = await serve(dataDir);
    const { marketId } = await acknowledgedWrites(first.url, "carol");
    first.child.kill("SIGKILL");
    await first.exited;
    // The dead holder's pid file is still there; its kernel-held lock is not.
    expect(readLockHolder(dataDir)?.pid).toBe(first.child.pid);

    const second = await serve(dataDir);
    expect(readLockHolder(dataDir)?.pid).toBe(second.child.pid);
    expect(await publishedVersion(second.url, marketId, "carol")).toBe(2);
  });

  it("a server killed with -9 that its parent has not reaped yet (a zombie) does not block an immediate restart", async () => {
    const dataDir = tempDataDir("lock-zombie");
    // A parent that never reaps, as a slow PID 1 in a container: the shell starts the service in the
    // background, then becomes `sleep`, which never waits for a child.
    const parent = spawnCaptured("sh", ["-c", `"$0" "$1" & exec sleep 600`, process.execPath, MAIN_JS], { env: serverEnv(dataDir) });
    running.push(parent);
    const url = await listeningUrl(parent);
    const pid = readLockHolder(dataDir)?.pid as number;
    expect(processStat(pid)?.ppid).toBe(parent.child.pid);
    const { marketId } = await acknowledgedWrites(url, "zoe");
    process.kill(pid, "SIGKILL");
    await eventually(() => processStat(pid)?.state === "Z", 60_000, "the killed service to be a zombie");

    const second = await serve(dataDir);
    // The restart did not wait for the reaping: the dead holder is still there, unreaped.
    expect(processStat(pid)?.state).toBe("Z");
    expect(readLockHolder(dataDir)?.pid).toBe(second.child.pid);
    expect(await publishedVersion(second.url, marketId, "zoe")).toBe(2);
  });

  // A process whose main thread ended while another thread runs also reads Z in /proc/<pid>/stat,
  // and it is alive. Python's ctypes can end its main thread that way (Node cannot).
  const python = spawnSync("python3", ["-c", "import ctypes"]).status === 0;
  it.skipIf(!python)("a pid file naming a process whose main thread ended but whose other thread runs still blocks", async () => {
    const dataDir = tempDataDir("lock-leader");
    const script = "import ctypes, threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\nprint('ready', flush=True)\nctypes.CDLL(None).pthread_exit(None)";
    const holder = spawnCaptured("python3", ["-c", script], { env: process.env });
    running.push(holder);
    const pid = holder.child.pid as number;
    await eventually(() => processStat(pid)?.state === "Z", 60_000, "python's main thread to end");
    const first = await lockDataDir(dataDir, "serve", Date.now());
    const record = JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE_NAME), "utf8")) as Record<string, unknown>;
    first.release();
    writeFileSync(path.join(dataDir, LOCK_FILE_NAME), JSON.stringify({ ...record, pid, startTicks: processStat(pid)?.startTicks }));
    await expect(lockDataDir(dataDir, "serve", Date.now())).rejects.toThrow(`is in use by process ${pid}`);
  });

  it("a pid file naming a live process with another start time (a reused pid), another boot or another directory does not block", async () => {
    const dataDir = tempDataDir("lock-stale");
    const first = await serve(dataDir);
    first.child.kill("SIGKILL");
    await first.exited;
    const lockFile = path.join(dataDir, LOCK_FILE_NAME);
    const holder = readLockHolder(dataDir);
    expect(holder).toBeDefined();
    // A live process (this test runner) under the dead holder's record: a reused pid.
    const self = processStat(process.pid);
    expect(self).toBeDefined();
    const variants = [
      { ...holder, pid: process.pid, startTicks: (self?.startTicks ?? 0) + 1 },
      { ...holder, pid: process.pid, startTicks: self?.startTicks, bootId: "00000000-0000-0000-0000-000000000000" },
      { ...holder, pid: process.pid, startTicks: self?.startTicks, directory: "1:1" },
    ];
    for (const variant of variants) {
      writeFileSync(lockFile, JSON.stringify(variant));
      const lock = await lockDataDir(dataDir, "verify", Date.now());
      lock.release();
    }
  });

  it("a pid file naming a live process that really is its holder's (same boot, pid, start time, directory) blocks, even without the socket", async () => {
    const dataDir = tempDataDir("lock-pidfile");
    // A live process of another network namespace would hold no socket visible here; a sleeping
    // child with a faithful pid file stands in for it.
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const stat = processStat(sleeper.pid as number);
      const first = await lockDataDir(dataDir, "serve", Date.now());
      const record = JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE_NAME), "utf8")) as Record<string, unknown>;
      first.release();
      writeFileSync(path.join(dataDir, LOCK_FILE_NAME), JSON.stringify({ ...record, pid: sleeper.pid, startTicks: stat?.startTicks }));
      await expect(lockDataDir(dataDir, "serve", Date.now())).rejects.toThrow(`is in use by process ${sleeper.pid}`);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("a copy of a live directory (pid file included) can be verified while the original serves", async () => {
    const dataDir = tempDataDir("lock-copy");
    const server = await serve(dataDir);
    await acknowledgedWrites(server.url, "dave");
    const copy = `${dataDir}-copy`;
    cpSync(dataDir, copy, { recursive: true });
    const verify = spawnCaptured(process.execPath, [CLI_JS, "verify", "--data", copy, "--threads", "1"], { env: process.env });
    const exit = await verify.exited;
    expect(verify.output()).toContain("verified");
    expect(exit.code).toBe(0);
  });

  for (const command of ["verify", "replay"]) {
    it(`${command} on a live directory refuses with a clear message and leaves the log as it was`, async () => {
      const dataDir = tempDataDir(`lock-${command}`);
      // No signed head on the 1-second timer while the files are compared: a head entry is a write of
      // the live server's own, not of the refused command (heads still come every 10,000 entries and
      // at the clean stop).
      const server = await serve(dataDir, { AUDIT_HEAD_EVERY_SECONDS: "3600" });
      await acknowledgedWrites(server.url, "erin");
      const before = shardFiles(dataDir);
      const audit = spawnCaptured(process.execPath, [CLI_JS, command, "--data", dataDir], { env: process.env });
      const exit = await audit.exited;
      expect(exit.code).toBe(1);
      expect(audit.output()).toContain(`${command}: data directory ${dataDir} is in use by process ${server.child.pid} (market-service serve`);
      expect(audit.output()).toContain("stop the service, or copy the directory");
      expect(shardFiles(dataDir)).toEqual(before);
      // The server still serves.
      expect(await publishedVersion(server.url, "erin-market", "erin")).toBe(2);

      // Stopped, the same command works, and the service starts again afterwards.
      server.child.kill("SIGTERM");
      expect((await server.exited).code).toBe(0);
      const again = spawnCaptured(process.execPath, [CLI_JS, command, "--data", dataDir, "--threads", "1"], { env: process.env });
      expect((await again.exited).code).toBe(0);
      const restarted = await serve(dataDir);
      expect(await publishedVersion(restarted.url, "erin-market", "erin")).toBe(2);
    });
  }
});
