/**
 * Where a claim's CPU goes (issue 7: "profile and fix what holds each number back").
 *   npm run bench:profile -- [--participants 5000] [--capacity 1000] [--seconds 10] [--connections 64] [--shards N]
 *
 * Runs the P1 hot-market storm (same service start, provisioning, driver and checks of transport
 * errors as bench:storm) with the service under `node --cpu-prof`, and reads every thread's CPU time
 * from /proc before and after the load. Writes bench/results/<date>-profile-p1.{md,json} and one
 * flame graph per JavaScript thread (gateway, each shard worker), cut to the driver's window:
 * - per-thread CPU per request (user and system time, from /proc: the profiler's own cost is in it);
 * - per JavaScript thread, the functions with the most self time per request;
 * - flame graphs (SVG, hover a box for its time per request).
 * Profiling slows the service: read the shares, not the throughput.
 */
import { readFileSync, readdirSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, release } from "node:os";
import * as path from "node:path";
import { flameGraphSvg, selfTimeByFunction, windowedTree, type CpuProfile, type WindowedTree } from "./flame-graph.js";
import { cpuSecondsOfStat, REPO, requireWrk, runWrk, transportFailures, type WrkResult } from "./processes.js";
import { createMarket, pathsFile, setUpService, warmUp } from "./setup.js";
import { numberArg } from "../args.js";
import { freshResultStem } from "../result-stem.js";

const PARTICIPANTS = numberArg("participants", 5_000);
const CAPACITY = numberArg("capacity", 1_000);
const SECONDS = numberArg("seconds", 10);
const CONNECTIONS = numberArg("connections", 64);
const SHARDS = numberArg("shards", 0); // 0: the service's default
const PORT = numberArg("port", 18_191);
/** Seconds of claims before the profiled window (setup.ts, warmUp): the window shows the warm service. */
const WARM_UP_SECONDS = numberArg("warm-up", 5);
const TOP = 25;
const WORK = path.join(REPO, ".tmp", "storm-profile");
const PROFILE_DIR = path.join(WORK, "cpu-profiles");

