/**
 * The worker pool: threads for the stateless CPU work of replaying logs that are already durable.
 * The service finishes record reads and old commands' replies on it (a shard hands back ReplayWork,
 * engine/shard-protocol/shard-protocol.ts, so that no shard thread spends its time replaying); the audit CLI (`replay`,
 * `verify`) audits shards on it (engine/replay/parallel-audit.ts). piscina runs the threads; the
 * tasks are the named exports of engine/pool-worker/pool-tasks.ts, typed in pool-protocol.ts.
 *
 *   - Lazy: no thread starts before the first task (most runs of the service never read a record),
 *     and in the single binary the thread module is not even extracted before then.
 *   - Idle threads are unref'd (piscina), so they keep nothing alive; they stay for the next task.
 *   - Tasks wait in arrival order for the least busy thread, at most `threads` run at once.
 *   - A task that throws rejects with its error and its thread stays. A thread that dies fails its
 *     own task, and another is started for the next one. Shard state is never involved, so a failed
 *     task harms nothing else (a record read answers 500).
 *   - A thread that fails outside any task (while it starts, say) is reported by piscina as an
 *     'error' event, after which piscina starts no other thread and would leave the waiting tasks
 *     queued for ever: this pool then fails every task it has outstanding and starts afresh on the
 *     next one.
 */
import { fileURLToPath } from "node:url";
import { MessageChannel, type TransferListItem } from "node:worker_threads";
import { Piscina } from "piscina";
import type { ShardAudit, ShardAuditWork } from "./shard-audit.js";
import type { ReplayWork, ShardReply } from "../shard-protocol/shard-protocol.js";
import type { AuditProgressMessage, PoolTaskName, PoolTasks, PoolWorkerData, ReplayTaskResult } from "./pool-protocol.js";
import type { ProofEntriesWanted } from "../audit/cached-log-proofs.js";
import { DEFAULT_PROOF_CACHE_BYTES, type ProofCacheStats } from "../audit/proof-tree-cache.js";
import { newProofCacheBoard, readProofCacheBoard } from "./proof-cache-board.js";
import { poolWorkerFile, type PoolWorkerFile } from "./worker-file.js";

/** One thread by default: replays are rare, and on a small machine a second would only take CPU from the shards. */
export const DEFAULT_POOL_THREADS = 1;
/** The audit CLI's `--threads` bound (gateway/cli/cli.ts). */
export const MAX_POOL_THREADS = 256;

interface Started {
  piscina: Piscina;
  /** The task module's path (piscina would convert a file: URL again on every task). */
  filename: string;
  /** The rejections of the tasks this piscina instance has not settled yet. */
  outstanding: Set<(error: Error) => void>;
}

/** A replay's result as a reply: the JSON bytes moved here, or the refusal. */
function replyOf(result: ReplayTaskResult): ShardReply {
  return result instanceof Uint8Array ? { ok: true, json: Buffer.from(result.buffer, result.byteOffset, result.byteLength) } : result;
}

