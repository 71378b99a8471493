/**
 * Where the service's gateway thread allocates during a claim storm: V8's sampling heap profiler on
 * the service's main thread, counting what the garbage collector already took too (the scavenger's
 * work is what a claim's garbage costs), while wrk runs the guard's storm (bench/guard.ts). Prints
 * the bytes sampled per answered request, in all and per allocating function.
 *   node --import tsx bench/alloc-sample.ts [--dist <dir>] [--capacity 1000] [--seconds 5] [--top 30]
 *
 * The service loads bench/storm/heap-sampler.mjs (`--import`): SIGUSR2 starts sampling, the next
 * SIGUSR2 writes the profile. Sampled sizes are estimates (one sample per `samplingInterval` bytes on
 * average); compare builds, not absolute figures.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { numberArg, stringArg } from "./args.js";
import { REPO, requireWrk, runWrk } from "./storm/processes.js";
import { createMarket, pathsFile, setUpService, warmUp } from "./storm/setup.js";

const DIST = path.resolve(stringArg("dist", path.join(REPO, "dist")));
const CAPACITY = numberArg("capacity", 1000);
const SECONDS = numberArg("seconds", 5);
const TOP = numberArg("top", 30);
const WORK = path.join(REPO, ".tmp", "alloc-sample");
const OUT = path.join(WORK, "main-thread.heapprofile");

interface SampledNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampledNode[];
}

/** Self sizes summed per function (name, file, line). */
function perFunction(root: SampledNode): Map<string, number> {
  const totals = new Map<string, number>();
  const pending = [root];
  while (pending.length > 0) {
    const node = pending.pop() as SampledNode;
    const frame = node.callFrame;
    const key = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^file:\/\//, "").replace(`${REPO}/`, "")}:${frame.lineNumber + 1}`;
    if (node.selfSize > 0) totals.set(key, (totals.get(key) ?? 0) + node.selfSize);
    pending.push(...node.children);
  }
  return totals;
}

async function main(): Promise<void> {
  requireWrk();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const sampler = path.join(REPO, "bench", "storm", "heap-sampler.mjs");
  const setup = await setUpService({ workDir: WORK, label: "service", participants: 2_000, port: numberArg("port", 18_291), dist: DIST, nodeArgs: [`--import=${sampler}`], env: { HEAP_SAMPLE_FILE: OUT } });
  try {
    await warmUp(setup, WORK, "service", 3, 64);
    const marketId = `alloc-${CAPACITY}`;
    await createMarket(setup, marketId, CAPACITY);
    const pid = setup.service.process.pid as number;
    process.kill(pid, "SIGUSR2");
    const wrk = await runWrk({ url: setup.url, path: "/", threads: 1, connections: 64, durationSeconds: SECONDS, env: { STORM_TOKENS: setup.tokensFile, STORM_PATHS: pathsFile(WORK, marketId, [`/v1/markets/${marketId}/direct-claims`]) } });
    process.kill(pid, "SIGUSR2");
    for (let waited = 0; !existsSync(OUT) && waited < 600; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const answered = Object.values(wrk.statuses).reduce((a, b) => a + b, 0);
    const profile = JSON.parse(readFileSync(OUT, "utf8")) as { head: SampledNode };
    const totals = [...perFunction(profile.head)].sort((a, b) => b[1] - a[1]);
    const all = totals.reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log(`${DIST}: ${answered} requests answered in ${SECONDS} s (${Math.round(wrk.requestsPerSecond)} req/s); sampled ${Math.round(all / answered)} bytes allocated per request on the gateway thread`);
    for (const [where, bytes] of totals.slice(0, TOP)) console.log(`${(bytes / answered).toFixed(1).padStart(8)} B/req  ${where}`);
  } finally {
    await setup.stop();
  }
}

await main();
