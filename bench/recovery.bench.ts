/**
 * Shard durability, replay, recovery and memory (P4, P5).
 *
 *   node --expose-gc --import tsx bench/recovery.bench.ts [--commands 1000000] [--markets 1000] [--capacity 4000000]
 *                                                           [--replay-rounds 3] [--skip-memory]
 *
 * `--capacity` is each market's capacity: the default accepts every claim (each holds a commitment);
 * a small one makes most claims refusals, as in a real storm (`--markets 100 --capacity 1000`).
 * Figures are printed and written to bench/results/<date>-recovery-<commands>.json.
 *
 * 1. build: N commands through ShardCore.processBatch (engine + msgpack + append + one fdatasync
 *    per 1,000-command batch) into a fresh shard directory on the repository's disk
 * 2. replay by step: the log's frames read (no CRC), + decoded (`decodeLoggedCommand`), + applied
 *    through the engine's fold, timed per frame, median of `--replay-rounds` (0 skips it): where a
 *    replayed command's time goes
 * 3. replay: open the shard with no snapshot (every frame decoded and applied, idempotency entries
 *    collected, the last segment's CRCs checked)
 * 4. recovery: open again right after a snapshot (only the tail is applied), in this process and as
 *    a whole start of the built service in a fresh process (service-start.mjs)
 * 5. memory: heap growth per idle market (1k → 100k markets) and per retained command
 *    (100k → 1M claims; accepted and refused separately), and per idempotency-index entry
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { availableParallelism, release } from "node:os";
import * as path from "node:path";
import { ManualClock } from "../engine/clock.js";
import { orderedFingerprint } from "../engine/idempotency/fingerprint.js";
import { IdempotencyIndex } from "../engine/idempotency/index.js";
import { indexSnapshotStore, openIndexSnapshot, writeIndexSnapshot } from "../engine/idempotency/index-snapshot.js";
import { LogFold } from "../engine/log-fold.js";
import { decodeLoggedCommand } from "../engine/log/logged-command.js";
import { openFileShard, type OpenedShard } from "../engine/runtime/shard-core.js";
import { SegmentLog } from "../storage/index.js";
import { numberArg } from "./args.js";
import { BATCH, buildShard, claim, req, T0 } from "./claim-log.js";
import { percentile } from "./percentile.js";
import { freshResultStem } from "./result-stem.js";

const TOTAL_COMMANDS = numberArg("commands", 1_000_000);
const MARKETS = numberArg("markets", 1_000);
const CAPACITY = numberArg("capacity", 4_000_000);
const REPLAY_ROUNDS = numberArg("replay-rounds", 3);
const SKIP_MEMORY = process.argv.includes("--skip-memory");
/** Every figure printed, for the JSON result. */
const figures: Record<string, number> = {};
const ROOT = path.join(import.meta.dirname, "..", ".tmp", "bench-recovery");

