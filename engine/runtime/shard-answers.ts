/**
 * Turns a shard's response to a read into the reply: the shard's own, or, when the shard handed
 * back ReplayWork (a record, or an old command's reply), the reply of that replay finished on the
 * worker pool, with records kept in the record cache. Used wherever shards run: the embedded
 * runtime and a cluster node's owned partitions.
 */
import { WorkerPool } from "../pool/worker-pool.js";
import { RecordCache, type RecordCacheStats } from "./record-cache.js";
import { okReply, type ShardReply, type ShardResponse } from "./shard-protocol.js";

export interface ShardAnswersOptions {
  /** Worker pool threads for record reads and old replies (default 1; engine/pool/worker-pool.ts). */
  replayThreads?: number;
  /** Bytes of rendered records kept for reads of unchanged records (default 64 MiB; 0 keeps none; record-cache.ts). */
  recordCacheBytes?: number;
  /** Records shorter than this many commands are not kept (default 1,000; record-cache.ts). */
  recordCacheMinLength?: number;
}

export class ShardAnswers {
  private readonly replays: WorkerPool;
  private readonly records: RecordCache;

  constructor(options: ShardAnswersOptions) {
    this.replays = new WorkerPool(options.replayThreads);
    this.records = new RecordCache(options.recordCacheBytes, options.recordCacheMinLength);
  }

  answer(response: ShardResponse): Promise<ShardReply> {
    switch (response.kind) {
      case "read":
        return Promise.resolve(response.reply);
      case "replay": {
        const work = response.work;
        if (work.kind === "record") return this.records.answer(work, (recordWork) => this.replays.replay(recordWork));
        if (work.kind === "proof") return this.replays.replay(work);
        return this.replays.replay(work).then((reply) => withReceipt(reply, work.receipt));
      }
      case "command":
        return Promise.reject(new Error("shard answered a read with a command response"));
    }
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
