/** Starting and stopping the processes a storm needs: the real service (as a user runs it) and the floor. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { portFree } from "../../scripts/free-port.js";
import { SERVICE_NODE_FLAGS } from "../../scripts/service-node-flags.js";

export const REPO = path.resolve(import.meta.dirname, "..", "..");

export interface Started {
  process: ChildProcess;
  stop: () => Promise<number | null>;
  stderr: () => string;
}

/**
 * Refuses a port something already listens on: the child would exit ("address in use") while
 * waitForHealth might get its 200 from that other program, and the bench would measure it.
 */
async function requirePortFree(port: number): Promise<void> {
  if (!(await portFree(port))) throw new Error(`port ${port} on 127.0.0.1 is in use: stop what holds it, or choose another port (the storms: --port)`);
}

/**
 * Waits for `url`'s /healthz. A process that ends first is reported with the end of what it wrote
 * to stderr: a service says there why it stopped (a configuration error, or that the processes that
 * launched it went away: gateway/lifecycle.ts stops it when an ancestor in its process group ends,
 * so a bench started in the background of a shell that then exits loses its services; start it
 * with `setsid`).
 */
async function waitForHealth(url: string, started: Started, timeoutMs: number): Promise<void> {
  const child = started.process;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before it was healthy; its stderr ended with: ${started.stderr().slice(-2_000).trim() || "(nothing)"}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not healthy after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function track(child: ChildProcess): Started {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  return {
    process: child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      return code;
    },
  };
}

/**
 * The service as `npm start` runs it (its node flags, SERVICE_NODE_FLAGS; built output, durable, default shard count unless
 * given). `extraNodeArgs`: node flags of the caller (the soak's --inspect); STORM_NODE_ARGS in the
 * environment adds more to every bench's service, e.g. "--cpu-prof --cpu-prof-dir=DIR" to profile
 * it (bench/README.md, "Profiling"). `distDir` (or else STORM_DIST) names another build directory to
 * run instead of `dist/` (an A/B against an older build). `stdoutFile`: where its log goes (else nowhere).
 */
export async function startService(env: Record<string, string>, port: number, extraNodeArgs: readonly string[] = [], distDir?: string, stdoutFile?: string): Promise<Started & { url: string }> {
  const nodeArgs = [...SERVICE_NODE_FLAGS, ...extraNodeArgs, ...(process.env["STORM_NODE_ARGS"] ?? "").split(" ").filter((a) => a !== "")];
  const dist = path.resolve(REPO, distDir ?? process.env["STORM_DIST"] ?? "dist");
  await requirePortFree(port);
  const child = spawn(process.execPath, [...nodeArgs, path.join(dist, "gateway", "main.js")], {
    cwd: REPO,
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "warn", ...env },
    // The service's log (stdout) is dropped unless a bench reads it (the access log's latencies).
    stdio: ["ignore", stdoutFile === undefined ? "ignore" : openSync(stdoutFile, "w"), "pipe"],
  });
  const started = track(child);
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, started, 60_000);
  return { ...started, url };
}

export function startFloor(port: number): Promise<Started & { url: string }> {
  return startBenchServer("floor-server.ts", [String(port)], port);
}

/** A bench server of bench/storm/ (run by tsx) answering `/healthz` on `port`: the floor, the ceiling. */
export async function startBenchServer(script: string, args: readonly string[], port: number): Promise<Started & { url: string }> {
  await requirePortFree(port);
  const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO, "bench", "storm", script), ...args], {
    cwd: REPO,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const started = track(child);
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, started, 30_000);
  return { ...started, url };
}

/** User and system CPU seconds from a /proc `stat` file (a process's or one thread's; Linux). */
export function cpuSecondsOfStat(statPath: string): { user: number; system: number } {
  const ticksPerSecond = 100; // USER_HZ on Linux
  const stat = readFileSync(statPath, "utf8");
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) / ticksPerSecond, system: Number(fields[12]) / ticksPerSecond };
}

