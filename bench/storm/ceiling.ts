/**
 * P1 against its architecture's ceiling. Run: `npm run bench:ceiling`
 *
 *   node --import tsx bench/storm/ceiling.ts [--scenario p1|p3] [--participants 5000] [--capacity 1000] [--rounds 3] [--seconds 10] [--connections 64]
 *
 * `--scenario p3` instead runs the ceiling alone with one shard and with two, claims spread over
 * 1,000 markets (P3's question: can this architecture scale with shards on this machine?).
 *
 * Four servers, the same wrk driver (bench/storm/claims.lua: a bearer token and a fresh commandId
 * per request), the same connection count, in alternating rounds so a slow stretch of the VM hits
 * all alike:
 *  - floor: the no-op uWS server (floor-server.ts), P1's yardstick;
 *  - ceiling: the design card's path with none of the service's work (ceiling-server.ts): uWS
 *    gateway thread → worker thread → one write + fdatasync per batch → reply;
 *  - ceiling without a worker: the same with the write and an asynchronous fdatasync on the main
 *    thread (0 shards in ceiling-server.ts), outside the design card: what the thread hop costs;
 *  - service: the real service (built `dist/`, durable, default shard count), one hot direct-claim
 *    market per round (capacity `--capacity`; most claims refused, as P1's first variant).
 * Ceiling and service also run paced at half their own peak of the round (P1's p99 target).
 * For each run: req/s and latency at saturation, and the server process's CPU (user + system, from
 * /proc, all its threads) per request. Writes bench/results/<date>-ceiling.{json,md}.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, release } from "node:os";
import * as path from "node:path";
import { numberArg, stringArg } from "../args.js";
import { percentile } from "../percentile.js";
import { freshResultStem, RESULTS_DIR } from "../result-stem.js";
import { cpuSecondsOfStat, REPO, runWrk, startBenchServer, startFloor, transportFailures, type Started, type WrkResult } from "./processes.js";
import { createMarket, pathsFile, setUpService, warmUp } from "./setup.js";

const PARTICIPANTS = numberArg("participants", 5_000);
const CAPACITY = numberArg("capacity", 1_000);
const ROUNDS = numberArg("rounds", 3);
const SECONDS = numberArg("seconds", 10);
const CONNECTIONS = numberArg("connections", 64);
const PORT = numberArg("port", 18_281);
const WARM_UP_SECONDS = numberArg("warm-up", 5);
const WORK = path.join(REPO, ".tmp", "storm-ceiling");
/** p1 (default): floor, ceiling, service on one hot market; p3: the ceiling with 1 and 2 shards over 1,000 markets. */
const SCENARIO = stringArg("scenario", "p1");
const P3_MARKETS = 1_000;
/** The ceiling without a worker thread (ceiling-server.ts with 0 shards): what the thread hop costs. */
const INLINE = "ceiling, no worker";

/** Who answered: the floor, the ceiling (P3: "ceiling, N shards") or the service. */
type Contender = string;

interface Run {
  contender: Contender;
  round: number;
  /** Requests/s offered (paced at half the same round's peak of this contender), or undefined at saturation. */
  offeredPerSecond: number | undefined;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; p999: number };
  /** The server process's CPU (all threads, user + system) per answered request. */
  serverCpuUsPerRequest: number;
  statuses: Record<string, number>;
  fiveHundreds: number;
  connectionErrors: number;
}

/** User + system CPU seconds of a process, all its threads. */
function processCpuSeconds(pid: number): number {
  const { user, system } = cpuSecondsOfStat(`/proc/${pid}/stat`);
  return user + system;
}

function startCeiling(port: number, shards = 1): Promise<Started & { url: string }> {
  const dataDir = path.join(WORK, `ceiling-data-${shards}`);
  rmSync(dataDir, { recursive: true, force: true });
  return startBenchServer("ceiling-server.ts", [String(port), dataDir, String(shards)], port);
}

