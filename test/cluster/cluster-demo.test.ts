/**
 * `npm run cluster:demo` for real (scripts/cluster-demo.ts, docs/cluster.md "Runbook"): the demo
 * starts 3 real nats-server nodes and 3 real service nodes, says it is ready, and prints where to
 * send requests and an example. The test runs that example as printed, in bash (real CLI, real
 * curl), makes a request through each printed URL, then sends SIGINT to the demo's process group,
 * as a terminal's Ctrl-C does, and checks that the demo exits 0 and that every process it started
 * is gone.
 *
 * The demo runs on free ports (`--free-ports`) in a temporary directory (`--dir`); the example's
 * `npx market-service` runs the built CLI (dist/, which `npm test` builds), as `npx` does in a
 * checkout.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_JS, REPO_ROOT } from "../process/support.js";

const TSX = import.meta.resolve("tsx");
const READY_TIMEOUT_MS = 120_000;

let dir: string;
let demo: ChildProcess;
let output = "";
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
/** The demo's processes once it said it was ready (pid → start time). */
let started = new Map<number, string>();

/** A process's state letter and parent, or undefined when there is no such process. */
function procStat(pid: number): { state: string; ppid: number; startTicks: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] as string, ppid: Number(fields[1]), startTicks: fields[19] as string };
}

/** Every live descendant of `root` (children, their children…), with its start time to tell it from a later process of the same pid. */
function descendants(root: number): Map<number, string> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat === undefined || stat.state === "Z") continue;
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  const found = new Map<number, string>();
  const walk = (pid: number): void => {
    for (const child of children.get(pid) ?? []) {
      const stat = procStat(child);
      if (stat === undefined) continue;
      found.set(child, stat.startTicks);
      walk(child);
    }
  };
  walk(root);
  return found;
}

/** Whether process `pid` that started at `startTicks` still runs (a zombie has exited). */
function stillRunning(pid: number, startTicks: string): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.startTicks === startTicks && stat.state !== "Z";
}

function waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`the demo did not print ${pattern} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = (): void => {
      if (pattern.test(output)) finish(undefined);
    };
    const onExit = (): void => finish(new Error(`the demo exited before printing ${pattern}:\n${output}`));
    function finish(error: Error | undefined): void {
      clearTimeout(timer);
      demo.stdout?.off("data", check);
      demo.off("exit", onExit);
      if (error === undefined) resolve();
      else reject(error);
    }
    demo.stdout?.on("data", check);
    demo.once("exit", onExit);
    check();
  });
}

function runBash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // `npx market-service` is this checkout's CLI; everything else runs as printed.
  const prelude = ["set -eu", `npx() { if [ "$1" = market-service ]; then shift; node "${CLI_JS}" "$@"; else command npx "$@"; fi; }`].join("\n");
  return new Promise((resolve) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-c", `${prelude}\n${script}`], {
      cwd: REPO_ROOT,
      env: { PATH: `${path.dirname(process.execPath)}:${process.env["PATH"] ?? "/usr/bin:/bin"}`, HOME: dir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "cluster-demo-"));
  // A process group of its own, like a command started from a shell: the test's SIGINT goes to
  // the group, as a terminal's Ctrl-C does.
  demo = spawn(process.execPath, ["--import", TSX, path.join(REPO_ROOT, "scripts/cluster-demo.ts"), "--free-ports", "--dir", path.join(dir, "demo")], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  demo.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  demo.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  exited = new Promise((resolve) => demo.once("exit", (code, signal) => resolve({ code, signal })));
  await waitForOutput(/^Stop everything: Ctrl-C\.$/m, READY_TIMEOUT_MS);
  started = descendants(demo.pid as number);
}, READY_TIMEOUT_MS + 10_000);

afterAll(async () => {
  // Only if a test failed: end whatever the demo started that still runs, and the demo.
  const pid = demo.pid;
  if (pid !== undefined && demo.exitCode === null && demo.signalCode === null) {
    for (const [child, ticks] of descendants(pid)) started.set(child, ticks);
    process.kill(-pid, "SIGKILL");
  }
  for (const [child, ticks] of started) if (stillRunning(child, ticks)) process.kill(child, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run cluster:demo", () => {
  it("says it is ready and prints three service URLs, the NATS URLs, the operator credentials' file and the one signing key", async () => {
    expect(output).toMatch(/^cluster-demo: ready: 3 NATS \+ 3 service nodes, 6 partitions, each served by one node$/m);
    const urls = [...output.matchAll(/^ {2}node ([abc]) {2}(http:\/\/127\.0\.0\.1:\d+)/gm)].map((match) => match[2]);
    expect(urls).toHaveLength(3);
    expect(output).toMatch(/^ {2}NATS {4}nats:\/\/127\.0\.0\.1:\d+,nats:\/\/127\.0\.0\.1:\d+,nats:\/\/127\.0\.0\.1:\d+ /m);
    expect(output).toContain(`secret in ${path.join(dir, "demo", "operator.secret")}`);
    // One audit signing key for every node, outside their data directories (docs/cluster.md, "Configuration").
    const keyFile = path.join(dir, "demo", "audit-signing-key.pem");
    expect(output).toContain(`(AUDIT_SIGNING_KEY_FILE, mode 0600): ${keyFile}`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const published = await Promise.all(urls.map(async (url) => (await fetch(`${url}/v1/audit/keys`)).text()));
    expect(new Set(published).size, published.join("\n")).toBe(1);
    // What the durability promise relies on (docs/cluster.md), in every NATS node's configuration.
    for (const name of ["nats-1", "nats-2", "nats-3"]) {
      expect(readFileSync(path.join(dir, "demo", "nats", name, "nats.conf"), "utf8")).toContain("sync_interval: always");
    }
  });

  it("answers through each printed URL, and the printed example works as printed: provision, token, create, claim through another node", async () => {
    const urls = [...output.matchAll(/^ {2}node ([abc]) {2}(http:\/\/127\.0\.0\.1:\d+)/gm)].map((match) => match[2] as string);
    for (const url of urls) {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status, url).toBe(200);
    }
    const script = /^# --- example ---\n([\s\S]*?)^# --- end of example ---$/m.exec(output)?.[1];
    expect(script).toBeDefined();
    const run = await runBash(script as string);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const replies = run.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, any>);
    expect(replies.map((reply) => reply.market?.state ?? reply.state)).toEqual(["draft", "open", "closed", "closed"]);
    const claim = replies[2] as { commitments: Array<{ participantPrincipalId: string; state: string }> };
    expect(claim.commitments.map((c) => [c.participantPrincipalId, c.state])).toEqual([["bob", "committed"]]);
    expect(replies[3]).toMatchObject({ id: "table-7", version: 3, mechanismState: { allocated: 1 } });
    // The metrics line of the example: node a's view of which partitions it serves.
    expect(run.stdout).toMatch(/^market_cluster_partition_served\{partition="0"\} [01]$/m);
    expect(run.stderr).toContain('provisioned principal "bob"');
  }, 120_000);

  it("stops everything it started on Ctrl-C (SIGINT to its process group) and exits 0", async () => {
    const pid = demo.pid as number;
    const commands = [...started.keys()].map((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, "latin1").replace(/\0/g, " ");
      } catch {
        return ""; // exited since
      }
    });
    expect(commands.filter((command) => command.includes("nats-server"))).toHaveLength(3);
    expect(commands.filter((command) => command.includes("dist/gateway/main.js"))).toHaveLength(3);
    process.kill(-pid, "SIGINT");
    const { code } = await exited;
    expect(code, output).toBe(0);
    expect(output).toContain("cluster-demo: stopped");
    const deadline = performance.now() + 60_000;
    let left = [...started].filter(([child, ticks]) => stillRunning(child, ticks));
    // A child that exited with the demo may take a moment to be reaped by init.
    while (left.length > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = left.filter(([child, ticks]) => stillRunning(child, ticks));
    }
    expect(left.map(([child]) => child)).toEqual([]);
  });
});