const gc = (globalThis as { gc?: () => void }).gc;
function heapBytes(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  // `external` already includes `arrayBuffers` (typed arrays, Buffers): adding both counted those twice.
  return m.heapUsed + m.external;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/**
 * An idempotency index of `entries` claims made the way the gateway makes them: the commandId comes
 * out of a parsed body, the actor id is the token's (shared by that actor's commands), the
 * fingerprint is computed, claimed, completed.
 */
const ACTORS = Array.from({ length: 20_000 }, (_, i) => `participant-${i}`);
function liveIndex(entries: number): IdempotencyIndex {
  const index = new IdempotencyIndex();
  for (let n = 0; n < entries; n += 1) {
    const { commandId } = JSON.parse(`{"commandId":"claim-${n}"}`) as { commandId: string };
    const actorId = ACTORS[n % ACTORS.length] as string;
    const claimed = index.claim(actorId, commandId, orderedFingerprint("direct_claim.submit", [commandId, actorId, actorId, null, "market-1", null]));
    if (claimed.kind !== "fresh") throw new Error(`index claim ${claimed.kind}`);
    claimed.complete({ owner: n % 2, position: n * 180 });
  }
  return index;
}

/**
 * The gateway's part of a start: load the idempotency-index snapshot of every command (one entry
 * each). It runs while the shards open (MarketRuntime.open), so a start takes the longer of the two.
 */
async function phaseIndexLoad(): Promise<void> {
  const dataDir = path.join(ROOT, "index");
  mkdirSync(dataDir, { recursive: true });
  let index: IdempotencyIndex | undefined = liveIndex(TOTAL_COMMANDS);
  let started = performance.now();
  const sizeBytes = await writeIndexSnapshot(indexSnapshotStore(dataDir), index, [TOTAL_COMMANDS, 0]);
  const writeSeconds = (performance.now() - started) / 1000;
  index = undefined;
  gc?.();
  const loaded = new IdempotencyIndex();
  started = performance.now();
  openIndexSnapshot(indexSnapshotStore(dataDir), 2).restoreInto(loaded);
  const loadSeconds = (performance.now() - started) / 1000;
  if (loaded.size !== TOTAL_COMMANDS) throw new Error(`index snapshot restored ${loaded.size} entries`);
  figures.indexSnapshotBytes = sizeBytes;
  figures.indexSnapshotWriteSeconds = writeSeconds;
  figures.indexLoadSeconds = loadSeconds;
  console.log(`index:    idempotency-index snapshot of ${fmt(TOTAL_COMMANDS)} entries: ${fmt(sizeBytes)} bytes written in ${writeSeconds.toFixed(2)} s; loaded at start in ${loadSeconds.toFixed(2)} s (gateway thread, while the shards open)`);
  rmSync(dataDir, { recursive: true, force: true });
}

/** The data directory of a one-shard service, so a whole start (MarketRuntime.open) can be timed. */
const DATA_DIR = path.join(ROOT, "data");
/** The build a whole start runs: service-start.mjs is told this directory and loads the runtime from it. */
const BUILD_DIR = path.join(import.meta.dirname, "..", "dist");

/**
 * The engine's replay of the log in `dir`, one step added at a time: what reading, decoding and
 * applying a frame each cost (the shard's open does all three, plus idempotency entries and the last
 * segment's CRCs). Microseconds per frame, the median of REPLAY_ROUNDS rounds.
 */
function phaseReplaySteps(dir: string): void {
  if (REPLAY_ROUNDS <= 0) return;
  const log = SegmentLog.open({ dir });
  /** Keeps every step's result observable, so that none can be optimised away. */
  let sink = 0;
  const steps: Array<[key: string, label: string, run: () => number]> = [
    ["replayReadUsPerFrame", "read", () => {
      let frames = 0;
      for (const frame of log.frames(0, { verify: "none" })) {
        sink += frame.payload.length;
        frames += 1;
      }
      return frames;
    }],
    ["replayReadDecodeUsPerFrame", "read + decode", () => {
      let frames = 0;
      for (const frame of log.frames(0, { verify: "none" })) {
        sink += decodeLoggedCommand(frame.payload).v;
        frames += 1;
      }
      return frames;
    }],
    ["replayReadDecodeApplyUsPerFrame", "read + decode + apply", () => {
      const fold = new LogFold();
      let frames = 0;
      for (const frame of log.frames(0, { verify: "none" })) {
        fold.apply(decodeLoggedCommand(frame.payload).c, frame.position);
        frames += 1;
      }
      sink += fold.markets.size;
      return frames;
    }],
  ];
  const samples = new Map<string, number[]>(steps.map(([key]) => [key, []]));
  try {
    for (let round = 0; round < REPLAY_ROUNDS; round += 1) {
      for (const [key, label, run] of steps) {
        const started = performance.now();
        const frames = run();
        if (frames !== TOTAL_COMMANDS) throw new Error(`replay ${label}: read ${frames} frames of ${TOTAL_COMMANDS}`);
        samples.get(key)?.push(((performance.now() - started) * 1000) / frames);
      }
    }
  } finally {
    log.close();
  }
  for (const [key, label] of steps) {
    const median = percentile([...(samples.get(key) ?? [])].sort((a, b) => a - b), 50);
    figures[key] = median;
    console.log(`replay:   ${label.padEnd(22)} ${median.toFixed(2)} µs per frame (${fmt(1e6 / median)} frames/s; median of ${REPLAY_ROUNDS})`);
  }
  if (sink < 0) console.log(sink);
}

async function phaseBuildReplayRecover(): Promise<void> {
  const dir = path.join(DATA_DIR, "shards", "00");
  rmSync(ROOT, { recursive: true, force: true });
  mkdirSync(ROOT, { recursive: true });
  const clock = new ManualClock(T0);
  const claims = TOTAL_COMMANDS - 2 * MARKETS;
  let started = performance.now();
  const core = await buildShard(dir, MARKETS, claims, CAPACITY, clock);
  const buildSeconds = (performance.now() - started) / 1000;
  figures.buildDurableCommandsPerSecond = TOTAL_COMMANDS / buildSeconds;
  console.log(`build:    ${fmt(TOTAL_COMMANDS)} commands in ${buildSeconds.toFixed(1)} s = ${fmt(TOTAL_COMMANDS / buildSeconds)} durable commands/s (batches of ${BATCH}, one fdatasync each)`);
  await core.close();
  phaseReplaySteps(dir);

  started = performance.now();
  // `let` and cleared after use: a 10M-command state must not be held twice (V8's default heap limit).
  let full: OpenedShard | undefined = await openFileShard({ dir, shardIndex: 0, clock });
  const replaySeconds = (performance.now() - started) / 1000;
  figures.replayCommandsPerSecond = full.report.framesReplayed / replaySeconds;
  console.log(`replay:   open without snapshot: ${full.report.framesReplayed.toLocaleString("en-US")} frames in ${replaySeconds.toFixed(2)} s = ${fmt(full.report.framesReplayed / replaySeconds)} commands/s through the engine (decode + apply, one thread)`);
  started = performance.now();
  const snap = await full.core.snapshot();
  figures.snapshotBytes = snap.sizeBytes;
  figures.snapshotSeconds = (performance.now() - started) / 1000;
  console.log(`snapshot: ${fmt(snap.sizeBytes)} bytes in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  // A short tail after the snapshot, as after a crash between checkpoints.
  await full.core.processBatch(Array.from({ length: BATCH }, (_, i) => req(claim(10_000_000 + i, `market-${i % MARKETS}`))));
  await full.core.close();
  full = undefined;

  started = performance.now();
  let recovered: OpenedShard | undefined = await openFileShard({ dir, shardIndex: 0, clock, reportIdempotencyAfterLsn: snap.lsn });
  const recoverSeconds = (performance.now() - started) / 1000;
  figures.startWithSnapshotSeconds = recoverSeconds;
  console.log(`recovery: open with a recent snapshot (${fmt(recovered.report.marketsFromSnapshot)} markets) + ${recovered.report.framesReplayed} tail frames: ${recoverSeconds.toFixed(2)} s`);
  await recovered.core.close();
  recovered = undefined;
  await phaseServiceStart(claims, snap.lsn);

  renameSync(path.join(dir, "snapshots"), path.join(dir, "snapshots-off"));
  started = performance.now();
  const cold = await openFileShard({ dir, shardIndex: 0, clock });
  figures.startWithoutSnapshotSeconds = (performance.now() - started) / 1000;
  console.log(`recovery: open without snapshot: ${((performance.now() - started) / 1000).toFixed(2)} s (${fmt(cold.report.framesReplayed)} frames)`);
  await cold.core.close();
  rmSync(ROOT, { recursive: true, force: true });
}

/**
 * A whole start of the service's runtime, as `npm start` does it: the shard worker opens its
 * snapshot and tail while the gateway thread loads the idempotency-index snapshot (one entry per
 * logged claim, watermark = the shard snapshot's lsn, so the shard reports the tail's entries).
 */
async function phaseServiceStart(claims: number, watermark: number): Promise<void> {
  let index: IdempotencyIndex | undefined = new IdempotencyIndex();
  for (let n = 0; n < claims; n += 1) index.restore(`participant-${n}`, `claim-${n}`, "AAAAAAAAAAAAAAAAAAAAAA", { owner: 0, position: n * 100 });
  await writeIndexSnapshot(indexSnapshotStore(DATA_DIR), index, [watermark]);
  index = undefined;
  gc?.();
  // A fresh process, as a user's start: the built runtime (`npm run bench:recovery` builds first),
  // not this process with its heap of earlier phases and tsx compiling the worker's sources.
  if (!existsSync(path.join(BUILD_DIR, "engine", "runtime", "market-runtime.js"))) throw new Error("start phase: run `npm run build` first (it measures the built service)");
  // Three fresh processes on the same files (one start varies a lot on a shared machine): the median.
  const runs = [1, 2, 3].map(() => {
    const output = execFileSync(process.execPath, [path.join(import.meta.dirname, "service-start.mjs"), BUILD_DIR, DATA_DIR, "1"], { encoding: "utf8" });
    const result = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as { openSeconds: number; processSeconds: number; idempotencyEntries: number; fatal: string[] };
    if (result.fatal.length > 0 || result.idempotencyEntries !== claims + BATCH) throw new Error(`start: ${result.idempotencyEntries} index entries, fatal ${result.fatal.join("; ")}`);
    return result;
  });
  const median = [...runs].sort((a, b) => a.openSeconds - b.openSeconds)[1] as (typeof runs)[number];
  figures.serviceStartWithSnapshotSeconds = median.openSeconds;
  figures.serviceProcessReadySeconds = median.processSeconds;
  runs.forEach((run, i) => (figures[`serviceStartRun${i + 1}Seconds`] = run.openSeconds));
  console.log(`start:    a fresh process opens the runtime (1 shard worker + ${fmt(median.idempotencyEntries)}-entry index snapshot, overlapped): MarketRuntime.open ${median.openSeconds.toFixed(2)} s (median of ${runs.map((run) => run.openSeconds.toFixed(2)).join(", ")}); ready ${median.processSeconds.toFixed(2)} s after the process began`);
  rmSync(path.join(DATA_DIR, "idempotency"), { recursive: true, force: true });
}

async function phaseMemory(): Promise<void> {
  if (gc === undefined) {
    console.log("memory:   skipped (run with node --expose-gc)");
    return;
  }
  const clock = new ManualClock(T0);
  const measureMarkets = async (count: number) => {
    const dir = path.join(ROOT, `mem-markets-${count}`);
    const before = heapBytes();
    const core = await buildShard(dir, count, 0, 1_000, clock);
    const grown = heapBytes() - before;
    await core.close();
    rmSync(dir, { recursive: true, force: true });
    return grown;
  };
  const small = await measureMarkets(1_000);
  const large = await measureMarkets(100_000);
  figures.bytesPerIdleMarket = (large - small) / 99_000;
  console.log(`memory:   ${fmt((large - small) / 99_000)} bytes per idle market (growth 1k → 100k markets)`);

  const measureClaims = async (claims: number, capacity: number) => {
    const dir = path.join(ROOT, `mem-claims-${claims}-${capacity}`);
    const before = heapBytes();
    const core = await buildShard(dir, 100, claims, capacity, clock);
    const grown = heapBytes() - before;
    await core.close();
    rmSync(dir, { recursive: true, force: true });
    return grown;
  };
  for (const [label, capacity] of [["accepted claims (each holds a commitment)", 4_000_000], ["refused claims (capacity 10 per market)", 10]] as const) {
    const a = await measureClaims(100_000, capacity);
    const b = await measureClaims(1_000_000, capacity);
    figures[capacity === 10 ? "bytesPerRefusedClaim" : "bytesPerAcceptedClaim"] = (b - a) / 900_000;
    console.log(`memory:   ${fmt((b - a) / 900_000)} bytes per retained command, ${label} (growth 100k → 1M)`);
  }

  const measureIndex = (entries: number) => {
    const before = heapBytes();
    const index = liveIndex(entries);
    const grown = heapBytes() - before;
    if (index.size !== entries) throw new Error("index size");
    return grown;
  };
  const i1 = measureIndex(100_000);
  const i2 = measureIndex(1_000_000);
  figures.bytesPerIdempotencyEntry = (i2 - i1) / 900_000;
  console.log(`memory:   ${fmt((i2 - i1) / 900_000)} bytes per idempotency-index entry on the gateway thread (growth 100k → 1M)`);
}

console.log(`recovery bench: ${fmt(TOTAL_COMMANDS)} commands over ${fmt(MARKETS)} markets of capacity ${fmt(CAPACITY)}; Node ${process.version}`);
await phaseBuildReplayRecover();
await phaseIndexLoad();
if (!SKIP_MEMORY) await phaseMemory();
rmSync(ROOT, { recursive: true, force: true });
const resultsDir = path.join(import.meta.dirname, "results");
mkdirSync(resultsDir, { recursive: true });
const resultFile = path.join(resultsDir, `${freshResultStem(`recovery-${TOTAL_COMMANDS}`)}.json`);
const settings = { commands: TOTAL_COMMANDS, markets: MARKETS, capacity: CAPACITY, batch: BATCH, replayRounds: REPLAY_ROUNDS, memory: !SKIP_MEMORY };
writeFileSync(resultFile, `${JSON.stringify({ date: new Date().toISOString(), machine: { cores: availableParallelism(), node: process.version, kernel: release() }, settings, figures }, null, 2)}\n`);
console.log(`result:   ${path.relative(process.cwd(), resultFile)}`);
