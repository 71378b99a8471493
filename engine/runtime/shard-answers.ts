/**
 * Turns a shard's response to a read into the reply: the shard's own, or, when the shard handed
 * back ReplayWork (a record, or an old command's reply), the reply of that replay finished on the
 * worker pool, with records kept in the record cache. Used wherever shards run: the embedded
 * runtime and a cluster node's owned partitions.
 */
import { WorkerPool } from "../pool/worker-pool.js";
import type { ProofCacheStats } from "../audit/proof-tree-cache.js";
import type { ProofEntriesWanted } from "../audit/cached-log-proofs.js";
import { RecordCache, type RecordCacheStats } from "./record-cache.js";
import { okReply, type ReplayWork, type ShardReply, type ShardResponse } from "../shard-protocol/shard-protocol.js";

/**
 * Asks the shard for a proof again, with the entries after the first `after` (a log proof's read
 * request with that `after`): the pool thread keeps that many of the log's entries.
 */
export type ProofReask = (after: number) => Promise<ShardResponse>;

/** How often one proof may be asked again: once for the thread's kept size, once more from the start if that tree then fails its check. */
const PROOF_REASKS = 2;

/**
 * Where replays run: the worker pool (production: engine/pool/worker-pool.ts); the simulation
 * replays in-process with the same functions (engine/pool-worker/replay-work.ts).
 */
export interface Replays {
  replay(work: ReplayWork): Promise<ShardReply>;
  proof(work: Extract<ReplayWork, { kind: "proof" }>): Promise<ShardReply | ProofEntriesWanted>;
  readonly proofCacheStats: ProofCacheStats;
  close(): Promise<void>;
}

export interface ShardAnswersOptions {
  /** Where replays run (default: a worker pool of `replayThreads` threads). */
  replays?: Replays;
  /** Worker pool threads for record reads and old replies (default 1; engine/pool/worker-pool.ts). */
  replayThreads?: number;
  /** Bytes of rendered records kept for reads of unchanged records (default 64 MiB; 0 keeps none; record-cache.ts). */
  recordCacheBytes?: number;
  /** Records shorter than this many commands are not kept (default 1,000; record-cache.ts). */
  recordCacheMinLength?: number;
  /** Bytes of log trees each pool thread keeps for proofs (default 256 MiB; engine/audit/proof-tree-cache.ts). */
  proofCacheBytes?: number;
}

export class ShardAnswers {
  private readonly replays: Replays;
  private readonly records: RecordCache;

  constructor(options: ShardAnswersOptions) {
    this.replays = options.replays ?? new WorkerPool(options.replayThreads, undefined, options.proofCacheBytes);
    this.records = new RecordCache(options.recordCacheBytes, options.recordCacheMinLength);
  }

  /** `reask`: for a log proof's response, how to ask its shard again (a journal without a view: engine/audit/cached-log-proofs.ts). */
  answer(response: ShardResponse, reask?: ProofReask): Promise<ShardReply> {
    switch (response.kind) {
      case "read":
        return Promise.resolve(response.reply);
      case "replay": {
        const work = response.work;
        if (work.kind === "record") return this.records.answer(work, (recordWork) => this.replays.replay(recordWork));
        if (work.kind === "proof") return this.proof(work, reask, 0);
        return this.replays.replay(work).then((reply) => withReceipt(reply, work.receipt));
      }
      case "command":
        return Promise.reject(new Error("shard answered a read with a command response"));
    }
  }

  /**
   * A proof from the pool; when the thread keeps fewer of the log's entries than the shard sent the
   * proof after, the shard is asked again for the entries after those it keeps.
   */
  private async proof(work: Extract<ReplayWork, { kind: "proof" }>, reask: ProofReask | undefined, asked: number): Promise<ShardReply> {
    const result = await this.replays.proof(work);
    if (!("wantedAfter" in result)) return result;
    if (reask === undefined || asked >= PROOF_REASKS) {
      throw new Error(`the proof of ${work.logId} was not built: the pool thread keeps ${result.wantedAfter} entries, and the shard sent those after ${work.after}`);
    }
    const again = await reask(result.wantedAfter);
    if (again.kind === "replay" && again.work.kind === "proof") return this.proof(again.work, reask, asked + 1);
    return this.answer(again);
  }

  /** The proof cache counters of the pool's threads, summed: tests, metrics. */
  get proofCacheStats(): ProofCacheStats {
    return this.replays.proofCacheStats;
  }

  /** Record reads answered from kept records, shared replays and replays run (tests, metrics). */
  get recordCacheStats(): RecordCacheStats {
    return this.records.stats;
  }

  close(): Promise<void> {
    return this.replays.close();
  }
}

/** An old accepted reply, replayed, with the receipt its shard signed for it (none on a refusal). */
function withReceipt(reply: ShardReply, receipt: string): ShardReply {
  return reply.ok && receipt !== "" ? okReply(reply.json, receipt) : reply;
}
