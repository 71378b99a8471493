/**
 * The README's start command (`npm start`, after `npm ci`) stops cleanly whichever of its processes
 * gets the signal: drain, fsync, exit 0, nothing left behind; a second signal exits at once. Each case
 * spawns the real command in a process group of its own, as a terminal would, makes acknowledged
 * writes, stops it, and starts the service again on the same directory to check they were kept.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SERVICE_NODE_FLAGS } from "../../scripts/service-node-flags.js";
import { readLockHolder } from "../../storage/data-dir-lock.js";
import {
  acknowledgedWrites,
  eventually,
  groupGone,
  listeningUrl,
  publishedVersion,
  REPO_ROOT,
  serverEnv,
  spawnCaptured,
  startServer,
  tempDataDir,
  type Spawned,
} from "./support.js";

const groups: number[] = [];
const started: Spawned[] = [];
afterEach(async () => {
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const spawned of started.splice(0)) {
    if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill("SIGKILL");
    await spawned.exited;
  }
});

/** `npm start` (or a shell line) in a new process group, as a terminal runs it, serving on `dataDir`. */
async function launch(shellLine: string | undefined, dataDir: string, cwd = REPO_ROOT, startTimeoutMs = 60_000): Promise<{ launched: Spawned; url: string; servicePid: number }> {
  const launched =
    shellLine === undefined
      ? spawnCaptured("npm", ["start"], { env: serverEnv(dataDir), detached: true, cwd })
      : spawnCaptured("sh", ["-c", shellLine], { env: serverEnv(dataDir), detached: true, cwd });
  groups.push(launched.child.pid as number);
  const url = await listeningUrl(launched, startTimeoutMs);
  const servicePid = readLockHolder(dataDir)?.pid;
  if (servicePid === undefined) throw new Error("no lock holder recorded");
  return { launched, url, servicePid };
}

/** After the stop: nothing of the group is left, the service logged a clean stop, and a new start on the directory has the writes. */
async function expectCleanStop(launched: Spawned, dataDir: string, marketId: string, name: string): Promise<void> {
  const pgid = launched.child.pid as number;
  await eventually(() => groupGone(pgid), 60_000, "every process of the start command to exit");
  expect(launched.output()).toContain('"msg":"stopped"');
  expect(launched.output()).not.toContain("exiting now without draining");
  const again = await startServer(dataDir);
  started.push(again);
  expect(await publishedVersion(again.url, marketId, name)).toBe(2);
}