/** User and system CPU seconds of each thread of process `pid` so far, by thread id (Linux). */
export function cpuSecondsByThread(pid: number): Map<number, { user: number; system: number }> {
  const byThread = new Map<number, { user: number; system: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      byThread.set(Number(tid), cpuSecondsOfStat(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byThread;
}

/**
 * Where a process's CPU went between two `cpuSecondsByThread` readings, in seconds: its main
 * thread (the service's gateway thread: the thread whose id is the pid), its busiest other thread
 * (on a hot market, the market's shard), the rest, and how much of the whole was system time.
 */
export interface ThreadCpuSplit {
  mainSeconds: number;
  busiestOtherSeconds: number;
  restSeconds: number;
  systemSeconds: number;
}

export function threadCpuSplit(pid: number, before: ReadonlyMap<number, { user: number; system: number }>, after: ReadonlyMap<number, { user: number; system: number }>): ThreadCpuSplit {
  const split: ThreadCpuSplit = { mainSeconds: 0, busiestOtherSeconds: 0, restSeconds: 0, systemSeconds: 0 };
  for (const [tid, end] of after) {
    const start = before.get(tid) ?? { user: 0, system: 0 };
    const seconds = end.user + end.system - start.user - start.system;
    split.systemSeconds += end.system - start.system;
    if (tid === pid) {
      split.mainSeconds = seconds;
    } else if (seconds > split.busiestOtherSeconds) {
      split.restSeconds += split.busiestOtherSeconds;
      split.busiestOtherSeconds = seconds;
    } else {
      split.restSeconds += seconds;
    }
  }
  return split;
}

/** User + system CPU seconds the processes `pids` have used so far (one that exited counts 0). */
export function cpuSecondsOf(pids: readonly number[]): number {
  return pids.reduce((total, pid) => {
    try {
      const { user, system } = cpuSecondsOfStat(`/proc/${pid}/stat`);
      return total + user + system;
    } catch {
      return total; // exited
    }
  }, 0);
}

export function requireWrk(): string {
  const found = spawnSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" });
  const wrk = found.stdout.trim();
  if (found.status !== 0 || wrk === "") {
    throw new Error("wrk is not installed: install the Debian package with `apt-get install wrk` (the storm driver; see bench/README.md)");
  }
  return wrk;
}

export interface WrkResult {
  requests: number;
  durationUs: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
  non2xx: number;
  latencyUs: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  statuses: Record<string, number>;
  requestsPerSecond: number;
}

/** What no storm may have: responses ≥ 500 and connection-level errors (connect, read, write, timeout). */
export function transportFailures(result: WrkResult): { fiveHundreds: number; connectionErrors: number } {
  const fiveHundreds = Object.entries(result.statuses).filter(([status]) => Number(status) >= 500).reduce((sum, [, n]) => sum + n, 0);
  return { fiveHundreds, connectionErrors: result.connectErrors + result.readErrors + result.writeErrors + result.timeouts };
}

let runCounter = 0;

/** Run wrk with the claims script (or none for the floor) and parse its STORM_RESULT line. */
export async function runWrk(options: {
  url: string;
  path: string;
  threads: number;
  connections: number;
  durationSeconds: number;
  env: Record<string, string>;
}): Promise<WrkResult> {
  const wrk = requireWrk();
  const child = spawn(
    wrk,
    [
      `-t${options.threads}`,
      `-c${options.connections}`,
      `-d${options.durationSeconds}s`,
      "--timeout",
      "10s",
      "-s",
      path.join(REPO, "bench", "storm", "claims.lua"),
      `${options.url}${options.path}`,
    ],
    { env: { ...process.env, STORM_RUN: `r${++runCounter}-${Date.now()}`, ...options.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close", not "exit": a process may exit before its output is read, and then the result line was not seen yet.
  const [code] = (await once(child, "close")) as [number | null];
  const line = stdout.split("\n").find((l) => l.startsWith("STORM_RESULT "));
  if (code !== 0 || line === undefined) throw new Error(`wrk failed (${code}): ${stderr}\n${stdout}`);
  const parsed = JSON.parse(line.slice("STORM_RESULT ".length)) as Omit<WrkResult, "requestsPerSecond">;
  return { ...parsed, requestsPerSecond: parsed.requests / (parsed.durationUs / 1e6) };
}

/** Resolves once `file` exists (a preload in the service writes it whole, then renames it into place), or throws after `timeoutMs`. */
export async function untilWritten(file: string, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!existsSync(file)) {
    if (performance.now() > deadline) throw new Error(`${file} was not written within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
