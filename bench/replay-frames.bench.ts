/**
 * P4 replay, one frame at a time: where a replayed command's time goes. Run: `npm run bench:replay-frames`
 *
 *   node --import tsx bench/replay-frames.bench.ts [--commands 302000] [--markets 1000] [--capacity 4000000] [--rounds 5]
 *
 * Writes a shard log through the real ShardCore (bench/claim-log.ts; the default capacity accepts
 * every claim, `--capacity 1000 --markets 100` makes most claims refusals as in a storm), then reads
 * it back `--rounds` times, each round timing, per frame:
 *  1. read: iterate the raw frames (no CRC, as the shard's open after recovery does)
 *  2. + decode with msgpackr alone (what every frame went through before decision I15)
 *  3. + decode with `decodeLoggedCommand` (the direct-claim reader, msgpackr for other frames)
 *  4. + apply: `applyCommand` into per-market aggregates (decide + fold, no replies)
 * and prints the best and the median of the rounds in microseconds per frame. The shard's own open
 * (`ShardCore.open`, which also checks the last segment's CRCs and collects idempotency entries) is
 * what `npm run bench:recovery` times.
 */
import { mkdirSync, rmSync } from "node:fs";
import * as path from "node:path";
import { Packr } from "msgpackr";
import { ManualClock } from "../engine/clock.js";
import { decodeLoggedCommand } from "../engine/runtime/logged-command.js";
import { SegmentLog } from "../storage/index.js";
import { numberArg } from "./args.js";
import { buildShard, replayThroughEngine, T0 } from "./claim-log.js";
import { percentile } from "./percentile.js";

const COMMANDS = numberArg("commands", 302_000);
const MARKETS = numberArg("markets", 1_000);
const CAPACITY = numberArg("capacity", 4_000_000);
const ROUNDS = numberArg("rounds", 5);
const DIR = path.join(import.meta.dirname, "..", ".tmp", "bench-replay-frames");

rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
const claims = COMMANDS - 2 * MARKETS;
if (claims < 0) throw new Error("--commands must cover two commands per market");
(await buildShard(DIR, MARKETS, claims, CAPACITY, new ManualClock(T0))).close();

const log = SegmentLog.open({ dir: DIR });
const msgpackr = new Packr({ useRecords: false, moreTypes: false });
/** Keeps results observable so no step can be optimised away. */
let sink = 0;

const steps: Array<[label: string, perFrame: () => number]> = [
  [
    "read",
    () => {
      let frames = 0;
      for (const frame of log.frames(0, { verify: "none" })) {
        sink += frame.payload.length;
        frames += 1;
      }
      return frames;
    },
  ],
  [
    "read + msgpackr decode",
    () => {
      let frames = 0;
      for (const frame of log.frames(0, { verify: "none" })) {
        sink += (msgpackr.unpack(frame.payload) as { v: number }).v;
        frames += 1;
      }
      return frames;
    },
  ],
  [
    "read + decodeLoggedCommand",
    () => {
      let frames = 0;
      for (const frame of log.frames(0, { verify: "none" })) {
        sink += decodeLoggedCommand(frame.payload).v;
        frames += 1;
      }
      return frames;
    },
  ],
  [
    "read + decodeLoggedCommand + applyCommand",
    () => replayThroughEngine(log).frames,
  ],
];

const samples = new Map<string, number[]>(steps.map(([label]) => [label, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [label, run] of steps) {
    const started = performance.now();
    const frames = run();
    if (frames !== COMMANDS) throw new Error(`${label}: read ${frames} frames of ${COMMANDS}`);
    samples.get(label)?.push(((performance.now() - started) * 1000) / frames);
  }
}
log.close();
rmSync(DIR, { recursive: true, force: true });

console.log(`replay frames: ${COMMANDS.toLocaleString("en-US")} commands over ${MARKETS} markets of capacity ${CAPACITY.toLocaleString("en-US")}; ${ROUNDS} rounds; Node ${process.version}`);
for (const [label, values] of samples) {
  const best = Math.min(...values);
  const median = percentile([...values].sort((a, b) => a - b), 50);
  console.log(`${label.padEnd(44)} best ${best.toFixed(2)} µs/frame, median ${median.toFixed(2)} µs/frame (${Math.round(1e6 / median).toLocaleString("en-US")} frames/s)`);
}
if (sink < 0) console.log(sink);
