/**
 * `npm run bench:soak`: does the service's memory stay flat under a long mixed load?
 *
 * Starts the built service (`dist/gateway/main.js`, or `--server <build dir>`) in its own process on
 * a fresh data directory, drives the mixed load of bench/soak/load.ts for `--minutes` (default 10),
 * and every `--sample-seconds` (default 10) samples the process's RSS (/proc: the median of one
 * reading a second since the previous sample) and the gateway's V8 heap (its Prometheus metrics).
 * Then stops it, starts a fresh process on the same data, and samples that too: what the data alone
 * costs.
 *
 * Pass: the last half of the run grows the RSS and the live heap by less than 10% (bench/soak/
 * growth.ts), with no 5xx, no transport error and no status the spec does not allow. Most of the
 * load is reads and refused requests, which must not grow memory; the recorded commands are paced
 * (`--recorded-per-second`) so that the state they must leave behind stays a small, known part.
 *
 * Writes bench/results/<date>-<label>.json and .svg (the curves). Options: --minutes,
 * --sample-seconds, --server, --label (default "soak"), --recorded-per-second (20),
 * --actors-per-second (1), --readers (24), --writers (4), --active-actors (64), --token-ttl (60 s, so
 * that tokens expire and are renewed during the run), --large-subject-share (0.1) and
 * --large-subject-bytes (64 KiB: markets whose subject carries that much data), --seed,
 * --heap-snapshots "2,8" (minutes at which the service writes a heap snapshot: SIGUSR2 with
 * --heapsnapshot-signal, files in the work directory, which is then kept; a snapshot raises the RSS
 * for the rest of the run, so do not read memory figures off such a run), --keep-data, --no-gc, and
 * --glibc-malloc-defaults (both below).
 *
 * The gateway's heap is read twice per sample: as it is, and right after a full collection asked
 * for through the V8 inspector (the service runs with --inspect=127.0.0.1:0; bench/soak/
 * inspector-gc.ts): the heap check reads the second, the live heap. `--no-gc` leaves the service
 * alone and checks the raw heap used. The service gets MALLOC_MMAP_THRESHOLD_=131072 as the deployed
 * unit sets it (docs/deploy.md, "Memory"); `--glibc-malloc-defaults` leaves glibc at its defaults.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir, totalmem } from "node:os";
import * as path from "node:path";
import { execSync } from "node:child_process";
import { freePort } from "../scripts/free-port.js";
import { numberArg, stringArg } from "./args.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";
import { lastHalfGrowth, type Growth } from "./soak/growth.js";
import { SoakLoad, type ActionCount, type RequestKind } from "./soak/load.js";
import { collectGarbage, inspectorUrl } from "./soak/inspector-gc.js";
import { RssWindow, sampleMemory, type MemorySample, type MetricsAccess } from "./soak/memory-sample.js";
import { REPO, startService, type Started } from "./storm/processes.js";
import { svg } from "./storm/report.js";

const MINUTES = numberArg("minutes", 10);
const SAMPLE_SECONDS = numberArg("sample-seconds", 10);
const SERVER = path.resolve(REPO, stringArg("server", "dist"));
const LABEL = stringArg("label", "soak");
const RECORDED_PER_SECOND = numberArg("recorded-per-second", 20);
const ACTORS_PER_SECOND = numberArg("actors-per-second", 1);
const READERS = numberArg("readers", 24);
const WRITERS = numberArg("writers", 4);
const ACTIVE_ACTORS = numberArg("active-actors", 64);
const TOKEN_TTL_SECONDS = numberArg("token-ttl", 60);
const SEED = numberArg("seed", 1);
const LARGE_SUBJECT_SHARE = numberArg("large-subject-share", 0.1);
const LARGE_SUBJECT_BYTES = numberArg("large-subject-bytes", 64 * 1024);
const HEAP_SNAPSHOT_MINUTES = stringArg("heap-snapshots", "")
  .split(",")
  .filter((m) => m !== "")
  .map(Number);
const KEEP_DATA = process.argv.includes("--keep-data") || HEAP_SNAPSHOT_MINUTES.length > 0;
/** Without it, no inspector and no forced collection: the heap check then reads the raw heap used. */
const FORCE_GC = !process.argv.includes("--no-gc");
/**
 * The service runs with glibc's mmap threshold pinned, as docs/market-service.service deploys it
 * (docs/deploy.md, "Memory"): `--glibc-malloc-defaults` runs it without, as a bare `npm start` does.
 */
