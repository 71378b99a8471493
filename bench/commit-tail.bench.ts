/**
 * `npm run bench:commit-tail`: the latency distribution of one shard-sized group commit (append a
 * frame, write + fdatasync) through the real SegmentLog, paced like a shard at moderate load: one
 * commit, then the thread sleeps `--gap-ms` (Atomics.wait, as an idle worker blocks) before the
 * next. Nothing else runs, so this is the disk's (and the VM's) own tail, the floor under the p99 of
 * a claim at half the peak (bench/README.md, "Targets"): a claim waits for its batch's commit, and
 * one that arrives during a commit waits for that one first.
 *
 *   npm run bench:commit-tail -- [--commits 5000] [--gap-ms 1] [--frame-bytes 250]
 *
 * The log is written under the repository's .tmp/ (the disk the service's data/ is on) and removed.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as path from "node:path";
import { SegmentLog } from "../storage/index.js";
import { numberArg } from "./args.js";
import { percentile } from "./percentile.js";

const COMMITS = numberArg("commits", 5_000);
const GAP_MS = numberArg("gap-ms", 1);
const FRAME_BYTES = numberArg("frame-bytes", 250);

const root = path.join(import.meta.dirname, "..", ".tmp");
mkdirSync(root, { recursive: true });
const dir = mkdtempSync(path.join(root, "commit-tail-"));
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const payload = new Uint8Array(FRAME_BYTES).fill(7);
const latenciesMs: number[] = [];
const log = SegmentLog.open({ dir });
try {
  for (let i = 0; i < COMMITS; i += 1) {
    const startedMs = performance.now();
    log.append(payload);
    log.commitSync();
    latenciesMs.push(performance.now() - startedMs);
    if (GAP_MS > 0) Atomics.wait(sleeper, 0, 0, GAP_MS);
  }
} finally {
  log.close();
  rmSync(dir, { recursive: true, force: true });
}
latenciesMs.sort((a, b) => a - b);
const at = (p: number) => percentile(latenciesMs, p).toFixed(2);
const over = (ms: number) => latenciesMs.filter((x) => x > ms).length;
console.log(
  `${COMMITS.toLocaleString("en-US")} commits of one ${FRAME_BYTES} B frame, ${GAP_MS} ms apart: ` +
    `p50 ${at(50)} ms, p90 ${at(90)}, p99 ${at(99)}, p99.9 ${at(99.9)}, max ${(latenciesMs.at(-1) ?? Number.NaN).toFixed(2)}; ` +
    `over 1 ms ${over(1)}, over 2 ms ${over(2)}, over 5 ms ${over(5)}`,
);