async function measure(contender: Contender, round: number, pid: number, url: string, env: Record<string, string>, offeredPerSecond?: number): Promise<Run> {
  const cpuBefore = processCpuSeconds(pid);
  const paced = offeredPerSecond === undefined ? {} : { STORM_RATE: String(offeredPerSecond), STORM_CONNECTIONS: String(CONNECTIONS) };
  const result: WrkResult = await runWrk({ url, path: "/", threads: 1, connections: CONNECTIONS, durationSeconds: SECONDS, env: { ...env, ...paced } });
  const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
  const answered = Object.values(result.statuses).reduce((a, b) => a + b, 0);
  const { fiveHundreds, connectionErrors } = transportFailures(result);
  const run: Run = {
    contender,
    round,
    offeredPerSecond,
    requestsPerSecond: result.requestsPerSecond,
    latencyMs: { p50: result.latencyUs.p50 / 1000, p99: result.latencyUs.p99 / 1000, p999: result.latencyUs.p999 / 1000 },
    serverCpuUsPerRequest: answered > 0 ? (cpuSeconds * 1e6) / answered : Number.NaN,
    statuses: result.statuses,
    fiveHundreds,
    connectionErrors,
  };
  process.stderr.write(`[ceiling] round ${round} ${contender}${offeredPerSecond === undefined ? "" : ` at ${offeredPerSecond}/s offered`}: ${Math.round(run.requestsPerSecond)} req/s, p99 ${run.latencyMs.p99.toFixed(2)} ms, server CPU ${run.serverCpuUsPerRequest.toFixed(1)} µs/request\n`);
  return run;
}

function median(values: number[]): number {
  return percentile([...values].sort((x, y) => x - y), 50);
}

/** Writes the Markdown report beside the JSON, prints it, removes the work directory; a failed run exits non-zero. */
function finish(stem: string, md: string, failed: boolean): void {
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), md);
  process.stderr.write(`${md}\nreport: ${path.relative(REPO, path.join(RESULTS_DIR, `${stem}.md`))}\n`);
  rmSync(WORK, { recursive: true, force: true });
  if (failed) process.exitCode = 1;
}

/**
 * P3's question for the architecture alone: claims spread uniformly over 1,000 markets (paths), the
 * ceiling with one shard against two, alternating. No service here (bench:storm's p3 runs it); the
 * driver's tokens are placeholders, the ceiling reads no header.
 */
