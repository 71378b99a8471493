/**
 * bench:cluster two ways in alternate runs: how issue 38's levers are measured (docs/cluster.md,
 * Measured). Way A and way B are each a set of bench:cluster arguments and, optionally, another
 * checkout whose own bench and build run (`--a-dir`, `--b-dir`: a tree built with `npm ci`); the
 * arguments common to both come from `--common`. `--rounds` rounds, the order swapped each round
 * (storm/paired-rounds.ts), so that drift of the machine falls on both alike; then, per storm, the
 * median and range of B ÷ A of the cluster's claims per second, and each way's cluster ÷ single node.
 *
 *     node --import tsx bench/cluster-ab.ts --rounds 3 --b "--partitions 3"
 *
 * Each run's result files are read and removed (bench/results keeps the runs the docs cite); the
 * summary is printed, and written as JSON to `--out` if given. Nothing else may run on the machine
 * meanwhile: a test suite or a type-check beside a run moves it more than most levers do. Each bench
 * runs in a process group of its own, so its services do not stop when the shell that started this
 * one exits (gateway/lifecycle.ts).
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { numberArg, stringArg } from "./args.js";
import { REPO } from "./storm/processes.js";
import { median, pairedRounds, ratioSummary } from "./storm/paired-rounds.js";

const ROUNDS = numberArg("rounds", 3);
const COMMON = stringArg("common", "--failover-rounds 0 --seconds 10 --participants 600");
const WAYS = {
  a: { args: stringArg("a", ""), dir: path.resolve(stringArg("a-dir", REPO)) },
  b: { args: stringArg("b", ""), dir: path.resolve(stringArg("b-dir", REPO)) },
};
const OUT = stringArg("out", "");
const OPTIONS = ["--rounds", "--common", "--a", "--b", "--a-dir", "--b-dir", "--out"];

/** Options come in pairs, `--name value`, and a value may itself be bench:cluster's options: only the names are checked. */
function refuseUnknownOptions(argv: readonly string[]): void {
  for (let i = 0; i < argv.length; i += 2) {
    if (!OPTIONS.includes(argv[i] as string) || argv[i + 1] === undefined) {
      process.stderr.write(`cluster-ab: ${JSON.stringify(argv[i])} is not one of its options with a value (${OPTIONS.join(", ")})\n`);
      process.exit(2);
    }
  }
}

/** What one storm of one run gave: the cluster's and the single node's. */
export interface StormFigures {
  clusterPerSecond: number;
  singlePerSecond: number;
  /** CPU µs per answered claim in the cluster: its services and its NATS servers. */
  serviceUs: number;
  natsUs: number;
  p50Ms: number;
  claimsPerCommit: number;
}

/** A run's figures by storm name ("hot market", "1,000 markets"). */
export type RunFigures = Record<string, StormFigures>;

interface ResultStorm {
  name: string;
  mode: "single node" | "cluster";
  requestsPerSecond: number;
  latencyUs: { p50: number };
  cpu: { serviceUsPerRequest: number; natsUsPerRequest: number };
  commits: { commandsPerCommit: number };
}

/** The figures of a bench:cluster result (its JSON's `storms`), by storm: each storm that ran on both. */
export function figuresOf(result: { storms: readonly ResultStorm[] }): RunFigures {
  const figures: RunFigures = {};
  for (const cluster of result.storms.filter((s) => s.mode === "cluster")) {
    const single = result.storms.find((s) => s.mode === "single node" && s.name === cluster.name);
    if (single === undefined) continue;
    figures[cluster.name] = {
      clusterPerSecond: cluster.requestsPerSecond,
      singlePerSecond: single.requestsPerSecond,
      serviceUs: cluster.cpu.serviceUsPerRequest,
      natsUs: cluster.cpu.natsUsPerRequest,
      p50Ms: cluster.latencyUs.p50 / 1000,
      claimsPerCommit: cluster.commits.commandsPerCommit,
    };
  }
  return figures;
}

/** Per storm: B ÷ A of the cluster's claims per second (median, range) and each way's cluster ÷ single node (median). */
export function compare(rounds: ReadonlyArray<{ a: RunFigures; b: RunFigures }>): Record<string, { ratio: { median: number; min: number; max: number }; aToSingle: number; bToSingle: number }> {
  const names = Object.keys(rounds[0]?.a ?? {}).filter((name) => rounds.every((r) => r.a[name] !== undefined && r.b[name] !== undefined));
  return Object.fromEntries(
    names.map((name) => {
      const pick = (figures: RunFigures): StormFigures => figures[name] as StormFigures;
      const toSingle = (way: "a" | "b") => median(rounds.map((r) => pick(r[way]).clusterPerSecond / pick(r[way]).singlePerSecond));
      return [name, { ratio: ratioSummary(rounds.map((r) => pick(r.b).clusterPerSecond / pick(r.a).clusterPerSecond)), aToSingle: toSingle("a"), bToSingle: toSingle("b") }];
    }),
  );
}

/** One bench:cluster run of `way`, in its own process group; its figures, its result files removed. */
async function run(way: "a" | "b", round: number): Promise<RunFigures> {
  const { args, dir } = WAYS[way];
  const argv = [...COMMON.split(" "), ...args.split(" ")].filter((arg) => arg !== "");
  process.stderr.write(`round ${round}, way ${way.toUpperCase()}: bench:cluster ${argv.join(" ")}${dir === REPO ? "" : ` in ${dir}`}\n`);
  const child = spawn(process.execPath, ["--import", "tsx", "bench/cluster.bench.ts", ...argv], { cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const stem = /results: bench\/results\/(\S+)\.\{json,md\}/.exec(output)?.[1];
  if (code !== 0 || stem === undefined) throw new Error(`bench:cluster (way ${way.toUpperCase()}, round ${round}) ended with ${code}:\n${output.slice(-3_000)}`);
  const results = path.join(dir, "bench", "results");
  const figures = figuresOf(JSON.parse(readFileSync(path.join(results, `${stem}.json`), "utf8")) as { storms: ResultStorm[] });
  for (const suffix of [".json", ".md", "-throughput.svg", "-failover.svg"]) rmSync(path.join(results, `${stem}${suffix}`), { force: true });
  for (const [name, f] of Object.entries(figures)) {
    process.stderr.write(`  ${name}: cluster ${Math.round(f.clusterPerSecond)}/s (single node ${Math.round(f.singlePerSecond)}/s), p50 ${f.p50Ms.toFixed(1)} ms, CPU µs per claim ${f.serviceUs} + NATS ${f.natsUs}, ${f.claimsPerCommit} claims per commit\n`);
  }
  return figures;
}

async function main(): Promise<void> {
  // pairedRounds gives the alternating order; the ratios are taken per storm (compare), not by one score.
  const summary = await pairedRounds({ rounds: ROUNDS, measure: run, score: () => 1 });
  const rounds = summary.rounds.map((r) => ({ round: r.round, a: r.a, b: r.b }));
  const compared = compare(rounds);
  for (const [name, c] of Object.entries(compared)) {
    process.stdout.write(
      `${name}: B ÷ A ${c.ratio.median.toFixed(2)} (range ${c.ratio.min.toFixed(2)}–${c.ratio.max.toFixed(2)}, ${rounds.length} rounds); cluster ÷ single node A ${c.aToSingle.toFixed(3)}×, B ${c.bToSingle.toFixed(3)}×\n`,
    );
  }
  if (OUT !== "") writeFileSync(OUT, `${JSON.stringify({ common: COMMON, ways: WAYS, rounds, compared }, null, 2)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  refuseUnknownOptions(process.argv.slice(2));
  await main();
}
