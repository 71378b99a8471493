/**
 * The named tasks of the worker pool (worker-pool.ts runs them, engine/pool-worker/pool-tasks.ts implements them):
 * what each one takes and gives back, in one place both sides are typed against. Plain data and
 * transferables only: every task and result crosses a thread boundary.
 */
import type { MessagePort } from "node:worker_threads";
import type { ShardAudit, ShardAuditWork } from "./shard-audit.js";
import type { ReplayWork, ShardReply } from "../shard-protocol/shard-protocol.js";
import type { ProofEntriesWanted } from "../audit/cached-log-proofs.js";

/** A refusal a replay reproduces (the command's own rejection), as the shard would have answered. */
export type ReplayRefusal = Extract<ShardReply, { ok: false }>;

/**
 * A finished replay: the JSON's UTF-8 bytes in a buffer of their own, moved to the calling thread
 * (transferred, not copied: a hot market's record is tens of MB of JSON, and a string that size
 * would cost the gateway thread a copy and uWS a conversion while claims wait), or the refusal.
 */
export type ReplayTaskResult = Uint8Array | ReplayRefusal;

/** A proof's JSON (as a replay's), or the entries the thread's kept tree lacks (engine/audit/cached-log-proofs.ts). */
export type ProofTaskResult = ReplayTaskResult | ProofEntriesWanted;

/** What every pool thread is started with (piscina's workerData). */
export interface PoolWorkerData {
  /** The bound of each thread's proof tree cache, bytes (AUDIT_PROOF_CACHE_BYTES). */
  proofCacheBytes: number;
  /** Where each thread posts its proof cache's counters (proof-cache-board.ts). */
  proofCacheBoard: SharedArrayBuffer;
}

/** One shard to audit; `progress` receives AuditProgressMessages and is closed by the task. */
export interface AuditShardTask {
  index: number;
  dir: string;
  work: ShardAuditWork;
  progress: MessagePort;
}

/** Sent on an audit task's progress port: frames done since the last message; "end" comes last. */
export type AuditProgressMessage = { t: "frames"; frames: number } | { t: "end" };

/** The tasks by name: `pool.run(input, { name })` calls the export of that name in engine/pool-worker/pool-tasks.ts. */
export interface PoolTasks {
  /** A shard's ReplayWork finished: a market's record, or the reply of an old command. */
  replayWork(work: ReplayWork): ReplayTaskResult;
  /** A log proof (ReplayWork "proof") through the thread's proof tree cache. */
  proofWork(work: Extract<ReplayWork, { kind: "proof" }>): ProofTaskResult;
  /** One shard audited (`replay` or `verify`), its progress posted on `task.progress`. */
  auditShard(task: AuditShardTask): ShardAudit;
}

export type PoolTaskName = keyof PoolTasks;