/** CPU seconds (user, system) per thread of a process, from /proc (Linux). */
function threadTimes(pid: number): Map<number, { user: number; system: number }> {
  const times = new Map<number, { user: number; system: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      times.set(Number(tid), cpuSecondsOfStat(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended between readdir and read
    }
  }
  return times;
}

interface ThreadCpu {
  tid: number;
  label: string;
  userUsPerRequest: number;
  systemUsPerRequest: number;
}

function cpuPerRequest(pid: number, before: Map<number, { user: number; system: number }>, after: Map<number, { user: number; system: number }>, requests: number): ThreadCpu[] {
  const rows: ThreadCpu[] = [];
  for (const [tid, end] of after) {
    const start = before.get(tid) ?? { user: 0, system: 0 };
    const user = ((end.user - start.user) * 1e6) / requests;
    const system = ((end.system - start.system) * 1e6) / requests;
    if (user + system < 0.5) continue;
    rows.push({ tid, label: tid === pid ? "gateway (main thread)" : `thread ${tid}`, userUsPerRequest: user, systemUsPerRequest: system });
  }
  return rows.sort((a, b) => b.userUsPerRequest + b.systemUsPerRequest - (a.userUsPerRequest + a.systemUsPerRequest));
}

/** `CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile`: thread 0 is the main thread. */
function profilesOf(pid: number): Array<{ threadId: number; file: string }> {
  return readdirSync(PROFILE_DIR)
    .map((name) => ({ name, match: /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(name) }))
    .filter((entry) => entry.match !== null && Number(entry.match[1]) === pid)
    .map((entry) => ({ threadId: Number((entry.match as RegExpExecArray)[2]), file: path.join(PROFILE_DIR, entry.name) }))
    .sort((a, b) => a.threadId - b.threadId);
}

const us = (n: number): string => n.toFixed(1);

async function main(): Promise<void> {
  requireWrk();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(PROFILE_DIR, { recursive: true });
  const setup = await setUpService({
    workDir: WORK,
    label: "p1",
    participants: PARTICIPANTS,
    port: PORT,
    env: SHARDS > 0 ? { SHARDS: String(SHARDS) } : {},
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, "--cpu-prof-interval=500"],
  });
  const pid = setup.service.process.pid;
  if (pid === undefined) throw new Error("the service has no pid");
  let peak: WrkResult;
  let window: { fromUs: number; toUs: number };
  let threads: ThreadCpu[];
  try {
    const marketId = `hot-${CAPACITY}`;
    await warmUp(setup, WORK, "profile", WARM_UP_SECONDS, CONNECTIONS);
    await createMarket(setup, marketId, CAPACITY);
    const before = threadTimes(pid);
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    peak = await runWrk({
      url: setup.url,
      path: "/",
      threads: 1,
      connections: CONNECTIONS,
      durationSeconds: SECONDS,
      env: { STORM_TOKENS: setup.tokensFile, STORM_PATHS: pathsFile(WORK, marketId, [`/v1/markets/${marketId}/direct-claims`]) },
    });
    const toUs = Number(process.hrtime.bigint() / 1000n);
    window = { fromUs, toUs };
    threads = cpuPerRequest(pid, before, threadTimes(pid), peak.requests);
  } finally {
    const code = await setup.stop(); // SIGTERM: a clean stop writes every thread's profile
    if (code !== 0) process.stderr.write(`service exited with ${code}\n`);
  }
  const { fiveHundreds, connectionErrors } = transportFailures(peak);
  if (connectionErrors > 0 || fiveHundreds > 0) throw new Error(`the storm failed its transport checks: ${connectionErrors} connection errors, ${fiveHundreds} responses ≥ 500`);

  const profiles = profilesOf(pid);
  if (profiles.length === 0) throw new Error(`no CPU profile of process ${pid} in ${PROFILE_DIR}`);
  const stem = freshResultStem("profile-p1");
  const resultsDir = path.join(REPO, "bench", "results");
  mkdirSync(resultsDir, { recursive: true });
  const sections: string[] = [];
  const json: Array<{ thread: string; busyUsPerRequest: number; idleShare: number; top: Array<{ name: string; location: string; kind: string; selfUsPerRequest: number }> }> = [];
  for (const { threadId, file } of profiles) {
    const thread = threadId === 0 ? "gateway" : `worker-${threadId}`;
    const title = threadId === 0 ? "gateway thread (uWS, auth, validation, idempotency, thread hop)" : `worker thread ${threadId} (a shard: engine, log, fdatasync)`;
    const tree: WindowedTree = windowedTree(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, window.fromUs, window.toUs);
    if (tree.root.totalUs < 0.01 * tree.windowUs) {
      sections.push(`### ${title}`, "", "Idle for the whole window (no market of this storm lives on it).", "");
      continue;
    }
    const svgName = `${stem}-${thread}.svg`;
    writeFileSync(path.join(resultsDir, svgName), flameGraphSvg(tree, { title: `P1 storm, ${title}`, requests: peak.requests }));
    const top = selfTimeByFunction(tree.root).slice(0, TOP);
    const busy = tree.root.totalUs / peak.requests;
    json.push({
      thread,
      busyUsPerRequest: busy,
      idleShare: tree.idleUs / tree.windowUs,
      top: top.map((row) => ({ name: row.name, location: row.location, kind: row.kind, selfUsPerRequest: row.selfUs / peak.requests })),
    });
    sections.push(
      `### ${title}`,
      "",
      `Busy ${us(busy)} µs per request (sampled), idle ${((100 * tree.idleUs) / tree.windowUs).toFixed(0)}% of the window. Flame graph: [${svgName}](${svgName}).`,
      "",
      "| self µs/request | share of busy | function | where | kind |",
      "|---:|---:|---|---|---|",
      ...top.map((row) => `| ${us(row.selfUs / peak.requests)} | ${((100 * row.selfUs) / tree.root.totalUs).toFixed(1)}% | \`${row.name}\` | ${row.location} | ${row.kind} |`),
      "",
    );
  }
  const machine = { cores: availableParallelism(), node: process.version, kernel: release() };
  const settings = { participants: PARTICIPANTS, capacity: CAPACITY, seconds: SECONDS, connections: CONNECTIONS, shards: SHARDS === 0 ? "default" : SHARDS };
  writeFileSync(path.join(resultsDir, `${stem}.json`), `${JSON.stringify({ date: new Date().toISOString(), machine, settings, peak, threads, profiles: json }, null, 2)}\n`);
  const md = [
    `# P1 storm profile (${new Date().toISOString().slice(0, 10)})`,
    "",
    `\`npm run bench:profile -- --participants ${PARTICIPANTS} --capacity ${CAPACITY} --seconds ${SECONDS} --connections ${CONNECTIONS}${SHARDS > 0 ? ` --shards ${SHARDS}` : ""}\` on ${machine.cores} cores, Node ${machine.node}, kernel ${machine.kernel}.`,
    `Under the profiler (\`--cpu-prof --cpu-prof-interval=500\`): ${Math.round(peak.requestsPerSecond).toLocaleString("en-US")} req/s, p50 ${(peak.latencyUs.p50 / 1000).toFixed(2)} ms, p99 ${(peak.latencyUs.p99 / 1000).toFixed(2)} ms, statuses ${JSON.stringify(peak.statuses)}.`,
    "Profiling costs CPU: compare shares, not throughput, with bench:storm.",
    "",
    "## CPU per request, by thread (/proc, the whole window)",
    "",
    "The main thread is the gateway. The kernel names no other thread: the busiest unnamed one is the hot market's shard;",
    "V8's platform workers (concurrent compilation and GC) spend mostly user time; the profiler adds one sampling thread per",
    "JavaScript thread (mostly system time: the signals it sends), absent in bench:storm.",
    "",
    "| thread | user µs/request | system µs/request | total |",
    "|---|---:|---:|---:|",
    ...threads.map((t) => `| ${t.label} | ${us(t.userUsPerRequest)} | ${us(t.systemUsPerRequest)} | ${us(t.userUsPerRequest + t.systemUsPerRequest)} |`),
    `| **all threads** | ${us(threads.reduce((s, t) => s + t.userUsPerRequest, 0))} | ${us(threads.reduce((s, t) => s + t.systemUsPerRequest, 0))} | **${us(threads.reduce((s, t) => s + t.userUsPerRequest + t.systemUsPerRequest, 0))}** |`,
    "",
    "## Self time by function, per JavaScript thread",
    "",
    "Sampled time, cut to the driver's window. A sample lands wherever the thread is, also when it is",
    "runnable but not running (2 vCPUs, more busy threads) and when it blocks in a syscall: `fdatasync`",
    "is waiting, and a function that wakes another thread (uWS's `send` inside `write`, `postMessage`)",
    "absorbs the time the scheduler gives that thread. So a thread's sampled busy time can exceed its",
    "/proc CPU time above; the /proc table is the CPU bound, these tables say where the time sits.",
    "",
    ...sections,
  ].join("\n");
  writeFileSync(path.join(resultsDir, `${stem}.md`), md);
  process.stderr.write(`profile: ${path.relative(REPO, path.join(resultsDir, `${stem}.md`))} (+ .json, flame graphs)\n`);
  rmSync(WORK, { recursive: true, force: true });
}

await main();
