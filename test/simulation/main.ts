/**
 * `npm run sim -- --seeds N [--from S0] [--jobs J] [--stop]`: runs N seeds (S0, S0+1, …; S0 random
 * unless given) on J threads and prints seeds/s and every failure with its seed; a seed that takes
 * longer than `--seed-timeout` seconds of real time (a node's code spinning for ever) is a failure.
 * `npm run sim -- --seed S [--quiet]`: replays seed S exactly, printing its whole trace as it runs
 * (docs/simulation.md: how to read it). Exit status 1 when a seed fails.
 * `--minutes M` starts no seed after M minutes (a long run in a bounded time; it says how many ran).
 * `--twice` runs each seed twice and fails a seed whose two traces differ (determinism).
 * `--mutant NAME` runs the same in a throwaway copy of the code with a known bug put back
 * (mutants.ts), to see the simulation find it.
 */
import { randomInt } from "node:crypto";
import { availableParallelism } from "node:os";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as path from "node:path";
import { MUTANTS, mutatedCopy } from "./mutants.js";
import { Worker } from "node:worker_threads";
import { runSeed } from "./run-seed.js";
import { guardDeterminism } from "./determinism-guard.js";
import type { SeedReport, SeedRequest } from "./seed-worker.js";

interface Options {
  seeds: number;
  from: number | undefined;
  seed: number | undefined;
  jobs: number;
  seedTimeoutSeconds: number;
  /** Stop at the first failing seed. */
  stopAtFailure: boolean;
  /** Do not print the trace of a replayed seed as it happens. */
  quiet: boolean;
  /** Run each seed twice: the same seed must give the same trace. */
  twice: boolean;
  /** Start no seed after this many minutes of real time. */
  minutes: number | undefined;
}

const USAGE = "use --seeds N [--from S] [--jobs J] [--seed-timeout SECONDS] [--stop] [--twice] [--minutes M], or --seed S [--quiet]; either with --mutant NAME";

/** How to replay a seed of this run (a mutant's run says which mutant: main.ts in its copy is told by MUTANT_ENV). */
const MUTANT_ENV = "SIM_MUTANT";
function replayCommand(seed: number): string {
  const mutant = process.env[MUTANT_ENV];
  return `npm run sim -- ${mutant === undefined ? "" : `--mutant ${mutant} `}--seed ${seed}`;
}

function parse(argv: readonly string[]): Options {
  const options: Options = { seeds: 0, from: undefined, seed: undefined, jobs: 1, seedTimeoutSeconds: 300, stopAtFailure: false, quiet: false, twice: false, minutes: undefined };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): number => {
      const text = argv[++i];
      const number = Number(text);
      if (text === undefined || !Number.isSafeInteger(number) || number < 0) throw new Error(`${flag} needs a non-negative integer, got ${JSON.stringify(text)}`);
      return number;
    };
    if (flag === "--seeds") options.seeds = value();
    else if (flag === "--from") options.from = value();
    else if (flag === "--seed") options.seed = value();
    else if (flag === "--jobs") options.jobs = Math.max(1, Math.min(value(), availableParallelism() * 2));
    else if (flag === "--seed-timeout") options.seedTimeoutSeconds = Math.max(1, value());
    else if (flag === "--stop") options.stopAtFailure = true;
    else if (flag === "--quiet") options.quiet = true;
    else if (flag === "--twice") options.twice = true;
    else if (flag === "--minutes") options.minutes = Math.max(1, value());
    else throw new Error(`unknown option ${JSON.stringify(flag)} (${USAGE})`);
  }
  if (options.seed === undefined && options.seeds === 0) throw new Error(`give --seeds N or --seed S (${USAGE})`);
  return options;
}

async function replay(seed: number, quiet: boolean): Promise<number> {
  guardDeterminism();
  const result = await runSeed(seed, { wholeTrace: true, ...(quiet ? {} : { echo: (line: string) => console.log(line) }) });
  console.log(`seed ${seed}: ${result.violation === undefined ? "passed" : `FAILED: ${result.violation}`}`);
  console.log(`trace ${result.traceHash} (${result.traceLines} lines), ${result.events} events, ${(result.simulatedMs / 1000).toFixed(1)} s simulated in ${(result.wallMs / 1000).toFixed(2)} s`);
  return result.violation === undefined ? 0 : 1;
}

