/**
 * The speed guard (issue 36): this build against a pinned reference build, the same claim storm on
 * both, alternating, in one run.
 *   npm run bench:guard -- [options]   (`--help` lists them: the usage passed to refuseUnknownArgs below)
 *
 * The reference (`--against`, default the pinned one named in bench/README.md) is built from its
 * commit in `.tmp/guard/<commit>/` (a `git archive` of it, `npm ci`, which builds), once, and reused;
 * the candidate is this working tree's `dist/` (`npm run bench:guard` builds it first) or, with
 * `--candidate`, another commit built the same way. Both services run side by side as a user runs
 * them (durable, fsync before every reply, every feature at its default), each with the same
 * participants provisioned through the API (one bearer token and a fresh commandId per request:
 * bench/storm/claims.lua), warmed up, then per capacity `--rounds` storms on a fresh hot market on
 * each, the order alternating (storm/paired-rounds.ts). Printed and written to
 * bench/results/<date>-guard.{json,md}: per capacity the median of the rounds' ratios candidate ÷
 * reference with their range, req/s, p50/p99, and the CPU of each service process (all its threads)
 * per answered request, split by thread (the gateway thread, the hot market's shard, the rest) with
 * its system part. A round whose storm fails a check (any 5xx, a connection error, an
 * allocation that disagrees with the accepted replies) fails the run.
 *
 * A benchmark, never a test: run it on a machine with nothing else to do.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import * as path from "node:path";
import { numberArg, refuseUnknownArgs, settingsArg, stringArg } from "./args.js";
import { percentile } from "./percentile.js";
import { buildOf, workingTreeName } from "./builds.js";
import { PINNED_REFERENCE } from "./guard-reference.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";
import { allocatedOf, transportChecks, type Check } from "./storm/checks.js";
import { pairedRounds, type PairedSummary } from "./storm/paired-rounds.js";
import { cpuSecondsByThread, REPO, requireWrk, runWrk, threadCpuSplit, type WrkResult } from "./storm/processes.js";
import { createMarket, pathsFile, setUpService, warmUp, type Setup } from "./storm/setup.js";
import { recordProcess } from "./storm/perf-breakdown.js";


const AGAINST = stringArg("against", PINNED_REFERENCE);
/** `--against dist`: this tree's own build as the reference too (with --candidate-env, a setting's A/B). */
const CANDIDATE = stringArg("candidate", "");
const ROUNDS = numberArg("rounds", 3);
const CAPACITIES = stringArg("capacities", "1000,20000").split(",").map(Number);
const PARTICIPANTS = numberArg("participants", 2_000);
const SECONDS = numberArg("seconds", 10);
const CONNECTIONS = numberArg("connections", 64);
const WARM_UP_SECONDS = numberArg("warm-up", 5);
const PROFILE_DIR = stringArg("profile", "");
/** Linux `perf record` (software cpu-clock, call graphs) of each service during each storm, into this directory. */
const PERF_DIR = stringArg("perf", "");
const PORT = numberArg("port", 18_281);
/** Settings for the candidate's service only, `NAME=value,NAME=value` (an A/B of a setting on one build). */
const CANDIDATE_ENV = settingsArg("candidate-env");
const WORK = path.join(REPO, ".tmp", "guard-run");
refuseUnknownArgs(
  "usage: npm run bench:guard -- [--against <commit>] [--candidate <commit>] [--rounds 3] [--capacities 1000,20000]\n" +
    "  [--participants 2000] [--seconds 10] [--connections 64] [--warm-up 5] [--profile <dir>] [--perf <dir>] [--port 18281]\n" +
    "  [--candidate-env NAME=value,...]",
);

interface Storm {
  wrk: WrkResult;
  /** CPU seconds of the service process (every thread) during the storm, per answered request, in µs. */
  cpuUsPerRequest: number;
  /** The same CPU by thread (the gateway thread, the busiest other one: the hot market's shard, the rest) and its system part, µs per answered request. */
  cpuUsPerRequestByThread: CpuByThread;
  checks: Check[];
}

/** µs of CPU per answered request: the gateway thread, the hot market's shard, the rest, and the system (kernel) part of all three. */
interface CpuByThread {
  gateway: number;
  shard: number;
  rest: number;
  system: number;
}

