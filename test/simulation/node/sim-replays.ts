/**
 * Replays (record reads, old replies, proofs) in the simulation: the worker pool's functions
 * (engine/pool-worker/replay-work.ts), run in-process as the node, a moment after they are asked for.
 */
import { ProofTreeCache, type ProofCacheStats } from "../../../engine/audit/proof-tree-cache.js";
import type { ProofEntriesWanted } from "../../../engine/audit/cached-log-proofs.js";
import { completeProofWork, completeReplayWork, proofJson } from "../../../engine/pool-worker/replay-work.js";
import type { Replays } from "../../../engine/runtime/shard-answers.js";
import type { ReplayWork, ShardReply } from "../../../engine/shard-protocol/shard-protocol.js";
import type { Timers } from "../../../engine/timers.js";

export class SimReplays implements Replays {
  private readonly cache = new ProofTreeCache(16 * 1024 * 1024);

  constructor(private readonly timers: Timers) {}

  private later<T>(work: () => T): Promise<T> {
    return new Promise((resolve, reject) =>
      this.timers.after(1, () => {
        try {
          resolve(work());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }),
    );
  }

  replay(work: ReplayWork): Promise<ShardReply> {
    if (work.kind === "proof") return this.proof(work).then((result) => ("wantedAfter" in result ? Promise.reject(new Error("proof needs more entries")) : result));
    return this.later(() => completeReplayWork(work));
  }

  proof(work: Extract<ReplayWork, { kind: "proof" }>): Promise<ShardReply | ProofEntriesWanted> {
    return this.later(() => {
      const proof = completeProofWork(work, this.cache);
      return "wantedAfter" in proof ? proof : { ok: true as const, json: proofJson(proof) };
    });
  }

  get proofCacheStats(): ProofCacheStats {
    return this.cache.stats;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