describe("the README's start command (npm start)", () => {
  it("SIGTERM to npm: the service drains and exits 0, npm exits 0", async () => {
    const dataDir = tempDataDir("life-npm-term");
    const { launched, url } = await launch(undefined, dataDir);
    const { marketId } = await acknowledgedWrites(url, "ann");
    launched.child.kill("SIGTERM");
    expect(await launched.exited).toMatchObject({ code: 0, signal: null });
    await expectCleanStop(launched, dataDir, marketId, "ann");
  });

  it("SIGINT to npm: the same", async () => {
    const dataDir = tempDataDir("life-npm-int");
    const { launched, url } = await launch(undefined, dataDir);
    const { marketId } = await acknowledgedWrites(url, "ben");
    launched.child.kill("SIGINT");
    expect(await launched.exited).toMatchObject({ code: 0, signal: null });
    await expectCleanStop(launched, dataDir, marketId, "ben");
  });

  it("Ctrl-C (SIGINT to the whole process group, which npm also forwards): one graceful stop, exit 0", async () => {
    const dataDir = tempDataDir("life-ctrl-c");
    const { launched, url } = await launch(undefined, dataDir);
    const { marketId } = await acknowledgedWrites(url, "cai");
    process.kill(-(launched.child.pid as number), "SIGINT");
    expect(await launched.exited).toMatchObject({ code: 0, signal: null });
    expect(launched.output()).not.toContain("exiting now without draining");
    await expectCleanStop(launched, dataDir, marketId, "cai");
  });

  it("SIGTERM to the service process itself: npm exits 0 with it", async () => {
    const dataDir = tempDataDir("life-node-term");
    const { launched, url, servicePid } = await launch(undefined, dataDir);
    const { marketId } = await acknowledgedWrites(url, "dan");
    process.kill(servicePid, "SIGTERM");
    expect(await launched.exited).toMatchObject({ code: 0, signal: null });
    await expectCleanStop(launched, dataDir, marketId, "dan");
  });

  it("kill -9 of npm: the service notices its launcher is gone and stops cleanly instead of living on as an orphan", async () => {
    const dataDir = tempDataDir("life-npm-kill9");
    const { launched, url } = await launch(undefined, dataDir);
    const { marketId } = await acknowledgedWrites(url, "eve");
    launched.child.kill("SIGKILL");
    await expectCleanStop(launched, dataDir, marketId, "eve");
    expect(launched.output()).toContain("the launching process");
  });

  it("SIGTERM to the shell that ran `npm ci && npm start`: npm and the service stop cleanly behind it", async () => {
    const dataDir = tempDataDir("life-shell-term");
    // `true` stands in for `npm ci` (a real install here would rewrite the node_modules the tests use).
    const { launched, url } = await launch("true && npm start", dataDir);
    const { marketId } = await acknowledgedWrites(url, "fay");
    launched.child.kill("SIGTERM");
    await expectCleanStop(launched, dataDir, marketId, "fay");
  });

  it("a second signal during a drain exits at once (SIGINT after SIGTERM; a repeat of the same signal within the window is covered in lifecycle-signals.test.ts)", async () => {
    const dataDir = tempDataDir("life-second");
    const { launched, url, servicePid } = await launch(undefined, dataDir);
    const { marketId } = await acknowledgedWrites(url, "gus");
    // A request whose body never finishes keeps the drain waiting.
    const { port } = new URL(url);
    const socket = new Socket();
    await new Promise<void>((resolve) => socket.connect(Number(port), "127.0.0.1", resolve));
    socket.write("POST /v1/markets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
    socket.on("error", () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(servicePid, "SIGTERM");
    await eventually(() => launched.output().includes("SIGTERM received, stopping"), 60_000, "the first stop");
    process.kill(servicePid, "SIGINT");
    const exit = await launched.exited;
    socket.destroy();
    expect(launched.output(), launched.output()).toContain("exiting now without draining");
    expect(launched.output()).not.toContain('"msg":"stopped"');
    expect(exit.code).toBe(130);
    // What was acknowledged is on disk all the same.
    const again = await startServer(dataDir);
    started.push(again);
    expect(await publishedVersion(again.url, marketId, "gus")).toBe(2);
  });
});

describe("npm start reads .env", () => {
  it("takes settings from .env in the package folder; a variable already in the environment wins; runs node with the service's flags", async () => {
    // The package as npm sees it (package.json), with the built service beside it.
    const folder = mkdtempSync(path.join(tmpdir(), "life-dotenv-"));
    cpSync(path.join(REPO_ROOT, "package.json"), path.join(folder, "package.json"));
    symlinkSync(path.join(REPO_ROOT, "dist"), path.join(folder, "dist"));
    const dataDir = tempDataDir("life-dotenv");
    // DATA_DIR only in the file; PORT in both (the file's is out of range and would refuse to start).
    writeFileSync(path.join(folder, ".env"), `DATA_DIR=${dataDir}\nPORT=99999\n`);
    const env = serverEnv(dataDir);
    delete env["DATA_DIR"];
    const launched = spawnCaptured("npm", ["start"], { env, detached: true, cwd: folder });
    groups.push(launched.child.pid as number);
    const url = await listeningUrl(launched);
    expect(new URL(url).port).not.toBe("99999");
    const pid = readLockHolder(dataDir)?.pid;
    expect(pid).toBeDefined();
    // The node flags the scripts and benches start the service with are the ones npm start passes.
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    for (const flag of SERVICE_NODE_FLAGS) expect(commandLine).toContain(flag);
    const { marketId } = await acknowledgedWrites(url, "dot");
    launched.child.kill("SIGTERM");
    expect(await launched.exited).toMatchObject({ code: 0, signal: null });
    await expectCleanStop(launched, dataDir, marketId, "dot");
  });
});

describe("the README's exact command, `npm ci && npm start`, in a fresh copy of the repository", () => {
  it("installs, builds, serves, and Ctrl-C stops everything cleanly", { timeout: 300_000 }, async () => {
    // The repository's tracked files as they are now, without node_modules or dist: what a clone has.
    const copy = path.join(mkdtempSync(path.join(tmpdir(), "readme-start-")), "market-service");
    const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: REPO_ROOT, encoding: "utf8" }).split("\0").filter((file) => file !== "");
    for (const file of tracked) {
      mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      cpSync(path.join(REPO_ROOT, file), path.join(copy, file));
    }
    const dataDir = tempDataDir("life-readme");
    const { launched, url } = await launch("npm ci && npm start", dataDir, copy, 240_000);
    const { marketId } = await acknowledgedWrites(url, "hal");
    process.kill(-(launched.child.pid as number), "SIGINT");
    await expectCleanStop(launched, dataDir, marketId, "hal");
  });
});
