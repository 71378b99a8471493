/**
 * Runs `npm run sim` (main.ts) as a child process for the simulation's tests: the simulation guards
 * its process against real timers and randomness (determinism-guard.ts), which a test runner needs,
 * so it never runs inside the runner's own process.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The CI's budget of seeds: 0 … BUDGET_SEEDS-1 must pass (docs/simulation.md). */
export const BUDGET_SEEDS = 300;

/**
 * The seeds within which each mutant must fail: 0 … MUTANT_BUDGET_SEEDS-1, a run that stops at
 * the first failure. Larger than BUDGET_SEEDS because some bugs need a rare schedule (a snapshot
 * due by count between a batch and its replies, then a takeover, then a retry), and which seeds
 * draw it moves with any change to what the cluster sends when (docs/simulation.md, "Teeth").
 */
export const MUTANT_BUDGET_SEEDS = 1000;

export interface SimRun {
  /** The exit status: 0 when every seed passed. */
  readonly status: number | null;
  readonly output: string;
}

export function runSim(args: readonly string[]): Promise<SimRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "test/simulation/main.ts"), ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
}

/** The lines of a run that report a failing seed. */
export function failures(run: SimRun): string[] {
  return run.output.split("\n").filter((line) => /^seed \d+:? FAILED/.test(line));
}
