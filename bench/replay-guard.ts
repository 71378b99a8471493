/**
 * The replay against a pinned reference (issue 36: `bench:recovery`'s replay at least 0.95 × the
 * reference's): each build's own `bench/recovery.bench.ts --skip-memory --replay-rounds 0`, run in
 * its own tree, alternating, `--pairs` times; prints this tree ÷ the reference per pair, the median
 * and the range. One run of either spreads by a fifth on a 2-core VM, so one pair decides nothing.
 *   npm run bench:replay-guard -- [--against <commit>] [--pairs 6]
 *
 * The reference is built once in `.tmp/guard/<commit>/` as the speed guard builds it (builds.ts);
 * the candidate is this working tree (`npm run bench:replay-guard` builds its dist/ first: the
 * recovery bench's start phase runs the built service). Both builds' recovery benches print the
 * line `replay:   open without snapshot: … = N commands/s`, which is the figure compared; the file
 * each run writes under its tree's bench/results is removed once read, and this run's pairs go to
 * bench/results/<date>-replay-guard.json.
 *
 * A benchmark, never a test: run it on a machine with nothing else to do.
 */
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { numberArg, refuseUnknownArgs, stringArg } from "./args.js";
import { buildOf, workingTreeName } from "./builds.js";
import { PINNED_REFERENCE } from "./guard-reference.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";
import { pairedRounds } from "./storm/paired-rounds.js";
import { REPO } from "./storm/processes.js";

const AGAINST = stringArg("against", PINNED_REFERENCE);
const PAIRS = numberArg("pairs", 6);
refuseUnknownArgs("usage: npm run bench:replay-guard -- [--against <commit>] [--pairs 6]");

const REPLAY_LINE = /^replay:\s+open without snapshot: .* = ([\d,]+) commands\/s/m;
const RESULT_LINE = /^result:\s+(\S+)$/m;

/** One recovery bench in `tree`: its replay in commands per second. */
function replayOf(tree: string): number {
  const run = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", path.join("bench", "recovery.bench.ts"), "--skip-memory", "--replay-rounds", "0"], { cwd: tree, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`recovery bench in ${tree} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const replay = REPLAY_LINE.exec(run.stdout);
  if (replay === null) throw new Error(`recovery bench in ${tree} printed no replay line`);
  const written = RESULT_LINE.exec(run.stdout);
  if (written !== null) rmSync(path.resolve(tree, written[1] as string), { force: true });
  return Number((replay[1] as string).replaceAll(",", ""));
}

const reference = buildOf(AGAINST);
const referenceTree = path.dirname(reference.dist);
const candidate = workingTreeName();
const summary = await pairedRounds({
  rounds: PAIRS,
  measure: async (side, round) => {
    const perSecond = replayOf(side === "a" ? referenceTree : REPO);
    console.log(`pair ${round}: ${side === "a" ? "reference" : "candidate"} ${Math.round(perSecond).toLocaleString("en-US")} commands/s`);
    return perSecond;
  },
  score: (perSecond) => perSecond,
});
const ratios = summary.rounds.map((pair) => pair.ratio.toFixed(3));
console.log(`candidate ${candidate} ÷ reference ${reference.commit.slice(0, 12)}, replay per pair: ${ratios.join(", ")}`);
console.log(`median ${summary.median.toFixed(3)} (${summary.min.toFixed(3)}–${summary.max.toFixed(3)}) over ${PAIRS} pairs`);
const stem = freshResultStem("replay-guard");
writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify({ against: AGAINST, reference: reference.commit, candidate, pairs: summary.rounds.map(({ round, a, b, ratio }) => ({ pair: round, referenceCommandsPerSecond: a, candidateCommandsPerSecond: b, ratio })), median: summary.median, min: summary.min, max: summary.max }, null, 2)}\n`);
console.log(`report: ${path.relative(REPO, path.join(RESULTS_DIR, stem))}.json`);