async function mainP3(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const tokensFile = path.join(WORK, "tokens.txt");
  writeFileSync(tokensFile, Array.from({ length: PARTICIPANTS }, (_, i) => `participant-${i} placeholder-token-${i}`).join("\n"));
  const env = { STORM_TOKENS: tokensFile, STORM_PATHS: pathsFile(WORK, "p3", Array.from({ length: P3_MARKETS }, (_, i) => `/v1/markets/m-${i}/direct-claims`)) };
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const shards of [1, 2]) {
      const ceiling = await startCeiling(PORT + 2, shards);
      try {
        runs.push(await measure(`ceiling, ${shards} shard${shards === 1 ? "" : "s"}`, round, ceiling.process.pid as number, ceiling.url, env));
      } finally {
        await ceiling.stop();
      }
    }
  }
  const failed = runs.filter((run) => run.fiveHundreds > 0 || run.connectionErrors > 0);
  const rate = (shards: number, round: number) => runs.find((run) => run.round === round && run.contender.startsWith(`ceiling, ${shards} `))?.requestsPerSecond ?? Number.NaN;
  const scaling = Array.from({ length: ROUNDS }, (_, i) => rate(2, i + 1) / rate(1, i + 1));
  const settings = { scenario: "p3", markets: P3_MARKETS, rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS };
  const machine = { cores: availableParallelism(), node: process.version, kernel: release() };
  const stem = freshResultStem("ceiling-p3");
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify({ date: new Date().toISOString(), machine, settings, runs, scaling }, null, 2)}\n`);
  const md = [
    `# P3 against the architecture's ceiling (${new Date().toISOString().slice(0, 10)})`,
    "",
    `\`npm run bench:ceiling -- --scenario p3 --rounds ${ROUNDS} --seconds ${SECONDS} --connections ${CONNECTIONS}\` on ${machine.cores} cores, Node ${machine.node}, kernel ${machine.kernel}.`,
    `Claims spread uniformly over ${P3_MARKETS.toLocaleString("en-US")} paths, each routed to the shard it hashes to; rounds alternate 1 shard → 2 shards.`,
    "",
    "| round | contender | req/s | p50 ms | p99 ms | server CPU µs/request |",
    "|---:|---|---:|---:|---:|---:|",
    ...runs.map((run) => `| ${run.round} | ${run.contender} | ${Math.round(run.requestsPerSecond).toLocaleString("en-US")} | ${run.latencyMs.p50.toFixed(2)} | ${run.latencyMs.p99.toFixed(2)} | ${run.serverCpuUsPerRequest.toFixed(1)} |`),
    "",
    `- 2 shards ÷ 1 shard, per round: ${scaling.map((v) => `${v.toFixed(2)}×`).join(", ")} (median ${median(scaling).toFixed(2)}×)`,
    failed.length === 0 ? "- no 5xx and no connection errors in any run" : `- **FAILED**: ${failed.map((run) => `round ${run.round} ${run.contender}`).join("; ")}`,
    "",
  ].join("\n");
  finish(stem, md, failed.length > 0);
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  const setup = await setUpService({ workDir: WORK, label: "service", participants: PARTICIPANTS, port: PORT });
  const runs: Run[] = [];
  try {
    await warmUp(setup, WORK, "ceiling", WARM_UP_SECONDS, CONNECTIONS);
    const plain = { STORM_TOKENS: setup.tokensFile, STORM_PATHS: pathsFile(WORK, "plain", ["/claim"]) };
    const servicePid = setup.service.process.pid as number;
    for (let round = 1; round <= ROUNDS; round += 1) {
      const floor = await startFloor(PORT + 1);
      try {
        runs.push(await measure("floor", round, floor.process.pid as number, floor.url, plain));
      } finally {
        await floor.stop();
      }
      const ceiling = await startCeiling(PORT + 2);
      try {
        const peak = await measure("ceiling", round, ceiling.process.pid as number, ceiling.url, plain);
        runs.push(peak, await measure("ceiling", round, ceiling.process.pid as number, ceiling.url, plain, Math.round(peak.requestsPerSecond / 2)));
      } finally {
        await ceiling.stop();
      }
      const inline = await startCeiling(PORT + 3, 0);
      try {
        const peak = await measure(INLINE, round, inline.process.pid as number, inline.url, plain);
        runs.push(peak, await measure(INLINE, round, inline.process.pid as number, inline.url, plain, Math.round(peak.requestsPerSecond / 2)));
      } finally {
        await inline.stop();
      }
      const marketId = `ceiling-hot-${round}`;
      await createMarket(setup, marketId, CAPACITY);
      const paths = pathsFile(WORK, marketId, [`/v1/markets/${marketId}/direct-claims`]);
      const peak = await measure("service", round, servicePid, setup.url, { STORM_TOKENS: setup.tokensFile, STORM_PATHS: paths });
      // The half-rate run on a market of its own, as bench:storm does.
      await createMarket(setup, `${marketId}-half`, CAPACITY);
      const halfPaths = pathsFile(WORK, `${marketId}-half`, [`/v1/markets/${marketId}-half/direct-claims`]);
      runs.push(peak, await measure("service", round, servicePid, setup.url, { STORM_TOKENS: setup.tokensFile, STORM_PATHS: halfPaths }, Math.round(peak.requestsPerSecond / 2)));
    }
  } finally {
    await setup.stop();
  }

  const failed = runs.filter((run) => run.fiveHundreds > 0 || run.connectionErrors > 0);
  const of = (contender: Contender) => runs.filter((run) => run.contender === contender && run.offeredPerSecond === undefined);
  const halfOf = (contender: Contender) => runs.filter((run) => run.contender === contender && run.offeredPerSecond !== undefined);
  const stats = (contender: Contender) => ({
    medianRequestsPerSecond: median(of(contender).map((run) => run.requestsPerSecond)),
    medianServerCpuUsPerRequest: median(of(contender).map((run) => run.serverCpuUsPerRequest)),
    medianP99Ms: median(of(contender).map((run) => run.latencyMs.p99)),
    medianHalfRateP99Ms: halfOf(contender).length === 0 ? null : median(halfOf(contender).map((run) => run.latencyMs.p99)),
  });
  const summary = { floor: stats("floor"), ceiling: stats("ceiling"), inline: stats(INLINE), service: stats("service") };
  const perRound = (a: Contender, b: Contender) =>
    Array.from({ length: ROUNDS }, (_, i) => {
      const x = of(a).find((run) => run.round === i + 1);
      const y = of(b).find((run) => run.round === i + 1);
      return x !== undefined && y !== undefined ? x.requestsPerSecond / y.requestsPerSecond : Number.NaN;
    });
  const ratios = { ceilingToFloor: perRound("ceiling", "floor"), inlineToFloor: perRound(INLINE, "floor"), serviceToFloor: perRound("service", "floor"), serviceToCeiling: perRound("service", "ceiling") };
  const settings = { participants: PARTICIPANTS, capacity: CAPACITY, rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, warmUpSeconds: WARM_UP_SECONDS };
  const machine = { cores: availableParallelism(), node: process.version, kernel: release() };
  const stem = freshResultStem("ceiling");
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify({ date: new Date().toISOString(), machine, settings, runs, summary, ratios }, null, 2)}\n`);

  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const x = (values: number[]) => values.map((v) => `${v.toFixed(2)}×`).join(", ");
  const md = [
    `# P1 against the architecture's ceiling (${new Date().toISOString().slice(0, 10)})`,
    "",
    `\`npm run bench:ceiling -- --participants ${PARTICIPANTS} --capacity ${CAPACITY} --rounds ${ROUNDS} --seconds ${SECONDS} --connections ${CONNECTIONS}\` on ${machine.cores} cores, Node ${machine.node}, kernel ${machine.kernel}.`,
    "Same wrk script (bench/storm/claims.lua), same connections, rounds alternating floor → ceiling → ceiling without a worker → service.",
    "",
    "| round | contender | offered | req/s | p50 ms | p99 ms | server CPU µs/request |",
    "|---:|---|---:|---:|---:|---:|---:|",
    ...runs.map((run) => `| ${run.round} | ${run.contender} | ${run.offeredPerSecond === undefined ? "saturation" : `${fmt(run.offeredPerSecond)}/s (half)`} | ${fmt(run.requestsPerSecond)} | ${run.latencyMs.p50.toFixed(2)} | ${run.latencyMs.p99.toFixed(2)} | ${run.serverCpuUsPerRequest.toFixed(1)} |`),
    "",
    `- ceiling ÷ floor, per round: ${x(ratios.ceilingToFloor)}`,
    `- ceiling without a worker ÷ floor, per round: ${x(ratios.inlineToFloor)}`,
    `- service ÷ floor, per round: ${x(ratios.serviceToFloor)}`,
    `- service ÷ ceiling, per round: ${x(ratios.serviceToCeiling)}`,
    `- medians: floor ${fmt(summary.floor.medianRequestsPerSecond)} req/s at ${summary.floor.medianServerCpuUsPerRequest.toFixed(1)} µs; ceiling ${fmt(summary.ceiling.medianRequestsPerSecond)} at ${summary.ceiling.medianServerCpuUsPerRequest.toFixed(1)} µs; without a worker ${fmt(summary.inline.medianRequestsPerSecond)} at ${summary.inline.medianServerCpuUsPerRequest.toFixed(1)} µs; service ${fmt(summary.service.medianRequestsPerSecond)} at ${summary.service.medianServerCpuUsPerRequest.toFixed(1)} µs`,
    `- p99 at half the peak, medians: ceiling ${summary.ceiling.medianHalfRateP99Ms?.toFixed(2) ?? "-"} ms; without a worker ${summary.inline.medianHalfRateP99Ms?.toFixed(2) ?? "-"} ms; service ${summary.service.medianHalfRateP99Ms?.toFixed(2) ?? "-"} ms`,
    failed.length === 0 ? "- no 5xx and no connection errors in any run" : `- **FAILED**: ${failed.map((run) => `round ${run.round} ${run.contender}: ${run.fiveHundreds} 5xx, ${run.connectionErrors} connection errors`).join("; ")}`,
    "",
  ].join("\n");
  finish(stem, md, failed.length > 0);
}

if (SCENARIO === "p3") await mainP3();
else if (SCENARIO === "p1") await main();
else throw new Error(`unknown --scenario ${SCENARIO} (p1 or p3)`);
