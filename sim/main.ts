/**
 * `npm run sim -- --seeds N [--from S0]`: runs N seeds (S0, S0+1, …; S0 random unless given) and
 * prints seeds/s and every failure with its seed. `npm run sim -- --seed S`: replays seed S exactly
 * and prints its whole trace (docs/simulation.md: how to read it). Exit status 1 when a seed fails.
 */
import { randomInt } from "node:crypto";
import { runSeed, type SeedResult } from "./run-seed.js";
import { guardDeterminism } from "./determinism-guard.js";

interface Options {
  seeds: number;
  from: number | undefined;
  seed: number | undefined;
  /** Stop at the first failing seed. */
  stopAtFailure: boolean;
  /** Do not print the trace of a replayed seed as it happens. */
  quiet: boolean;
}

function parse(argv: readonly string[]): Options {
  const options: Options = { seeds: 0, from: undefined, seed: undefined, stopAtFailure: false, quiet: false };
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
    else if (flag === "--stop") options.stopAtFailure = true;
    else if (flag === "--quiet") options.quiet = true;
    else throw new Error(`unknown option ${JSON.stringify(flag)} (use --seeds N [--from S] [--stop], or --seed S [--quiet])`);
  }
  if (options.seed === undefined && options.seeds === 0) throw new Error("give --seeds N or --seed S");
  return options;
}

function report(result: SeedResult): void {
  console.log(`seed ${result.seed} FAILED: ${result.violation ?? ""}`);
  console.log(`  replay it: npm run sim -- --seed ${result.seed}`);
}

async function replay(seed: number, quiet: boolean): Promise<number> {
  const result = await runSeed(seed, { wholeTrace: true, ...(quiet ? {} : { echo: (line: string) => console.log(line) }) });
  console.log(`seed ${seed}: ${result.violation === undefined ? "passed" : `FAILED: ${result.violation}`}`);
  console.log(`trace ${result.traceHash} (${result.traceLines} lines), ${result.events} events, ${(result.simulatedMs / 1000).toFixed(1)} s simulated in ${(result.wallMs / 1000).toFixed(2)} s`);
  return result.violation === undefined ? 0 : 1;
}

async function many(options: Options): Promise<number> {
  const from = options.from ?? randomInt(0, 2 ** 40);
  const started = performance.now();
  let failures = 0;
  let simulatedMs = 0;
  let lastReport = started;
  for (let i = 0; i < options.seeds; i++) {
    const result = await runSeed(from + i);
    simulatedMs += result.simulatedMs;
    if (result.violation !== undefined) {
      failures += 1;
      report(result);
      if (options.stopAtFailure) break;
    }
    const now = performance.now();
    if (now - lastReport > 10_000) {
      lastReport = now;
      console.log(`… ${i + 1} seeds, ${((i + 1) / ((now - started) / 1000)).toFixed(2)} seeds/s`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`${options.seeds} seeds from ${from}: ${failures} failed; ${seconds.toFixed(1)} s, ${(options.seeds / seconds).toFixed(2)} seeds/s, ${(simulatedMs / 1000 / seconds).toFixed(0)} simulated s per s`);
  return failures === 0 ? 0 : 1;
}

const options = parse(process.argv.slice(2));
guardDeterminism();
process.exitCode = options.seed !== undefined ? await replay(options.seed, options.quiet) : await many(options);
