/**
 * Shards audited on worker threads, at most `threads` at a time, one worker per shard (a shard's
 * audit is seconds to minutes of CPU, so starting a thread for it costs nothing worth pooling).
 * Results come back in shard order whatever order the workers finish in.
 *
 * Not piscina: its workers start from its own worker file on disk, which the single binary does
 * not have; this uses the same embedded-asset loader as the shard workers (gateway/sea/).
 */
import type { Worker } from "node:worker_threads";
import { AUDIT_WORKER_ASSET } from "../sea/assets.js";
import { startWorker, workerSource } from "../sea/embedded-worker.js";
import type { AuditWorkerData, FromAuditWorker, ShardAudit, ShardAuditWork } from "./shard-audit.js";

function auditOnWorker(shard: { index: number; dir: string }, work: ShardAuditWork, onFrames: (frames: number) => void, started: Set<Worker>): Promise<ShardAudit> {
  const data: AuditWorkerData = { index: shard.index, dir: shard.dir, work };
  const worker = startWorker(workerSource(AUDIT_WORKER_ASSET, import.meta.url, "audit-worker"), { workerData: data });
  started.add(worker);
  return new Promise<ShardAudit>((resolve, reject) => {
    let settled = false;
    worker.on("message", (message: FromAuditWorker) => {
      switch (message.t) {
        case "frames":
          onFrames(message.frames);
          return;
        case "done":
          settled = true;
          resolve(message.audit);
          return;
        case "error":
          settled = true;
          reject(new Error(message.message));
          return;
      }
    });
    worker.on("error", (error) => {
      settled = true;
      reject(error);
    });
    worker.on("exit", (code) => {
      started.delete(worker);
      if (!settled) reject(new Error(`the audit worker of shard ${shard.index} exited (code ${code}) without a result`));
    });
  });
}

export async function auditShardsOnWorkers(
  shards: ReadonlyArray<{ index: number; dir: string }>,
  work: ShardAuditWork,
  threads: number,
  onFrames: (frames: number) => void,
): Promise<ShardAudit[]> {
  if (!(Number.isInteger(threads) && threads >= 1)) throw new RangeError(`threads must be a positive integer, not ${threads}`);
  const results: ShardAudit[] = new Array<ShardAudit>(shards.length);
  const started = new Set<Worker>();
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    // After a failure no lane starts another shard (its result would not be reported).
    while (next < shards.length && !failed) {
      const position = next++;
      try {
        results[position] = await auditOnWorker(shards[position] as { index: number; dir: string }, work, onFrames, started);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(threads, shards.length) }, lane));
  } catch (error) {
    // One shard failed outright: the others' results are not reported, so stop their work.
    await Promise.all([...started].map((worker) => worker.terminate()));
    throw error;
  }
  return results;
}
