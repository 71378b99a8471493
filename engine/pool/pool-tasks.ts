/**
 * The module the worker pool's threads load (worker-pool.ts; piscina calls the export named by
 * each task). Stateless: every task carries what it needs, so any thread can run any task, and a
 * failed task leaves nothing behind. Both kinds are pure replays of logs already durable.
 */
import { setPriority } from "node:os";
import { move } from "piscina";
import { auditShard as auditOneShard } from "../audit/audit-replay.js";
import type { ShardAudit } from "../audit/shard-audit.js";
import { completeReplayWork } from "../runtime/replay-work.js";
import type { ReplayWork } from "../runtime/shard-protocol.js";
import type { AuditProgressMessage, AuditShardTask, PoolTasks, ReplayTaskResult } from "./pool-protocol.js";

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
