/**
 * `npm run bench:audit-ab -- --a <dist dir> [--b dist]`: the audit CLI of two builds on ONE data
 * directory, alternating (a b, b a, a b, …) so that both see the same machine load over the
 * session: an A/B of a change to how audits run (the worker pool, decision I9, was measured so).
 * Each run is a fresh process, `node <dist>/gateway/cli/cli.js verify|replay --data D --json --threads T`;
 * every run's output must name the same markets and record hashes. Reported per build and verb: the
 * wall times and the CPU times (user + system of the process, all its threads, from GNU time:
 * Debian's `time` package), their medians, and b's medians against a's. On a machine shared with
 * other work the CPU time is the steadier of the two. Writes bench/results/<date>-audit-ab.json.
 *
 *   npm run bench:audit-ab -- --a ../base/dist [--b dist] [--rounds 5] [--threads 2] [--commands 300000] [--markets 1000] [--shards 2]
 *
 * Build both first (`npm run build` here; the other tree's own build for --a).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ReplayResult, VerifyResult } from "../engine/replay/audit-replay.js";
import { numberArg, stringArg } from "./args.js";
import { writeShardedClaimLog } from "./claim-log.js";
import { percentile } from "./percentile.js";
import { RESULTS_DIR, freshResultStem } from "./result-stem.js";

const REPO = path.resolve(import.meta.dirname, "..");
const A = path.resolve(REPO, stringArg("a", ""));
const B = path.resolve(REPO, stringArg("b", "dist"));
const ROUNDS = numberArg("rounds", 5);
const THREADS = numberArg("threads", 2);
const COMMANDS = numberArg("commands", 300_000);
const MARKETS = numberArg("markets", 1_000);
const SHARDS = numberArg("shards", 2);
const VERBS = ["verify", "replay"] as const;
type Verb = (typeof VERBS)[number];

function markets(verb: Verb, stdout: string): string {
  const result = JSON.parse(stdout) as ReplayResult | VerifyResult;
  const replay = verb === "verify" ? (result as VerifyResult).replay : (result as ReplayResult);
  if (verb === "verify" && !(result as VerifyResult).ok) throw new Error(`verify failed: ${(result as VerifyResult).problem ?? ""}`);
  return JSON.stringify(replay.markets.map((m) => [m.marketId, m.recordHash, m.stateReconstructed]));
}

const GNU_TIME = "/usr/bin/time";

/** A build's command line: dist/gateway/cli/cli.js, or dist/gateway/cli.js in builds from before the CLI had a folder of its own. */
function cliOf(dist: string): string | undefined {
  return [path.join(dist, "gateway", "cli", "cli.js"), path.join(dist, "gateway", "cli.js")].find((file) => existsSync(file));
}

function runCli(dist: string, verb: Verb, dataDir: string, timesFile: string): { seconds: number; cpuSeconds: number; markets: string } {
  const started = performance.now();
  const cli = [process.execPath, cliOf(dist) as string, verb, "--data", dataDir, "--json", "--threads", String(THREADS)];
  const run = spawnSync(GNU_TIME, ["-f", "%U %S", "-o", timesFile, ...cli], { encoding: "utf8", maxBuffer: 1 << 30 });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${dist}: ${verb} exited ${run.status}: ${run.stderr}`);
  const [user, system] = readFileSync(timesFile, "utf8").trim().split(/\s+/).map(Number);
  const cpuSeconds = (user ?? Number.NaN) + (system ?? Number.NaN);
  if (!Number.isFinite(cpuSeconds)) throw new Error(`${GNU_TIME} wrote no user and system times`);
  return { seconds, cpuSeconds, markets: markets(verb, run.stdout) };
}

async function main(): Promise<void> {
  for (const dist of [A, B]) if (cliOf(dist) === undefined) throw new Error(`${dist} holds no built command line (gateway/cli/cli.js): pass --a (and --b) built dist directories`);
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} is missing (apt-get install time)`);
  const workDir = mkdtempSync(path.join(os.tmpdir(), "audit-ab-"));
  try {
    const dataDir = path.join(workDir, "data");
    await writeShardedClaimLog(dataDir, { commands: COMMANDS, markets: MARKETS, shards: SHARDS });
    const timesFile = path.join(workDir, "times");
    const seconds: Record<"a" | "b", Record<Verb, number[]>> = { a: { verify: [], replay: [] }, b: { verify: [], replay: [] } };
    const cpuSeconds: Record<"a" | "b", Record<Verb, number[]>> = { a: { verify: [], replay: [] }, b: { verify: [], replay: [] } };
    let expected: string | undefined;
    for (let round = 0; round < ROUNDS; round += 1) {
      const order: Array<"a" | "b"> = round % 2 === 0 ? ["a", "b"] : ["b", "a"];
      for (const verb of VERBS) {
        for (const side of order) {
          const run = runCli(side === "a" ? A : B, verb, dataDir, timesFile);
          expected ??= run.markets;
          if (run.markets !== expected) throw new Error(`${side} ${verb}: other markets or record hashes than the first run`);
          seconds[side][verb].push(run.seconds);
          cpuSeconds[side][verb].push(run.cpuSeconds);
          process.stderr.write(`round ${round + 1} ${side} ${verb} --threads ${THREADS}: ${run.seconds.toFixed(2)} s wall, ${run.cpuSeconds.toFixed(2)} s CPU\n`);
        }
      }
    }
    const median = (values: number[]) => percentile([...values].sort((x, y) => x - y), 50);
    const summary = Object.fromEntries(
      VERBS.map((verb) => {
        const a = median(seconds.a[verb]);
        const b = median(seconds.b[verb]);
        const cpuA = median(cpuSeconds.a[verb]);
        const cpuB = median(cpuSeconds.b[verb]);
        return [verb, { medianSecondsA: a, medianSecondsB: b, bOverA: b / a, medianCpuSecondsA: cpuA, medianCpuSecondsB: cpuB, cpuBOverA: cpuB / cpuA }];
      }),
    );
    for (const verb of VERBS) {
      const s = summary[verb] as { medianSecondsA: number; medianSecondsB: number; bOverA: number; medianCpuSecondsA: number; medianCpuSecondsB: number; cpuBOverA: number };
      process.stdout.write(
        `${verb} --threads ${THREADS} (medians of ${ROUNDS}): wall a ${s.medianSecondsA.toFixed(2)} s, b ${s.medianSecondsB.toFixed(2)} s, b/a ${s.bOverA.toFixed(3)}; ` +
          `CPU a ${s.medianCpuSecondsA.toFixed(2)} s, b ${s.medianCpuSecondsB.toFixed(2)} s, b/a ${s.cpuBOverA.toFixed(3)}\n`,
      );
    }
    const result = {
      date: new Date().toISOString(),
      machine: { cores: os.availableParallelism(), node: process.version, kernel: os.release() },
      builds: { a: path.relative(REPO, A), b: path.relative(REPO, B) },
      settings: { rounds: ROUNDS, threads: THREADS, commands: COMMANDS, markets: MARKETS, shards: SHARDS },
      seconds,
      cpuSeconds,
      summary,
    };
    const file = path.join(RESULTS_DIR, `${freshResultStem("audit-ab")}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stderr.write(`results: ${path.relative(REPO, file)}\n`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