/** One thread running seeds, one at a time, watched for a seed that never ends. */
class SeedThread {
  private worker: Worker;
  private current: { seed: number; done: (report: SeedReport) => void; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly timeoutMs: number) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = new Worker(new URL("./seed-thread.mjs", import.meta.url));
    worker.on("message", (report: SeedReport) => this.finish(report));
    worker.on("error", (error) => this.fail(`its thread failed: ${error.message}`));
    return worker;
  }

  run(seed: number): Promise<SeedReport> {
    return new Promise((done) => {
      const timer = setTimeout(() => this.fail(`no verdict within ${this.timeoutMs / 1000} s of real time: the world stopped advancing (an endless loop in a node's code?); replay it to see where`), this.timeoutMs);
      this.current = { seed, done, timer };
      this.worker.postMessage({ seed } satisfies SeedRequest);
    });
  }

  private finish(report: SeedReport): void {
    const current = this.current;
    if (current === undefined || current.seed !== report.seed) return;
    this.current = undefined;
    clearTimeout(current.timer);
    current.done(report);
  }

  private fail(why: string): void {
    const current = this.current;
    if (current === undefined) return;
    this.current = undefined;
    clearTimeout(current.timer);
    void this.worker.terminate();
    this.worker = this.spawn();
    current.done({ seed: current.seed, violation: why, traceHash: "", simulatedMs: 0, events: 0, wallMs: this.timeoutMs });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

async function many(options: Options): Promise<number> {
  const from = options.from ?? randomInt(0, 2 ** 40);
  const started = performance.now();
  const threads = Array.from({ length: options.jobs }, () => new SeedThread(options.seedTimeoutSeconds * 1000));
  let next = 0;
  let finished = 0;
  let failures = 0;
  let simulatedMs = 0;
  let stopping = false;
  let lastReport = started;
  const endsAt = options.minutes === undefined ? Infinity : started + options.minutes * 60_000;
  const work = async (thread: SeedThread): Promise<void> => {
    while (!stopping && next < options.seeds && performance.now() < endsAt) {
      const seed = from + next++;
      let report = await thread.run(seed);
      if (options.twice && report.traceHash !== "") {
        const again = await thread.run(seed);
        if (again.traceHash !== report.traceHash && again.violation === undefined) {
          report = { ...again, violation: `not deterministic: its trace was ${report.traceHash.slice(0, 16)}… then ${again.traceHash.slice(0, 16)}… (replay it twice and compare the traces)` };
        }
      }
      finished += 1;
      simulatedMs += report.simulatedMs;
      if (report.violation !== undefined) {
        failures += 1;
        console.log(`seed ${seed} FAILED: ${report.violation}`);
        console.log(`  replay it: ${replayCommand(seed)}`);
        if (options.stopAtFailure) stopping = true;
      }
      const now = performance.now();
      if (now - lastReport > 30_000) {
        lastReport = now;
        console.log(`… ${finished} seeds, ${(finished / ((now - started) / 1000)).toFixed(2)} seeds/s, ${failures} failed`);
      }
    }
  };
  await Promise.all(threads.map(work));
  await Promise.all(threads.map((thread) => thread.close()));
  const seconds = (performance.now() - started) / 1000;
  console.log(`${finished} seeds from ${from} on ${options.jobs} thread(s): ${failures} failed; ${seconds.toFixed(1)} s, ${(finished / seconds).toFixed(2)} seeds/s, ${(simulatedMs / 1000 / seconds).toFixed(0)} simulated s per s`);
  return failures === 0 ? 0 : 1;
}

/** Runs these arguments (without --mutant) in a copy of the code with the mutant's bug. */
function inMutant(name: string, argv: readonly string[]): number {
  const mutant = MUTANTS.find((candidate) => candidate.name === name);
  if (mutant === undefined) throw new Error(`no mutant ${JSON.stringify(name)}; there are ${MUTANTS.map((m) => m.name).join(", ")}`);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const copy = mutatedCopy(root, mutant);
  console.log(`mutant ${mutant.name}: ${mutant.bug} (${mutant.changes.map((change) => change.file).join(", ")}, in ${copy})`);
  try {
    const run = spawnSync(process.execPath, ["--import", "tsx", path.join(copy, "test", "simulation", "main.ts"), ...argv], { stdio: "inherit", cwd: copy, env: { ...process.env, [MUTANT_ENV]: mutant.name } });
    return run.status ?? 1;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
const mutantAt = argv.indexOf("--mutant");
if (mutantAt >= 0) {
  const name = argv[mutantAt + 1] ?? "";
  process.exitCode = inMutant(name, [...argv.slice(0, mutantAt), ...argv.slice(mutantAt + 2)]);
} else {
  const options = parse(argv);
  process.exitCode = options.seed !== undefined ? await replay(options.seed, options.quiet) : await many(options);
}
