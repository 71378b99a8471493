/**
 * Where the service's gateway thread spends a claim storm: what it allocates (V8's sampling heap
 * profiler, counting what the garbage collector already took too: the scavenger's work is what a
 * claim's garbage costs) or, with `--cpu`, its CPU time (V8's CPU profiler), sampled only while wrk
 * runs the guard's storm (bench/guard.ts), not while the service starts and provisions; with
 * `--retained`, only the allocations still alive when the storm ends (what the gateway keeps); with
 * `--promoted`, those that outlived the young generation (what makes its collections slow). Prints the
 * bytes or microseconds per answered request, in all and per function.
 *   node --import tsx bench/gateway-sample.ts [--cpu | --retained | --promoted] [--dist <dir>] [--capacity 1000] [--seconds 5] [--top 30]
 *
 * The service loads bench/storm/sampler.mjs (`--import`): SIGUSR2 starts sampling, the next SIGUSR2
 * writes the profile and the window's garbage collections per kind. Samples are estimates (one per
 * `samplingInterval` bytes or 100 µs on average); compare builds, not absolute figures.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { flagArg, numberArg, stringArg } from "./args.js";
import { selfTimes, type CpuProfile, type CpuProfileNode } from "./storm/cpu-profile.js";
import { REPO, requireWrk, runWrk, untilWritten } from "./storm/processes.js";
import { createMarket, pathsFile, setUpService, warmUp } from "./storm/setup.js";

const DIST = path.resolve(stringArg("dist", path.join(REPO, "dist")));
/** What is sampled, and how the per-request figure reads (bench/storm/sampler.mjs's $SAMPLE_KIND). */
const KINDS = {
  heap: "bytes allocated",
  /** Allocations still alive when sampling stops (what the gateway keeps per claim), not all of them. */
  retained: "bytes allocated and still alive at the end",
  /** Allocations that outlived the young generation (what the scavenger copies and promotes), alive or not. */
  promoted: "bytes allocated that outlived the young generation",
  cpu: "µs of CPU (not idle)",
} as const;
const KIND = (["cpu", "retained", "promoted"] as const).find((kind) => flagArg(kind)) ?? "heap";
const CPU = KIND === "cpu";
const CAPACITY = numberArg("capacity", 1000);
const SECONDS = numberArg("seconds", 5);
const TOP = numberArg("top", 30);
const WORK = path.join(REPO, ".tmp", "gateway-sample");
const OUT = path.join(WORK, CPU ? "main-thread.cpuprofile" : "main-thread.heapprofile");

interface SampledNode {
  callFrame: CpuProfileNode["callFrame"];
  selfSize: number;
  children: SampledNode[];
}

function frameKey(frame: CpuProfileNode["callFrame"]): string {
  return `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^file:\/\//, "").replace(`${REPO}/`, "")}:${frame.lineNumber + 1}`;
}

/** Self sizes summed per function (name, file, line). */
function bytesPerFunction(root: SampledNode): Map<string, number> {
  const totals = new Map<string, number>();
  const pending = [root];
  while (pending.length > 0) {
    const node = pending.pop() as SampledNode;
    const key = frameKey(node.callFrame);
    if (node.selfSize > 0) totals.set(key, (totals.get(key) ?? 0) + node.selfSize);
    pending.push(...node.children);
  }
  return totals;
}

function report(answered: number, requestsPerSecond: number): void {
  const profile = JSON.parse(readFileSync(OUT, "utf8")) as unknown;
  const totals = CPU ? selfTimes(profile as CpuProfile, (node) => frameKey(node.callFrame)).byFrame : bytesPerFunction((profile as { head: SampledNode }).head);
  const rows = [...totals].sort((a, b) => b[1] - a[1]);
  const all = rows.reduce((sum, [, amount]) => sum + amount, 0);
  console.log(`${DIST}: ${answered} requests answered in ${SECONDS} s (${Math.round(requestsPerSecond)} req/s); sampled ${(all / answered).toFixed(CPU ? 1 : 0)} ${KINDS[KIND]} per request on the gateway thread`);
  const collections = JSON.parse(readFileSync(`${OUT}.gc.json`, "utf8")) as Record<string, { count: number; ms: number }>;
  console.log(`garbage collections: ${Object.entries(collections).map(([kind, { count, ms }]) => `${kind} ${count}× ${ms.toFixed(0)} ms`).join(", ") || "none"}`);
  for (const [where, amount] of rows.slice(0, TOP)) console.log(`${(amount / answered).toFixed(CPU ? 2 : 1).padStart(8)} ${CPU ? "µs" : "B"}/req  ${where}`);
}

async function main(): Promise<void> {
  requireWrk();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const sampler = path.join(REPO, "bench", "storm", "sampler.mjs");
  const env = { SAMPLE_FILE: OUT, SAMPLE_KIND: KIND };
  const setup = await setUpService({ workDir: WORK, label: "service", participants: 2_000, port: numberArg("port", 18_291), dist: DIST, nodeArgs: [`--import=${sampler}`], env });
  try {
    await warmUp(setup, WORK, "service", 3, 64);
    const marketId = `sample-${CAPACITY}`;
    await createMarket(setup, marketId, CAPACITY);
    const pid = setup.service.process.pid as number;
    process.kill(pid, "SIGUSR2");
    const wrk = await runWrk({ url: setup.url, path: "/", threads: 1, connections: 64, durationSeconds: SECONDS, env: { STORM_TOKENS: setup.tokensFile, STORM_PATHS: pathsFile(WORK, marketId, [`/v1/markets/${marketId}/direct-claims`]) } });
    process.kill(pid, "SIGUSR2");
    await untilWritten(OUT);
    report(Object.values(wrk.statuses).reduce((a, b) => a + b, 0), wrk.requestsPerSecond);
  } finally {
    await setup.stop();
  }
}

await main();