async function stormOnce(setup: Setup, marketId: string, capacity: number): Promise<Storm> {
  await createMarket(setup, marketId, capacity);
  const pid = setup.service.process.pid as number;
  const perf = PERF_DIR === "" ? undefined : recordProcess(path.resolve(PERF_DIR, `${marketId}-${path.basename(path.dirname(setup.tokensFile))}.data`), pid);
  const before = cpuSecondsByThread(pid);
  const wrk = await runWrk({
    url: setup.url,
    path: "/",
    threads: 1,
    connections: CONNECTIONS,
    durationSeconds: SECONDS,
    env: { STORM_TOKENS: setup.tokensFile, STORM_PATHS: pathsFile(WORK, marketId, [`/v1/markets/${marketId}/direct-claims`]) },
  });
  const split = threadCpuSplit(pid, before, cpuSecondsByThread(pid));
  await perf?.stop();
  const answered = Object.values(wrk.statuses).reduce((a, b) => a + b, 0);
  const usPerRequest = (seconds: number): number => (seconds * 1e6) / Math.max(1, answered);
  const accepted = wrk.statuses["200"] ?? 0;
  const allocated = await allocatedOf(setup, marketId);
  const checks: Check[] = [
    ...transportChecks(wrk),
    { name: "accepted replies match the allocation (+ those in flight at the deadline)", ok: allocated >= accepted && allocated <= accepted + CONNECTIONS, detail: `${accepted} accepted, ${allocated} allocated` },
  ];
  const cpuUsPerRequestByThread: CpuByThread = {
    gateway: usPerRequest(split.mainSeconds),
    shard: usPerRequest(split.busiestOtherSeconds),
    rest: usPerRequest(split.restSeconds),
    system: usPerRequest(split.systemSeconds),
  };
  return { wrk, cpuUsPerRequest: usPerRequest(split.mainSeconds + split.busiestOtherSeconds + split.restSeconds), cpuUsPerRequestByThread, checks };
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

function describe(label: string, s: Storm): string {
  const t = s.cpuUsPerRequestByThread;
  return `${label} ${fmt(s.wrk.requestsPerSecond)} req/s, p50 ${(s.wrk.latencyUs.p50 / 1000).toFixed(2)} ms, p99 ${(s.wrk.latencyUs.p99 / 1000).toFixed(2)} ms, ${s.cpuUsPerRequest.toFixed(1)} µs CPU/req (gateway thread ${t.gateway.toFixed(1)}, shard ${t.shard.toFixed(1)}, rest ${t.rest.toFixed(1)}; system ${t.system.toFixed(1)})`;
}

async function main(): Promise<void> {
  requireWrk();
  const reference = AGAINST === "dist" ? { commit: "this tree's dist/", dist: path.join(REPO, "dist") } : buildOf(AGAINST);
  const candidate = CANDIDATE === "" ? { commit: workingTreeName(), dist: path.join(REPO, "dist") } : buildOf(CANDIDATE);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const nodeArgs = (label: string): string[] => [
    ...(PROFILE_DIR === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR, label)}`]),
    // perf names JIT-compiled JS functions through /tmp/perf-<pid>.map.
    ...(PERF_DIR === "" ? [] : ["--perf-basic-prof"]),
  ];
  const setups = {
    a: await setUpService({ workDir: WORK, label: "reference", participants: PARTICIPANTS, port: PORT, dist: reference.dist, nodeArgs: nodeArgs("reference") }),
    b: await setUpService({ workDir: WORK, label: "candidate", participants: PARTICIPANTS, port: PORT + 2, dist: candidate.dist, nodeArgs: nodeArgs("candidate"), env: CANDIDATE_ENV }),
  };
  const summaries: Array<{ capacity: number; summary: PairedSummary<Storm> }> = [];
  try {
    for (const side of ["a", "b"] as const) await warmUp(setups[side], WORK, side === "a" ? "reference" : "candidate", WARM_UP_SECONDS, CONNECTIONS);
    for (const capacity of CAPACITIES) {
      const summary = await pairedRounds({
        rounds: ROUNDS,
        score: (s: Storm) => s.wrk.requestsPerSecond,
        measure: async (side, round) => {
          const result = await stormOnce(setups[side], `guard-${capacity}-${round}`, capacity);
          process.stderr.write(`capacity ${capacity} round ${round}: ${describe(side === "a" ? "reference" : "candidate", result)}${result.checks.every((c) => c.ok) ? "" : " — CHECKS FAILED"}\n`);
          return result;
        },
      });
      summaries.push({ capacity, summary });
      process.stderr.write(`capacity ${capacity}: candidate ÷ reference, median of ${ROUNDS} rounds ${summary.median.toFixed(3)} (range ${summary.min.toFixed(3)}–${summary.max.toFixed(3)})\n`);
    }
  } finally {
    const [a, b] = await Promise.all([setups.a.stop(), setups.b.stop()]);
    if (a !== 0 || b !== 0) process.stderr.write(`services exited with ${a} (reference) and ${b} (candidate)\n`);
  }
  const passed = summaries.every(({ summary }) => summary.rounds.every((r) => [...r.a.checks, ...r.b.checks].every((c) => c.ok)));
  const settings = { against: AGAINST, candidateEnv: CANDIDATE_ENV, reference: reference.commit, candidate: candidate.commit, rounds: ROUNDS, capacities: CAPACITIES, participants: PARTICIPANTS, seconds: SECONDS, connections: CONNECTIONS, warmUpSeconds: WARM_UP_SECONDS };
  const machine = { cores: availableParallelism(), cpu: cpus()[0]?.model ?? "?", node: process.version };
  const stem = freshResultStem("guard");
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify({ date: new Date().toISOString(), machine, settings, summaries, passed }, null, 2)}\n`);
  const lines = [
    `# Speed guard, ${new Date().toISOString().slice(0, 10)}`,
    "",
    `Candidate ${candidate.commit} against the reference ${AGAINST} (${reference.commit}); ${PARTICIPANTS} participants, ${CONNECTIONS} connections, ${SECONDS} s per storm, ${ROUNDS} rounds alternating; ${machine.cores} cores (${machine.cpu}), Node ${machine.node}. \`npm run bench:guard -- ${process.argv.slice(2).join(" ")}\``,
    "",
    "| capacity | candidate ÷ reference (median) | range | reference req/s | candidate req/s | reference µs CPU/req | candidate µs CPU/req | reference p99 ms | candidate p99 ms |",
    "|---:|---:|---|---|---|---|---|---|---|",
    ...summaries.map(({ capacity, summary }) => {
      const list = (pick: (s: Storm) => number, digits = 0): string => summary.rounds.map((r) => pick(r.a).toFixed(digits)).join(", ");
      const listB = (pick: (s: Storm) => number, digits = 0): string => summary.rounds.map((r) => pick(r.b).toFixed(digits)).join(", ");
      return `| ${fmt(capacity)} | **${summary.median.toFixed(3)}** | ${summary.min.toFixed(3)}–${summary.max.toFixed(3)} | ${list((s) => s.wrk.requestsPerSecond)} | ${listB((s) => s.wrk.requestsPerSecond)} | ${list((s) => s.cpuUsPerRequest, 1)} | ${listB((s) => s.cpuUsPerRequest, 1)} | ${list((s) => s.wrk.latencyUs.p99 / 1000, 2)} | ${listB((s) => s.wrk.latencyUs.p99 / 1000, 2)} |`;
    }),
    "",
    "Where each build's CPU went, µs per answered request, median of the rounds: the gateway thread (the process's main thread), the busiest other thread (the hot market's shard), the rest (the other shards, the identity journal's thread, V8's and libuv's helpers), and the system (kernel) part of the whole.",
    "",
    "| capacity | build | gateway thread | shard | rest | system part |",
    "|---:|---|---:|---:|---:|---:|",
    ...summaries.flatMap(({ capacity, summary }) =>
      (["a", "b"] as const).map((side) => {
        const median = (pick: (t: CpuByThread) => number): string => percentile(summary.rounds.map((r) => pick(r[side].cpuUsPerRequestByThread)).sort((x, y) => x - y), 50).toFixed(1);
        return `| ${fmt(capacity)} | ${side === "a" ? "reference" : "candidate"} | ${median((t) => t.gateway)} | ${median((t) => t.shard)} | ${median((t) => t.rest)} | ${median((t) => t.system)} |`;
      }),
    ),
    "",
    passed ? "Every storm passed its checks." : "**A storm failed its checks: the run does not count.**",
    "",
  ];
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), lines.join("\n"));
  process.stderr.write(`${lines.slice(4).join("\n")}\nreport: bench/results/${stem}.md (+ .json)\n`);
  rmSync(WORK, { recursive: true, force: true });
  if (!passed) process.exitCode = 1;
}

await main();
