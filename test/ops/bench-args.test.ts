/**
 * bench/args.ts's `refuseUnknownArgs`, through the speed guard (bench/guard.ts) and the replay guard
 * (bench/replay-guard.ts): a mistyped option stops the run before any work with exit code 2 and the
 * usage, instead of a long run that ignored it; `--help` prints the usage and exits 0. Both stop
 * before anything is built or started.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const REPO = path.join(import.meta.dirname, "..", "..");

/** One of the bench scripts, run as `npm run` runs it (without the build before). */
function bench(script: string, ...args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", path.join("bench", script), ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 });
}

describe("the guards' options", () => {
  it("refuses an option it does not know, naming it and only it, before any work", () => {
    // Every option the usage names, with a value, beside one it does not: only the unknown one is named.
    const known = ["--against", "5d6d13a", "--candidate", "HEAD", "--rounds", "3", "--capacities", "1000", "--participants", "10", "--seconds", "1", "--connections", "1", "--warm-up", "1", "--profile", "p", "--perf", "q", "--port", "1", "--candidate-env", "A=1"];
    const run = bench("guard.ts", ...known, "--rouns", "3");
    expect(run.status).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe("unknown option --rouns");
    expect(run.stderr).toContain("usage: npm run bench:guard");
  });

  it("the replay guard refuses an option it does not know too", () => {
    const run = bench("replay-guard.ts", "--against", "5d6d13a", "--pairs", "1", "--pairz", "1");
    expect(run.status).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe("unknown option --pairz");
  });

  it("prints its usage for --help and exits 0", () => {
    const run = bench("guard.ts", "--help");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("--capacities");
  });
});
