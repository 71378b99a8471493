/**
 * The simulation's teeth (docs/simulation.md "Teeth"): each known bug, put back into a throwaway
 * copy of the code (mutants.ts; the code under test is never touched), is found within the first
 * MUTANT_BUDGET_SEEDS seeds, which begin with the seeds the unchanged code passes (simulation.test.ts).
 */
import { describe, expect, it } from "vitest";
import { MUTANTS } from "./mutants.js";
import { MUTANT_BUDGET_SEEDS, failures, runSim } from "./sim-cli.js";

/** What each mutant's first failure must say: the invariant that catches it. */
const CAUGHT_BY: Readonly<Record<string, RegExp>> = {
  "served-before-restored": /executed twice/,
  "entries-snapshot-not-loaded": /executed twice/,
  "entries-snapshot-before-replies": /executed twice/,
  "append-without-expected-sequence": /breaks at message|two nodes appended/,
  // The partition is fenced from the stale owner and refused to the rightful one (never served
  // again: a request without an answer, a read that fails, a deadline that never fires), or both
  // reopen a stream at the epoch each believes its own and both append.
  "renewed-at-stale-epoch": /still had no answer|could not read|never fired|two nodes appended/,
};

describe("the simulation finds each known bug within its budget", () => {
  it("knows what catches every mutant", () => {
    expect(MUTANTS.map((mutant) => mutant.name).sort()).toEqual(Object.keys(CAUGHT_BY).sort());
  });

  it.each(MUTANTS.map((mutant) => mutant.name))("%s", async (name) => {
    const run = await runSim(["--mutant", name, "--seeds", String(MUTANT_BUDGET_SEEDS), "--from", "0", "--stop"]);
    const found = failures(run);
    expect(found.length, run.output).toBe(1);
    expect(found[0]).toMatch(CAUGHT_BY[name] as RegExp);
    expect(run.output).toContain(`--mutant ${name} --seed`);
    expect(run.status).toBe(1);
  }, 300_000);
});
