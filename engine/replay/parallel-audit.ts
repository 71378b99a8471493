/**
 * Shards audited in parallel on the worker pool (engine/pool/worker-pool.ts), at most `threads`
 * at a time, taken in shard order. Results come back in shard order whatever order the threads
 * finish in, so the output is the same for any thread count.
 */
import { WorkerPool } from "../pool/worker-pool.js";
import type { ShardAudit, ShardAuditWork } from "../pool/shard-audit.js";

export async function auditShardsOnWorkers(
  shards: ReadonlyArray<{ index: number; dir: string }>,
  work: ShardAuditWork,
  threads: number,
  onFrames: (frames: number) => void,
): Promise<ShardAudit[]> {
  if (!(Number.isInteger(threads) && threads >= 1)) throw new RangeError(`threads must be a positive integer, not ${threads}`);
  if (shards.length === 0) return [];
  const results: ShardAudit[] = new Array<ShardAudit>(shards.length);
  const pool = new WorkerPool(Math.min(threads, shards.length));
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    // After a failure no lane starts another shard (its result would not be reported).
    while (next < shards.length && !failed) {
      const position = next++;
      try {
        results[position] = await pool.auditShard(shards[position] as { index: number; dir: string }, work, onFrames);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: pool.threads }, lane));
  } finally {
    // Done, or one shard failed outright: then the others' results are not reported, and closing
    // the pool stops their work.
    await pool.close();
  }
  return results;
}
