/**
 * What stalls the claims of a half-loaded service (issue 36: p99 at half the peak): a timeline, not
 * guesses. Runs the guard's storm (one hot market, 2,000 participants, 64 connections) at saturation
 * for the peak, then at half of it on a fresh market while recording:
 * - every claim's latency as the service measured it (its access log, LOG_LEVEL=info);
 * - the gateway thread's garbage collections and event-loop delay (bench/storm/timeline.mjs);
 * - the shards' group commits over the run (/metrics, as bench:storm reports them).
 * It prints the slowest claims with what overlapped each (a collection, a delayed loop turn), the
 * share of the claims over a threshold that such a stall explains, and the run's worst windows.
 *   node --import tsx bench/half-load-timeline.ts [--dist <dir>] [--capacity 1000] [--seconds 10] [--slow-ms 5] [--rate N] [--service-env NAME=value,…]
 *
 * The access log costs the gateway thread a write per claim: the half-rate run has the room, and
 * the wrk figures printed beside the log's say what the log itself changed.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { numberArg, settingsArg, stringArg } from "./args.js";
import { commitLatencyBetween, readCommitBuckets } from "./storm/commit-latency.js";
import { REPO, requireWrk, runWrk, untilWritten, type WrkResult } from "./storm/processes.js";
import { createMarket, pathsFile, setUpService, warmUp, type Setup } from "./storm/setup.js";
import { percentile } from "./percentile.js";

const DIST = path.resolve(stringArg("dist", path.join(REPO, "dist")));
const CAPACITY = numberArg("capacity", 1000);
const SECONDS = numberArg("seconds", 10);
const SLOW_MS = numberArg("slow-ms", 5);
const GIVEN_RATE = numberArg("rate", 0);
const WORK = path.join(REPO, ".tmp", "half-load-timeline");
const TIMELINE = path.join(WORK, "gateway-timeline.json");
const LOG = path.join(WORK, "service.log");
/** Settings of the service, `NAME=value,NAME=value` (e.g. CHECKPOINT_EVERY_COMMANDS to put a checkpoint in the run). */
const SERVICE_ENV = settingsArg("service-env");

interface Timeline {
  windowMs: number;
  collections: Array<{ atMs: number; durationMs: number; kind: string }>;
  windows: Array<{ endMs: number; maxDelayMs: number }>;
}

/** One claim as the access log has it: when its reply left and how long it took (ms). */
interface Claim {
  endMs: number;
  latencyMs: number;
}

/** The claims whose reply left between `fromMs` and `toMs` (only the half-rate storm runs then). */
function claimsFromLog(fromMs: number, toMs: number): Claim[] {
  const claims: Claim[] = [];
  for (const line of readFileSync(LOG, "utf8").split("\n")) {
    if (!line.includes('"msg":"request"') || !line.includes("direct-claims")) continue;
    const entry = JSON.parse(line) as { time: string; latencyMs: number };
    const endMs = Date.parse(entry.time);
    if (endMs >= fromMs && endMs <= toMs) claims.push({ endMs, latencyMs: entry.latencyMs });
  }
  return claims;
}

function storm(setup: Setup, marketId: string, rate?: number): Promise<WrkResult> {
  return runWrk({
    url: setup.url,
    path: "/",
    threads: 1,
    connections: 64,
    durationSeconds: SECONDS,
    env: { STORM_TOKENS: setup.tokensFile, STORM_PATHS: pathsFile(WORK, marketId, [`/v1/markets/${marketId}/direct-claims`]), STORM_CONNECTIONS: "64", ...(rate === undefined ? {} : { STORM_RATE: String(rate) }) },
  });
}

/** What overlapped a claim's time in the service: gateway collections and delayed loop windows. */
function overlapping(claim: Claim, timeline: Timeline): { gcMs: number; kinds: string[]; maxDelayMs: number } {
  const startMs = claim.endMs - claim.latencyMs;
  const collections = timeline.collections.filter((gc) => gc.atMs < claim.endMs && gc.atMs + gc.durationMs > startMs);
  const windows = timeline.windows.filter((w) => w.endMs > startMs && w.endMs - timeline.windowMs < claim.endMs);
  return {
    gcMs: collections.reduce((sum, gc) => sum + gc.durationMs, 0),
    kinds: [...new Set(collections.map((gc) => gc.kind))],
    maxDelayMs: Math.max(0, ...windows.map((w) => w.maxDelayMs)),
  };
}

