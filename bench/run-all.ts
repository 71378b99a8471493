/**
 * `npm run bench`: every benchmark, one after another (never in parallel: on a 2-core machine two
 * benchmarks at once measure each other), each in its own process, bounded in time.
 *
 *   npm run bench                      engine, storage, recovery (P4/P5), Merkle tree, audit CLI, record reads, MCP,
 *                                      storm (floor, P1, P3), the architecture's ceiling (P1 and P3), soak
 *   npm run bench -- --only storm,mcp  a subset, by name
 *   npm run bench -- --quick           smaller sizes and shorter runs, to see that every bench runs
 *
 * Each benchmark prints its own figures, and most write bench/results/<date>-<name>.* (bench/README.md
 * lists which). `bench:audit-ab` compares two builds and is not part of it. The exit code is non-zero
 * when any benchmark failed, including a storm or soak whose checks failed.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import * as path from "node:path";

const REPO = path.resolve(import.meta.dirname, "..");
const quick = process.argv.includes("--quick");
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt > 0 ? new Set((process.argv[onlyAt + 1] ?? "").split(",")) : undefined;

interface BenchStep {
  name: string;
  /** node arguments (the script and its options). */
  args: string[];
  /** A hard bound: the step is killed (and counted as failed) after this long. */
  timeoutSeconds: number;
  /** The benches that run the built service or CLI (`dist/`) build first. */
  needsBuild?: boolean;
}

const TSX = ["--import", "tsx"];
const STEPS: BenchStep[] = [
  { name: "engine", args: [...TSX, "bench/engine.bench.ts"], timeoutSeconds: 300 },
  { name: "storage", args: [...TSX, "bench/storage.bench.ts"], timeoutSeconds: 600 },
  {
    name: "recovery",
    args: ["--expose-gc", ...TSX, "bench/recovery.bench.ts", ...(quick ? ["--commands", "200000", "--skip-memory"] : [])],
    timeoutSeconds: 1_800,
    needsBuild: true,
  },
  { name: "merkle", args: ["--expose-gc", ...TSX, "bench/merkle.bench.ts", ...(quick ? ["--leaves", "100000", "--proofs", "1000"] : [])], timeoutSeconds: 600 },
  { name: "audit", args: [...TSX, "bench/audit.bench.ts", ...(quick ? ["--commands", "50000", "--markets", "200"] : [])], timeoutSeconds: 1_200, needsBuild: true },
  {
    name: "record-read",
    args: [...TSX, "bench/record-read.bench.ts", ...(quick ? ["--participants", "500", "--fill-seconds", "3", "--seconds", "5"] : [])],
    timeoutSeconds: 600,
    needsBuild: true,
  },
  { name: "mcp", args: [...TSX, "bench/mcp.bench.ts", ...(quick ? ["--seconds", "2", "--rounds", "1"] : [])], timeoutSeconds: 600 },
  {
    name: "storm",
    args: [...TSX, "bench/storm/run-storm.ts", "--scenario", "all", ...(quick ? ["--participants", "5000", "--p3-participants", "2000", "--seconds", "5"] : [])],
    timeoutSeconds: 1_800,
    needsBuild: true,
  },
  {
    name: "ceiling",
    args: [...TSX, "bench/storm/ceiling.ts", ...(quick ? ["--rounds", "1", "--seconds", "5"] : [])],
    timeoutSeconds: 900,
    needsBuild: true,
  },
  { name: "ceiling-p3", args: [...TSX, "bench/storm/ceiling.ts", "--scenario", "p3", ...(quick ? ["--rounds", "1", "--seconds", "5"] : [])], timeoutSeconds: 600 },
  {
    name: "soak",
    args: ["--experimental-websocket", ...TSX, "bench/soak.ts", ...(quick ? ["--minutes", "1"] : [])],
    timeoutSeconds: 1_200,
    needsBuild: true,
  },
];

async function run(command: string, args: string[], timeoutSeconds: number): Promise<number | null> {
  const child = spawn(command, args, { cwd: REPO, stdio: "inherit" });
  const timer = setTimeout(() => {
    process.stderr.write(`bench: ${args.join(" ")} exceeded ${timeoutSeconds} s; stopping it\n`);
    child.kill("SIGTERM");
  }, timeoutSeconds * 1000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return code;
}

const summary: Array<{ name: string; ok: boolean; seconds: number }> = [];
for (const step of STEPS) {
  if (only !== undefined && !only.has(step.name)) continue;
  process.stderr.write(`\n=== bench: ${step.name} ===\n`);
  const started = performance.now();
  let code: number | null = 0;
  if (step.needsBuild === true) code = await run("npm", ["run", "-s", "build"], 300);
  if (code === 0) code = await run(process.execPath, step.args, step.timeoutSeconds);
  summary.push({ name: step.name, ok: code === 0, seconds: (performance.now() - started) / 1000 });
}

process.stderr.write("\n=== bench: summary ===\n");
for (const s of summary) process.stderr.write(`${s.ok ? "ok    " : "FAILED"} ${s.name.padEnd(11)} ${s.seconds.toFixed(0)} s\n`);
if (summary.length === 0) process.stderr.write(`nothing ran: --only takes ${STEPS.map((s) => s.name).join(",")}\n`);
if (summary.length === 0 || summary.some((s) => !s.ok)) process.exitCode = 1;
