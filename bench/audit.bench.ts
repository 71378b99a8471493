/**
 * `npm run bench:audit`: the audit CLI (`market-service replay` and `verify`, the user's third use
 * case) on a data directory of `--shards` shards holding `--commands` claims over `--markets`
 * markets, each market on the shard the service would place it on. The directory is written
 * through ShardCore on the real log (batches of 1,000 commands, one fdatasync each) with a snapshot
 * per shard, like a stopped service's. Each command runs the built CLI (`dist/gateway/cli/cli.js`) in a
 * fresh process (build first: `npm run bench:audit` does) with `--threads 1`, then `--threads <shards>`, and the outputs must agree: the same
 * markets and record hashes, every market reconstructed. Writes bench/results/<date>-audit-<commands>.json.
 *
 *   npm run bench:audit -- [--commands 300000] [--markets 1000] [--shards 2]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ReplayResult, VerifyResult } from "../engine/replay/audit-replay.js";
import { numberArg } from "./args.js";
import { writeShardedClaimLog } from "./claim-log.js";
import { freshResultStem } from "./result-stem.js";

const COMMANDS = numberArg("commands", 300_000);
const MARKETS = numberArg("markets", 1_000);
const SHARDS = numberArg("shards", 2);
const REPO = path.resolve(import.meta.dirname, "..");
const CLI = path.join(REPO, "dist", "gateway", "cli", "cli.js");

interface Timed<T> {
  threads: number;
  wallSeconds: number;
  result: T;
}

function runCli<T>(verb: "replay" | "verify", dataDir: string, threads: number): Timed<T> {
  const started = performance.now();
  const run = spawnSync(process.execPath, [CLI, verb, "--data", dataDir, "--json", "--threads", String(threads)], { encoding: "utf8", maxBuffer: 1 << 30 });
  const wallSeconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${verb} --threads ${threads} exited ${run.status}: ${run.stderr}`);
  return { threads, wallSeconds, result: JSON.parse(run.stdout) as T };
}

function hashesOf(result: ReplayResult): string {
  return JSON.stringify(result.markets.map((m) => [m.marketId, m.recordHash, m.stateReconstructed]));
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), "audit-bench-"));
  try {
    const dataDir = path.join(workDir, "data");
    const writeStarted = performance.now();
    await writeShardedClaimLog(dataDir, { commands: COMMANDS, markets: MARKETS, shards: SHARDS });
    process.stderr.write(`wrote ${(COMMANDS + 2 * MARKETS).toLocaleString("en-US")} commands over ${SHARDS} shard(s) in ${((performance.now() - writeStarted) / 1000).toFixed(1)} s\n`);
    const parallel = Math.max(2, SHARDS);
    const replays = [runCli<ReplayResult>("replay", dataDir, 1), runCli<ReplayResult>("replay", dataDir, parallel)];
    const verifies = [runCli<VerifyResult>("verify", dataDir, 1), runCli<VerifyResult>("verify", dataDir, parallel)];
    const expected = hashesOf(replays[0]?.result as ReplayResult);
    const problems: string[] = [];
    for (const run of replays) if (hashesOf(run.result) !== expected) problems.push(`replay --threads ${run.threads} gave other hashes`);
    for (const run of verifies) {
      if (!run.result.ok) problems.push(`verify --threads ${run.threads}: ${run.result.problem ?? "failed"}`);
      else if (hashesOf(run.result.replay) !== expected) problems.push(`verify --threads ${run.threads} gave other hashes`);
    }
    if (!(replays[0]?.result.markets.every((m) => m.stateReconstructed) ?? false)) problems.push("a market did not reconstruct");
    const rows = [...replays.map((r) => ({ verb: "replay", threads: r.threads, wallSeconds: r.wallSeconds, commandsPerSecond: r.result.commandsPerSecond })),
      ...verifies.map((r) => ({ verb: "verify", threads: r.threads, wallSeconds: r.wallSeconds, commandsPerSecond: r.result.replay.commandsPerSecond }))];
    for (const row of rows) {
      process.stdout.write(`${row.verb} --threads ${row.threads}: ${row.wallSeconds.toFixed(1)} s (the CLI reports ${row.commandsPerSecond.toLocaleString("en-US")} commands/s)\n`);
    }
    process.stdout.write(problems.length === 0 ? "outputs agree: same markets and record hashes, all reconstructed\n" : `FAILED: ${problems.join("; ")}\n`);
    const resultsDir = path.join(REPO, "bench", "results");
    mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${freshResultStem(`audit-${COMMANDS}`)}.json`);
    const machine = { cores: os.availableParallelism(), node: process.version, kernel: os.release() };
    writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), machine, settings: { commands: COMMANDS, markets: MARKETS, shards: SHARDS }, rows, passed: problems.length === 0, problems }, null, 2)}\n`);
    process.stderr.write(`results: ${path.relative(REPO, file)}\n`);
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
