/**
 * Which shard owns a market: FNV-1a (32-bit) over the market id's UTF-8 bytes, modulo the shard count.
 * Stable across processes, platforms and versions; changing it would strand every existing market,
 * which is why the shard count is recorded in the data directory (cluster-meta.ts).
 */

import { fnv1a32Utf8 } from "../store/hash.js";

export { fnv1a32Utf8 as fnv1a32 } from "../store/hash.js";

export function shardOfMarket(marketId: string, shardCount: number): number {
  return fnv1a32Utf8(marketId) % shardCount;
}

/** A shard's log id in its signed heads (engine/audit/heads/signed-head.ts); a cluster's partitions are `partition-<p>`. */
export function shardLogId(shardIndex: number): string {
  return `shard-${shardIndex}`;
}
