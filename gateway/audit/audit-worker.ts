/**
 * A worker thread auditing one shard (audit-pool.ts starts it): runs `auditShard` and posts its
 * progress, then the result, or the error that stopped it (a log that will not open in `replay`).
 */
import { parentPort, workerData } from "node:worker_threads";
import { auditShard } from "./audit-replay.js";
import type { AuditWorkerData, FromAuditWorker } from "./shard-audit.js";

const port = parentPort;
if (port === null) throw new Error("audit-worker must run in a worker thread");
const data = workerData as AuditWorkerData;
const post = (message: FromAuditWorker): void => port.postMessage(message);
try {
  post({ t: "done", audit: auditShard(data.index, data.dir, data.work, (frames) => post({ t: "frames", frames })) });
} catch (error) {
  post({ t: "error", message: error instanceof Error ? error.message : String(error) });
}
