/**
 * A worker thread for signer-worker.test.ts: rebuilds the audit signer from the workerData the parent
 * passed (as a shard worker will) and signs the message it was given.
 */
import { parentPort, workerData } from "node:worker_threads";
import { auditSignerFromWorkerData, type AuditSignerWorkerData } from "../../engine/audit/signing/audit-signer.js";

const data = workerData as { signer: AuditSignerWorkerData; message: Uint8Array };
const signer = auditSignerFromWorkerData(data.signer);
parentPort?.postMessage({ keyId: signer.keyId, publicKey: signer.publicKey, signature: signer.sign(data.message) });