function errorSummary(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export class WorkerPool {
  private started: Started | undefined;
  private closed = false;
  /** Shared with every thread this pool starts, also after a restart: the counters only grow. */
  private readonly proofCacheBoard = newProofCacheBoard();

  constructor(
    readonly threads: number = DEFAULT_POOL_THREADS,
    /** Where the threads find engine/pool-worker/pool-tasks.ts (tests pass their own to provoke failures). */
    private readonly workerFile: () => PoolWorkerFile = poolWorkerFile,
    /** The bound of each thread's proof tree cache (each thread keeps its own: docs/proofs.md, "Cost"). */
    readonly proofCacheBytes: number = DEFAULT_PROOF_CACHE_BYTES,
  ) {
    if (!(Number.isInteger(threads) && threads >= 1 && threads <= MAX_POOL_THREADS)) {
      throw new RangeError(`worker pool threads must be an integer in [1, ${MAX_POOL_THREADS}], not ${threads}`);
    }
  }

  /** Threads started and not exited (tests, metrics). */
  get running(): number {
    return this.started?.piscina.threads.length ?? 0;
  }

  /** Finish a shard's ReplayWork on a thread. Rejects if the task fails or the pool is closed meanwhile. */
  async replay(work: ReplayWork): Promise<ShardReply> {
    if (work.kind === "proof") {
      const proof = await this.proof(work);
      if ("wantedAfter" in proof) throw new Error(`replay failed: the proof of ${work.logId} needs the entries after ${proof.wantedAfter}; the shard sent those after ${work.after}`);
      return proof;
    }
    let result: ReplayTaskResult;
    try {
      result = await this.run("replayWork", work);
    } catch (error) {
      throw new Error(`replay failed: ${errorSummary(error)}`);
    }
    return replyOf(result);
  }

  /**
   * A log proof on a thread, through that thread's proof tree cache; or, when the shard sent the
   * entries after more than the thread keeps (another thread's cache, an eviction), how many it keeps:
   * ask the shard again for the entries after those (shard-answers.ts).
   */
  async proof(work: Extract<ReplayWork, { kind: "proof" }>): Promise<ShardReply | ProofEntriesWanted> {
    let result: Awaited<ReturnType<PoolTasks["proofWork"]>>;
    try {
      result = await this.run("proofWork", work);
    } catch (error) {
      throw new Error(`replay failed: ${errorSummary(error)}`);
    }
    return "wantedAfter" in result ? result : replyOf(result);
  }

  /** The proof cache counters of every thread, summed, as the threads posted them after their proofs (proof-cache-board.ts). */
  get proofCacheStats(): ProofCacheStats {
    return readProofCacheBoard(this.proofCacheBoard);
  }

  /**
   * Audit one shard on a thread; `onFrames(n)` hears of every n frames done, all of them before the
   * promise resolves. Rejects with the audit's own error (a log that will not open, say).
   */
  async auditShard(shard: { index: number; dir: string }, work: ShardAuditWork, onFrames: (frames: number) => void): Promise<ShardAudit> {
    const { port1, port2 } = new MessageChannel();
    let ended: () => void = () => undefined;
    const end = new Promise<void>((resolve) => (ended = resolve));
    port1.on("message", (message: AuditProgressMessage) => {
      if (message.t === "frames") onFrames(message.frames);
      else ended();
    });
    try {
      const audit = await this.run("auditShard", { index: shard.index, dir: shard.dir, work, progress: port2 }, [port2]);
      // The task posted "end" after its last count: wait for the counts still on their way.
      await end;
      return audit;
    } finally {
      port1.close();
    }
  }

  private run<N extends PoolTaskName>(name: N, task: Parameters<PoolTasks[N]>[0], transferList: TransferListItem[] = []): Promise<ReturnType<PoolTasks[N]>> {
    if (this.closed) return Promise.reject(new Error("the worker pool is closed"));
    let started: Started;
    try {
      started = this.started ?? this.start();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<ReturnType<PoolTasks[N]>>((resolve, reject) => {
      started.outstanding.add(reject);
      started.piscina.run(task, { name, filename: started.filename, transferList }).then(
        (result: unknown) => {
          started.outstanding.delete(reject);
          resolve(result as ReturnType<PoolTasks[N]>);
        },
        (error: unknown) => {
          started.outstanding.delete(reject);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private start(): Started {
    const file = this.workerFile();
    const piscina = new Piscina({
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: { proofCacheBytes: this.proofCacheBytes, proofCacheBoard: this.proofCacheBoard } satisfies PoolWorkerData,
      ...(file.execArgv === undefined ? {} : { execArgv: file.execArgv }),
    });
    const filename = file.filename.startsWith("file:") ? fileURLToPath(file.filename) : file.filename;
    const started: Started = { piscina, filename, outstanding: new Set() };
    piscina.on("error", (error: unknown) => {
      if (this.started === started) this.started = undefined;
      const failure = new Error(`a worker pool thread failed: ${errorSummary(error)}`);
      for (const reject of started.outstanding) reject(failure);
      started.outstanding.clear();
      void piscina.destroy().catch(() => undefined);
    });
    this.started = started;
    return started;
  }

  /** Stop every thread; outstanding tasks are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const started = this.started;
    this.started = undefined;
    await started?.piscina.destroy();
  }
}