const MALLOC_ENV: Record<string, string> = process.argv.includes("--glibc-malloc-defaults") ? {} : { MALLOC_MMAP_THRESHOLD_: "131072" };
/** How long the fresh process runs idle before its RSS is read, and for how long it is read. */
const FRESH_SETTLE_SECONDS = numberArg("fresh-settle-seconds", 10);
const GROWTH_LIMIT = 0.1;
const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The commit checked out where the build lives, when the run starts, with "+changes" when the work
 * tree differs from it. `npm run bench:soak` builds first, so that is what runs; a build directory
 * passed with --server is what its own checkout built last.
 */
function gitCommitOf(dir: string): string {
  const git = (args: string) => execSync(`git ${args}`, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    return `${git("rev-parse --short HEAD")}${git("status --porcelain --untracked-files=no") === "" ? "" : "+changes"}`;
  } catch {
    return "unknown";
  }
}

function mb(bytes: number): number {
  return Math.round((bytes / MB) * 10) / 10;
}

function summaryOf(s: MemorySample): { rss: number; heapUsed: number; heapTotal: number; heapLive: number | null } {
  return { rss: mb(s.rssMedianBytes), heapUsed: mb(s.heapUsedBytes), heapTotal: mb(s.heapTotalBytes), heapLive: s.heapLiveBytes === null ? null : mb(s.heapLiveBytes) };
}

function pct(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

async function startSoakService(dataDir: string, staticMcpToken: string, metricsToken: string, nodeArgs: readonly string[]): Promise<Started & { url: string }> {
  return startService(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      AUTH_TOKEN_TTL: String(TOKEN_TTL_SECONDS),
      // No configured secret: the service creates the bootstrap operator in DATA_DIR/operator.secret.
      SERVICE_HMAC_SECRETS: "",
      SERVICE_HMAC_SECRETS_FILE: "",
      SERVICE_OPERATOR_ACTORS: "",
      MCP_STATIC_TOKENS: `${staticMcpToken}=soak-mcp-static`,
      // GET /metrics needs a credential (decisions.md T10): the bench reads the gauges with this one.
      METRICS_TOKEN: metricsToken,
      ...MALLOC_ENV,
    },
    await freePort(),
    nodeArgs,
    SERVER,
  );
}

