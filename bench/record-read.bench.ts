/**
 * `npm run bench:record-read`: what reading a hot market's record costs the claims of that market.
 * A record is rebuilt by replaying the market's logged commands (docs/runtime.md), a long piece of
 * work for a market of many commands; this measures whether claims wait for it.
 *
 * The real service (built output, durable, SHARDS=1 so every market shares the one shard) gets
 * `--participants` bearer tokens and one direct-claim market of capacity 1,000; an unpaced storm of
 * `--fill-seconds` fills its record (every claim is recorded, accepted or refused). Then two paced
 * runs of `--seconds` at `--rate` claims/s on the same market, the same driver (wrk, claims.lua):
 * first alone, then while one reader fetches `GET /v1/markets/hot/record` again and again, waiting
 * `--read-gap-ms` between fetches. Reported: claim latency percentiles of both runs, and the
 * record fetches' own times. Writes bench/results/<date>-record-read.json.
 *
 *   npm run bench:record-read -- [--participants 2000] [--fill-seconds 6] [--seconds 10] [--rate 1000] [--read-gap-ms 100]
 *   STORM_DIST=<another checkout>/dist node --import tsx bench/record-read.bench.ts   (an older build, for an A/B)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { numberArg } from "./args.js";
import { REPO, runWrk, transportFailures, type WrkResult } from "./storm/processes.js";
import { createMarket, pathsFile, setUpService } from "./storm/setup.js";
import { freshResultStem } from "./result-stem.js";
import { percentile } from "./percentile.js";

const PARTICIPANTS = numberArg("participants", 2_000);
const FILL_SECONDS = numberArg("fill-seconds", 6);
const SECONDS = numberArg("seconds", 10);
const RATE = numberArg("rate", 1_000);
const READ_GAP_MS = numberArg("read-gap-ms", 100);
const CONNECTIONS = 64;
const MARKET = "hot";

function checked(label: string, result: WrkResult): WrkResult {
  const { fiveHundreds, connectionErrors } = transportFailures(result);
  if (fiveHundreds > 0 || connectionErrors > 0) throw new Error(`${label}: ${fiveHundreds} responses ≥ 500, ${connectionErrors} connection errors`);
  return result;
}

const workDir = mkdtempSync(path.join(os.tmpdir(), "record-read-"));
const setup = await setUpService({ workDir, label: "record-read", participants: PARTICIPANTS, port: 18_520, env: { SHARDS: "1" } });
try {
  await createMarket(setup, MARKET, 1_000);
  const paths = pathsFile(workDir, "hot", [`/v1/markets/${MARKET}/direct-claims`]);
  const env = { STORM_TOKENS: setup.tokensFile, STORM_PATHS: paths };
  const fill = checked("fill", await runWrk({ url: setup.url, path: "/", threads: 1, connections: CONNECTIONS, durationSeconds: FILL_SECONDS, env }));
  process.stderr.write(`fill: ${fill.requests} claims at ${Math.round(fill.requestsPerSecond)} req/s\n`);
  const paced = { ...env, STORM_RATE: String(RATE), STORM_CONNECTIONS: String(CONNECTIONS) };

  const alone = checked("claims alone", await runWrk({ url: setup.url, path: "/", threads: 1, connections: CONNECTIONS, durationSeconds: SECONDS, env: paced }));

  const readTimesMs: number[] = [];
  let recordCommands = 0;
  let reading = true;
  const reader = (async () => {
    while (reading) {
      const started = performance.now();
      const response = await fetch(`${setup.url}/v1/markets/${MARKET}/record`, { headers: { authorization: `Bearer ${setup.creatorToken}` } });
      const body = (await response.json()) as { commands?: unknown[]; integrity?: { stateReconstructed?: boolean } };
      if (response.status !== 200 || body.integrity?.stateReconstructed !== true) throw new Error(`record read: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
      readTimesMs.push(performance.now() - started);
      recordCommands = body.commands?.length ?? 0;
      await new Promise((resolve) => setTimeout(resolve, READ_GAP_MS));
    }
  })();
  let withReads: WrkResult;
  try {
    withReads = checked("claims with record reads", await runWrk({ url: setup.url, path: "/", threads: 1, connections: CONNECTIONS, durationSeconds: SECONDS, env: paced }));
  } finally {
    reading = false;
    await reader;
  }
  readTimesMs.sort((a, b) => a - b);

  const latency = (r: WrkResult) => ({ requestsPerSecond: Math.round(r.requestsPerSecond), ...r.latencyUs });
  const result = {
    date: new Date().toISOString(),
    build: process.env["STORM_DIST"] ?? "dist",
    machine: { cores: os.availableParallelism(), node: process.version, kernel: os.release() },
    options: { participants: PARTICIPANTS, fillSeconds: FILL_SECONDS, seconds: SECONDS, rate: RATE, readGapMs: READ_GAP_MS, connections: CONNECTIONS },
    recordCommands,
    claimsAloneUs: latency(alone),
    claimsWithReadsUs: latency(withReads),
    recordReadsMs: { count: readTimesMs.length, p50: Math.round(percentile(readTimesMs, 50)), max: Math.round(readTimesMs[readTimesMs.length - 1] ?? Number.NaN) },
  };
  console.log(JSON.stringify(result, null, 2));
  const resultsDir = path.join(REPO, "bench", "results");
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, `${freshResultStem("record-read")}.json`), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await setup.stop();
  rmSync(workDir, { recursive: true, force: true });
}
