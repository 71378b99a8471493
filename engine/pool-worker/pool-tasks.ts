/**
 * The module the worker pool's threads load (engine/pool/worker-pool.ts; piscina calls the export named by
 * each task). Every task carries what it needs, so any thread can run any task, and a failed task
 * leaves nothing behind; all are pure replays of logs already durable. The one state a thread keeps
 * is its proof tree cache (engine/audit/proof-tree-cache.ts): a log's tree between proofs, checked
 * against the log before each use, so which thread runs a proof changes its cost, never its answer.
 */
import { setPriority } from "node:os";
import { move, workerData } from "piscina";
import { threadProofCache, type ProofTreeCache } from "../audit/proof-tree-cache.js";
import { ProofCacheBoardSlot } from "../pool/proof-cache-board.js";
import { auditShard as auditOneShard } from "../replay/audit-replay.js";
import type { ShardAudit } from "../pool/shard-audit.js";
import { completeProofWork, completeReplayWork, proofJson } from "./replay-work.js";
import type { ReplayWork } from "../shard-protocol/shard-protocol.js";
import type { AuditProgressMessage, AuditShardTask, PoolTasks, PoolWorkerData, ProofTaskResult, ReplayTaskResult } from "../pool/pool-protocol.js";

/**
 * Replays for the service yield the CPU to the shards and the gateway: a record read of a hot
 * market takes seconds of CPU, and on a small machine that core is the one claims need. On Linux a
 * thread has its own nice value (setpriority(2) with who = 0 changes the calling thread only,
 * NPTL), so this lowers this thread alone; raising a nice value never needs privileges. Elsewhere
 * it would lower the whole process, so it is done on Linux only. Audits (the CLI, with no service
 * to give way to) keep their priority.
 */
export const REPLAY_THREAD_NICE = 10;
let niceApplied = false;
function yieldToShards(): void {
  if (niceApplied) return;
  niceApplied = true;
  if (process.platform !== "linux") return;
  try {
    setPriority(0, REPLAY_THREAD_NICE);
  } catch {
    // a sandbox may refuse even this; replays then run at normal priority
  }
}

const utf8 = new TextEncoder();

export const replayWork: PoolTasks["replayWork"] = (work: ReplayWork): ReplayTaskResult => {
  yieldToShards();
  const reply = completeReplayWork(work);
  if (!reply.ok) return reply;
  // move(): piscina transfers the bytes' buffer instead of copying it (see ReplayTaskResult).
  return move(utf8.encode(reply.json)) as Uint8Array;
};

let boardSlot: ProofCacheBoardSlot | undefined;

/** This thread's proof tree cache, bounded as the pool was told (each thread has its own), and its slot on the pool's board. */
function proofCache(): { cache: ProofTreeCache; slot: ProofCacheBoardSlot | undefined } {
  const data = workerData as Partial<PoolWorkerData> | undefined;
  if (boardSlot === undefined && data?.proofCacheBoard !== undefined) boardSlot = new ProofCacheBoardSlot(data.proofCacheBoard);
  return { cache: threadProofCache(data?.proofCacheBytes), slot: boardSlot };
}

export const proofWork: PoolTasks["proofWork"] = (work): ProofTaskResult => {
  yieldToShards();
  const { cache, slot } = proofCache();
  try {
    const proof = completeProofWork(work, cache);
    if ("wantedAfter" in proof) return { wantedAfter: proof.wantedAfter };
    return move(utf8.encode(proofJson(proof))) as Uint8Array;
  } finally {
    slot?.post(cache.stats);
  }
};

export const auditShard: PoolTasks["auditShard"] = ({ index, dir, work, progress }: AuditShardTask): ShardAudit => {
  const post = (message: AuditProgressMessage): void => progress.postMessage(message);
  try {
    const audit = auditOneShard(index, dir, work, (frames) => post({ t: "frames", frames }));
    // After the last count, on the same port: the caller waits for it, so no count arrives late.
    post({ t: "end" });
    return audit;
  } finally {
    progress.close();
  }
};