function report(half: WrkResult, rate: number, claims: Claim[], timeline: Timeline, commits: ReturnType<typeof commitLatencyBetween>): void {
  const latencies = claims.map((c) => c.latencyMs).sort((a, b) => a - b);
  console.log(`half rate: ${rate}/s offered, ${Math.round(half.requestsPerSecond)}/s done; wrk p50 ${(half.latencyUs.p50 / 1000).toFixed(2)} ms, p99 ${(half.latencyUs.p99 / 1000).toFixed(2)} ms`);
  console.log(`access log: ${claims.length} claims, p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${(latencies.at(-1) ?? 0).toFixed(2)} ms`);
  console.log(`shard commits: ${commits.commits}, p99 ≤ ${commits.p99AtMostMs} ms, ${commits.over2Ms} over 2 ms, ${commits.over5Ms} over 5 ms`);
  const byKind = new Map<string, { count: number; ms: number; maxMs: number }>();
  for (const gc of timeline.collections) {
    const seen = byKind.get(gc.kind) ?? { count: 0, ms: 0, maxMs: 0 };
    byKind.set(gc.kind, { count: seen.count + 1, ms: seen.ms + gc.durationMs, maxMs: Math.max(seen.maxMs, gc.durationMs) });
  }
  console.log(`gateway collections: ${[...byKind].map(([kind, s]) => `${kind} ${s.count}× ${s.ms.toFixed(0)} ms (max ${s.maxMs.toFixed(1)})`).join(", ") || "none"}`);
  const delays = timeline.windows.map((w) => w.maxDelayMs).sort((a, b) => a - b);
  console.log(`gateway loop delay per ${timeline.windowMs} ms window: median max ${percentile(delays, 50).toFixed(2)} ms, p99 max ${percentile(delays, 99).toFixed(2)} ms, windows over ${SLOW_MS} ms: ${delays.filter((d) => d > SLOW_MS).length} of ${delays.length}`);
  const slow = claims.filter((c) => c.latencyMs > SLOW_MS);
  const explained = slow.map((c) => ({ claim: c, ...overlapping(c, timeline) }));
  const byGc = explained.filter((e) => e.gcMs >= 1).length;
  const byDelay = explained.filter((e) => e.maxDelayMs >= SLOW_MS / 2).length;
  console.log(`claims over ${SLOW_MS} ms: ${slow.length} (${((100 * slow.length) / Math.max(1, claims.length)).toFixed(2)}%); overlapping a gateway collection ≥ 1 ms: ${byGc}; a loop turn delayed ≥ ${SLOW_MS / 2} ms: ${byDelay}`);
  console.log("slowest claims (end time, latency; what overlapped):");
  for (const e of [...explained].sort((a, b) => b.claim.latencyMs - a.claim.latencyMs).slice(0, 15)) {
    console.log(`  ${new Date(e.claim.endMs).toISOString().slice(11, 23)} ${e.claim.latencyMs.toFixed(2)} ms; gateway GC ${e.gcMs.toFixed(1)} ms ${e.kinds.join("+")}; loop delay max ${e.maxDelayMs.toFixed(1)} ms`);
  }
  // Windows of 100 ms with the most slow claims: how they cluster in time.
  const buckets = new Map<number, number>();
  for (const c of slow) {
    const atMs = Math.floor(c.endMs / 100) * 100;
    buckets.set(atMs, (buckets.get(atMs) ?? 0) + 1);
  }
  const worst = [...buckets].sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log(`100 ms windows with the most slow claims: ${worst.map(([at, n]) => `${new Date(at).toISOString().slice(11, 23)} ${n}`).join(", ")}`);
}

async function main(): Promise<void> {
  requireWrk();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const recorder = path.join(REPO, "bench", "storm", "timeline.mjs");
  const setup = await setUpService({ workDir: WORK, label: "service", participants: 2_000, port: numberArg("port", 18_293), dist: DIST, nodeArgs: [`--import=${recorder}`], env: { ...SERVICE_ENV, TIMELINE_FILE: TIMELINE, LOG_LEVEL: "info" }, stdoutFile: LOG });
  try {
    await warmUp(setup, WORK, "service", 3, 64);
    let rate = GIVEN_RATE;
    if (rate <= 0) {
      await createMarket(setup, "peak", CAPACITY);
      const peak = await storm(setup, "peak");
      rate = Math.max(1, Math.round(peak.requestsPerSecond / 2));
      console.log(`peak (access log on): ${Math.round(peak.requestsPerSecond)} req/s, p99 ${(peak.latencyUs.p99 / 1000).toFixed(2)} ms`);
    }
    await createMarket(setup, "half", CAPACITY);
    const pid = setup.service.process.pid as number;
    const commitsBefore = await readCommitBuckets(setup.url, setup.metricsToken);
    const fromMs = Date.now();
    process.kill(pid, "SIGUSR2");
    const half = await storm(setup, "half", rate);
    process.kill(pid, "SIGUSR2");
    const toMs = Date.now();
    const commits = commitLatencyBetween(commitsBefore, await readCommitBuckets(setup.url, setup.metricsToken));
    await untilWritten(TIMELINE);
    const timeline = JSON.parse(readFileSync(TIMELINE, "utf8")) as Timeline;
    report(half, rate, claimsFromLog(fromMs, toMs), timeline, commits);
  } finally {
    await setup.stop();
  }
}

await main();
