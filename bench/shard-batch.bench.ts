/**
 * `npm run bench:shard`: what a shard's thread spends per batch and per claim, in CPU time (user and
 * system, from /proc for this thread), so the fixed cost of a batch can be told from the cost of a
 * claim. One thread, the real log (one write + one fdatasync per batch), no worker: each batch of B
 * direct claims on one market goes through the shard channel's codec (packed and unpacked as the
 * gateway and the worker do) and `ShardCore.processBatch`, and its replies are packed.
 * First the bare `write` + `fdatasync` of a batch-sized buffer, which is the kernel's share.
 *
 *   npm run bench:shard -- [--batches 2000] [--sizes 1,12,25] [--capacity 1000]
 *
 * Linux only (/proc/self/task). CPU time, not wall time: steal and I/O waits do not count.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Command } from "../engine/index.js";
import { ManualClock } from "../gateway/clock.js";
import { buildMarketCommand } from "../gateway/market-api.js";
import { ShardCore } from "../gateway/runtime/shard-core.js";
import type { ShardRequest } from "../gateway/runtime/shard-protocol.js";
import { packRequests, packResponses, unpackRequests } from "../gateway/runtime/wire.js";
import type { Envelope } from "../gateway/runtime/worker-messages.js";
import { numberArg, stringArg } from "./args.js";

const BATCHES = numberArg("batches", 2_000);
const CAPACITY = numberArg("capacity", 1_000);
const SIZES = stringArg("sizes", "1,12,25").split(",").map(Number);
const WARM_UP_BATCHES = 200;
/** Bytes of one batch of claim frames in the log (~240 bytes a frame, 25 frames). */
const FSYNC_PROBE_BYTES = 6_000;

/** This thread's CPU time so far, in µs (USER_HZ = 100 on Linux). */
function threadCpuUs(): { user: number; system: number } {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
}

function measure(times: number, work: () => void): { userUs: number; systemUs: number; wallUs: number } {
  const cpu0 = threadCpuUs();
  const wall0 = performance.now();
  for (let i = 0; i < times; i += 1) work();
  const cpu1 = threadCpuUs();
  return { userUs: (cpu1.user - cpu0.user) / times, systemUs: (cpu1.system - cpu0.system) / times, wallUs: ((performance.now() - wall0) * 1000) / times };
}

function fsyncProbe(dir: string): void {
  const fd = openSync(path.join(dir, "probe"), "a");
  const bytes = Buffer.alloc(FSYNC_PROBE_BYTES, 7);
  try {
    const synced = measure(BATCHES, () => {
      writeSync(fd, bytes);
      fdatasyncSync(fd);
    });
    const written = measure(BATCHES, () => writeSync(fd, bytes));
    console.log(`write + fdatasync of ${FSYNC_PROBE_BYTES} B: CPU ${synced.userUs.toFixed(0)} user + ${synced.systemUs.toFixed(0)} system µs per call (wall ${synced.wallUs.toFixed(0)} µs); write alone ${written.userUs.toFixed(0)} + ${written.systemUs.toFixed(0)} µs`);
  } finally {
    closeSync(fd);
  }
}

function shardProbe(dir: string, claimsPerBatch: number): { perBatchUs: number; perClaimUs: number } {
  const clock = new ManualClock(Date.parse("2026-03-01T12:00:00.000Z"));
  const { core } = ShardCore.open({ dir, shardIndex: 0, clock });
  try {
    const command = (c: Command): ShardRequest => ({ kind: "command", command: c, fingerprint: "AbCdEfGhIjKlMnOpQrStUv" });
    const creator = { principalId: "creator", actorId: "creator" };
    core.processBatch([
      command({ type: "market.create_draft", commandId: "create", identity: creator, occurredAtMs: 0, marketId: "hot", subject: { schema: "s.v1", data: {} }, mechanism: { presetId: "direct-claim.v1", config: { capacity: CAPACITY, pricing: { mode: "free" }, confirmation: "none" } } } as Command),
      command({ type: "market.publish", commandId: "publish", identity: creator, occurredAtMs: 0, marketId: "hot", expectedVersion: 1 } as Command),
    ]);
    let sent = 0;
    const batch = (): Array<Envelope<ShardRequest>> =>
      Array.from({ length: claimsPerBatch }, () => {
        sent += 1;
        const participant = `participant-${sent % 20_000}`;
        return { id: sent, body: command(buildMarketCommand("direct_claim.submit", participant, "hot", { commandId: `claim-${sent}`, principalId: participant })) };
      });
    const oneBatch = (): void => {
      const items = unpackRequests(packRequests(batch()));
      clock.advance(1);
      const responses = core.processBatch(items.map((item) => item.body));
      packResponses(responses.map((body, index) => ({ id: (items[index] as Envelope<ShardRequest>).id, body })));
    };
    measure(WARM_UP_BATCHES, oneBatch);
    const cost = measure(BATCHES, oneBatch);
    const perBatchUs = cost.userUs + cost.systemUs;
    console.log(
      `B = ${String(claimsPerBatch).padStart(3)}: CPU ${(perBatchUs / claimsPerBatch).toFixed(1)} µs per claim ` +
        `(${(cost.userUs / claimsPerBatch).toFixed(1)} user, ${(cost.systemUs / claimsPerBatch).toFixed(1)} system), ${perBatchUs.toFixed(0)} µs per batch; wall ${cost.wallUs.toFixed(0)} µs per batch`,
    );
    return { perBatchUs, perClaimUs: perBatchUs / claimsPerBatch };
  } finally {
    core.close();
  }
}

const workDir = mkdtempSync(path.join(os.tmpdir(), "shard-batch-bench-"));
try {
  fsyncProbe(workDir);
  const points = SIZES.map((size, index) => ({ size, ...shardProbe(path.join(workDir, `shard-${index}`), size) }));
  const first = points[0];
  const last = points.at(-1);
  if (first !== undefined && last !== undefined && last.size > first.size) {
    // A straight line through the smallest and largest batch: CPU per batch = fixed + size × per claim.
    const perClaim = (last.perBatchUs - first.perBatchUs) / (last.size - first.size);
    console.log(`fit: about ${(first.perBatchUs - perClaim * first.size).toFixed(0)} µs per batch + ${perClaim.toFixed(1)} µs per claim`);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