function pidOf(service: Started): number {
  const pid = service.process.pid;
  if (pid === undefined) throw new Error("the service process has no pid");
  return pid;
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

function mixSummary(counts: ReadonlyMap<string, ActionCount>): { byKind: Record<RequestKind, number>; total: number; fiveHundreds: number; transportErrors: number; unexpected: number } {
  const byKind: Record<RequestKind, number> = { recorded: 0, identity: 0, read: 0, refused: 0 };
  let fiveHundreds = 0;
  let transportErrors = 0;
  let unexpected = 0;
  for (const count of counts.values()) {
    byKind[count.kind] += count.requests;
    unexpected += count.unexpected;
    for (const [status, n] of Object.entries(count.statuses)) {
      if (status === "error") transportErrors += n;
      else if (Number(status) >= 500) fiveHundreds += n;
    }
  }
  return { byKind, total: Object.values(byKind).reduce((a, b) => a + b, 0), fiveHundreds, transportErrors, unexpected };
}

async function chart(samples: readonly MemorySample[], fresh: MemorySample | undefined): Promise<string> {
  const values: Array<{ minute: number; series: string; MB: number }> = [];
  for (const s of samples) {
    const minute = Math.round((s.atSeconds / 60) * 100) / 100;
    values.push({ minute, series: "RSS (median of 10 s)", MB: mb(s.rssMedianBytes) });
    values.push({ minute, series: "heap used (gateway)", MB: mb(s.heapUsedBytes) });
    values.push({ minute, series: "heap total (gateway)", MB: mb(s.heapTotalBytes) });
    if (s.heapLiveBytes !== null) values.push({ minute, series: "heap live after full GC (gateway)", MB: mb(s.heapLiveBytes) });
  }
  const layers: object[] = [
    {
      mark: { type: "line", point: true },
      encoding: {
        x: { field: "minute", type: "quantitative", title: "minutes of load" },
        y: { field: "MB", type: "quantitative", title: "MB" },
        color: { field: "series", type: "nominal", title: null, legend: { labelLimit: 320 } },
      },
    },
  ];
  if (fresh !== undefined) {
    layers.push({
      data: { values: [{ MB: mb(fresh.rssMedianBytes), label: `fresh process on the same data: RSS ${mb(fresh.rssMedianBytes)} MB` }] },
      layer: [
        { mark: { type: "rule", strokeDash: [4, 4], color: "gray" }, encoding: { y: { field: "MB", type: "quantitative" } } },
        { mark: { type: "text", align: "left", dx: 4, dy: -6, color: "gray" }, encoding: { y: { field: "MB", type: "quantitative" }, x: { value: 0 }, text: { field: "label" } } },
      ],
    });
  }
  return svg({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: `Service memory under the soak's mixed load (${LABEL}, ${path.relative(REPO, SERVER) || SERVER})`,
    width: 640,
    height: 300,
    data: { values },
    layer: layers,
  } as Parameters<typeof svg>[0]);
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(path.join(tmpdir(), "soak-"));
  const dataDir = path.join(workDir, "data");
  const staticMcpToken = randomBytes(32).toString("base64url");
  const metricsToken = randomBytes(32).toString("base64url");
  const metricsOf = (started: { url: string }): MetricsAccess => ({ baseUrl: started.url, token: metricsToken });
  const snapshotArgs = HEAP_SNAPSHOT_MINUTES.length > 0 ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${workDir}`] : [];
  // The inspector listens on loopback only, on a port of its own choosing, for the bench's GC requests.
  const inspectArgs = FORCE_GC ? ["--inspect=127.0.0.1:0"] : [];
  const collectorOf = async (started: Started): Promise<(() => Promise<void>) | undefined> => {
    if (!FORCE_GC) return undefined;
    const url = await inspectorUrl(started.stderr);
    return () => collectGarbage(url);
  };
  const serverCommit = gitCommitOf(path.dirname(SERVER));
  process.stderr.write(`[soak] server ${SERVER} (commit ${serverCommit}), work dir ${workDir}, ${MINUTES} min\n`);
  let service = await startSoakService(dataDir, staticMcpToken, metricsToken, [...inspectArgs, ...snapshotArgs]);
  const pid = pidOf(service);
  const collect = await collectorOf(service);
  const operator = JSON.parse(readFileSync(path.join(dataDir, "operator.secret"), "utf8")) as { actorId: string; secret: string };
  const samples: MemorySample[] = [];
  let fresh: MemorySample | undefined;
  let load: SoakLoad | undefined;
  let loadError: unknown;
  let exitCode: number | null = null;
  const startedMs = Date.now();
  const elapsedSeconds = () => (Date.now() - startedMs) / 1000;
  try {
    samples.push(await sampleMemory(pid, metricsOf(service), 0, collect));
    load = new SoakLoad({
      url: service.url,
      operator,
      staticMcpToken,
      recordedPerSecond: RECORDED_PER_SECOND,
      actorsPerSecond: ACTORS_PER_SECOND,
      readers: READERS,
      writers: WRITERS,
      activeActors: ACTIVE_ACTORS,
      largeSubjectShare: LARGE_SUBJECT_SHARE,
      largeSubjectBytes: LARGE_SUBJECT_BYTES,
      seed: SEED,
    });
    await load.start();
    const endMs = startedMs + MINUTES * 60_000;
    const snapshotsDue = [...HEAP_SNAPSHOT_MINUTES].sort((a, b) => a - b);
    let nextSampleMs = startedMs + SAMPLE_SECONDS * 1000;
    const rssWindow = new RssWindow(pid);
    while (Date.now() < endMs && load.stoppedEarly === undefined) {
      // The RSS is read every second between samples; a sample reports their median (RssWindow).
      await sleep(Math.max(0, Math.min(nextSampleMs, endMs, Date.now() + 1000) - Date.now()));
      rssWindow.read();
      if (Date.now() >= nextSampleMs) {
        nextSampleMs += SAMPLE_SECONDS * 1000;
        const sample = await sampleMemory(pid, metricsOf(service), elapsedSeconds(), collect, rssWindow);
        samples.push(sample);
        const mix = mixSummary(load.counts);
        process.stderr.write(
          `[soak] ${(sample.atSeconds / 60).toFixed(1)} min: RSS ${mb(sample.rssMedianBytes)} MB (now ${mb(sample.rssBytes)}), heap ${mb(sample.heapUsedBytes)}/${mb(sample.heapTotalBytes)} MB` +
            (sample.heapLiveBytes === null ? ", " : ` (live ${mb(sample.heapLiveBytes)} MB), `) +
            `${mix.total} requests (recorded ${mix.byKind.recorded}, identity ${mix.byKind.identity}, read ${mix.byKind.read}, refused ${mix.byKind.refused}), ` +
            `unexpected ${mix.unexpected}, idempotency entries ${sample.idempotencyEntries}, markets ${sample.markets}, metric lines ${sample.metricLines}` +
            (sample.replyCacheChars === null ? "" : `, kept replies ${mb(sample.replyCacheChars)} M chars, kept records ${mb(sample.recordCacheBytes ?? 0)} MB, challenges ${sample.challenges}, tokens ${sample.tokensKept}`) +
            "\n",
        );
      }
      if (snapshotsDue.length > 0 && elapsedSeconds() >= (snapshotsDue[0] as number) * 60) {
        snapshotsDue.shift();
        process.kill(pid, "SIGUSR2");
        process.stderr.write(`[soak] heap snapshot requested at ${(elapsedSeconds() / 60).toFixed(1)} min (in ${workDir})\n`);
      }
    }
    try {
      await load.stop();
    } catch (error) {
      loadError = error;
    }
    samples.push(await sampleMemory(pid, metricsOf(service), elapsedSeconds(), collect, rssWindow));
    exitCode = await service.stop();
    // The same data in a fresh process: what the accepted state alone costs.
    service = await startSoakService(dataDir, staticMcpToken, metricsToken, inspectArgs);
    const collectFresh = await collectorOf(service);
    // Settled: started, idle for a while, the gateway's recovery garbage collected; then its RSS
    // is read once a second for as long again, and the median taken as for the run's samples.
    await sleep(FRESH_SETTLE_SECONDS * 1000);
    await collectFresh?.();
    const freshWindow = new RssWindow(pidOf(service));
    for (let second = 0; second < FRESH_SETTLE_SECONDS; second += 1) {
      await sleep(1000);
      freshWindow.read();
    }
    fresh = await sampleMemory(pidOf(service), metricsOf(service), 0, collectFresh, freshWindow);
    await service.stop();
  } finally {
    if (service.process.exitCode === null) await service.stop();
    if (!KEEP_DATA) rmSync(workDir, { recursive: true, force: true });
  }

  const times = samples.map((s) => s.atSeconds);
  const growth: Record<string, Growth> = {
    rss: lastHalfGrowth(times, samples.map((s) => s.rssMedianBytes)),
    rssInstant: lastHalfGrowth(times, samples.map((s) => s.rssBytes)),
    heapUsed: lastHalfGrowth(times, samples.map((s) => s.heapUsedBytes)),
    // What the heap check reads: the live heap after a full collection, when one was forced.
    heapLive: lastHalfGrowth(times, samples.map((s) => s.heapLiveBytes ?? s.heapUsedBytes)),
    heapTotal: lastHalfGrowth(times, samples.map((s) => s.heapTotalBytes)),
  };
  const counts = load?.counts ?? new Map<string, ActionCount>();
  const mix = mixSummary(counts);
  const first = samples[0] as MemorySample;
  const middle = samples[Math.floor(samples.length / 2)] as MemorySample;
  const last = samples[samples.length - 1] as MemorySample;
  const checks: Check[] = [
    {
      name: "RSS (median of each 10 s): the last half grows under 10% (fitted)",
      ok: growth["rss"]!.fittedGrowth < GROWTH_LIMIT,
      detail: `${pct(growth["rss"]!.fittedGrowth)} (end points ${pct(growth["rss"]!.endpointGrowth)}; single readings ${pct(growth["rssInstant"]!.fittedGrowth)})`,
    },
    {
      name: `heap ${FORCE_GC ? "live (after a full GC)" : "used"}: the last half grows under 10% (fitted)`,
      ok: growth["heapLive"]!.fittedGrowth < GROWTH_LIMIT,
      detail: `${pct(growth["heapLive"]!.fittedGrowth)} (end points ${pct(growth["heapLive"]!.endpointGrowth)})`,
    },
    { name: "no response ≥ 500", ok: mix.fiveHundreds === 0, detail: String(mix.fiveHundreds) },
    { name: "no transport error", ok: mix.transportErrors === 0, detail: String(mix.transportErrors) },
    { name: "every status is one the spec allows for the request", ok: mix.unexpected === 0, detail: `${mix.unexpected} unexpected` },
    { name: "the load ran to the end", ok: loadError === undefined, detail: loadError === undefined ? "yes" : String(loadError) },
    { name: "the service stopped cleanly (exit 0)", ok: exitCode === 0, detail: String(exitCode) },
  ];
  const stem = freshResultStem(LABEL);
  const result = {
    label: LABEL,
    date: new Date().toISOString(),
    server: { dist: SERVER, commit: serverCommit },
    machine: { cpus: availableParallelism(), cpu: cpus()[0]?.model, totalMemoryBytes: totalmem(), node: process.version },
    settings: { minutes: MINUTES, sampleSeconds: SAMPLE_SECONDS, recordedPerSecond: RECORDED_PER_SECOND, actorsPerSecond: ACTORS_PER_SECOND, readers: READERS, writers: WRITERS, activeActors: ACTIVE_ACTORS, largeSubjectShare: LARGE_SUBJECT_SHARE, largeSubjectBytes: LARGE_SUBJECT_BYTES, tokenTtlSeconds: TOKEN_TTL_SECONDS, seed: SEED, heapSnapshotMinutes: HEAP_SNAPSHOT_MINUTES, forcedGc: FORCE_GC, serverEnv: MALLOC_ENV },
    summaryMB: {
      start: summaryOf(first),
      middle: { atMinutes: Math.round(middle.atSeconds / 6) / 10, ...summaryOf(middle) },
      end: { atMinutes: Math.round(last.atSeconds / 6) / 10, ...summaryOf(last) },
      freshProcessOnTheSameData: fresh === undefined ? null : summaryOf(fresh),
    },
    growth,
    state: { idempotencyEntries: last.idempotencyEntries, markets: last.markets, commitments: last.commitments, actorsProvisioned: load?.actorCount ?? 0 },
    mix: { ...mix, requestsPerSecond: Math.round(mix.total / Math.max(1, last.atSeconds)), byAction: Object.fromEntries([...counts.entries()].sort((a, b) => b[1].requests - a[1].requests)) },
    unexpectedExamples: load?.unexpectedExamples ?? [],
    checks,
    passed: checks.every((c) => c.ok),
    samples,
    freshSample: fresh ?? null,
    workDir: KEEP_DATA ? workDir : null,
  };
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.svg`), await chart(samples, fresh));

  const row = (name: string, s: { rss: number; heapUsed: number; heapTotal: number; heapLive: number | null }) =>
    `${name.padEnd(34)} RSS ${String(s.rss).padStart(7)} MB   heap used ${String(s.heapUsed).padStart(7)} MB   heap total ${String(s.heapTotal).padStart(7)} MB` +
    (s.heapLive === null ? "" : `   heap live ${String(s.heapLive).padStart(6)} MB`);
  const lines = [
    `soak ${LABEL}: ${MINUTES} min against ${SERVER} (${result.server.commit})`,
    row("start", result.summaryMB.start),
    row(`middle (${result.summaryMB.middle.atMinutes} min)`, result.summaryMB.middle),
    row(`end (${result.summaryMB.end.atMinutes} min)`, result.summaryMB.end),
    ...(result.summaryMB.freshProcessOnTheSameData === null ? [] : [row("fresh process on the same data", result.summaryMB.freshProcessOnTheSameData)]),
    `last-half growth (fitted / end points): RSS (10 s medians) ${pct(growth["rss"]!.fittedGrowth)} / ${pct(growth["rss"]!.endpointGrowth)}, ` +
      `heap used ${pct(growth["heapUsed"]!.fittedGrowth)} / ${pct(growth["heapUsed"]!.endpointGrowth)}, heap live ${pct(growth["heapLive"]!.fittedGrowth)} / ${pct(growth["heapLive"]!.endpointGrowth)}`,
    `requests ${mix.total} (${result.mix.requestsPerSecond}/s): recorded ${mix.byKind.recorded}, identity ${mix.byKind.identity}, read ${mix.byKind.read}, refused ${mix.byKind.refused}; ` +
      `state at the end: ${last.idempotencyEntries} idempotency entries, ${last.markets} markets, ${last.commitments} commitments, ${result.state.actorsProvisioned} actors`,
    ...checks.map((c) => `${c.ok ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}`),
    ...(result.unexpectedExamples.length === 0 ? [] : ["unexpected statuses (first few):", ...result.unexpectedExamples.map((e) => `  ${e}`)]),
    `results: ${path.relative(REPO, path.join(RESULTS_DIR, stem))}.{json,svg}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (!result.passed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`[soak] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
