/**
 * Which shard owns a market: FNV-1a (32-bit) over the market id's UTF-8 bytes, modulo the shard count.
 * Stable across processes, platforms and versions; changing it would strand every existing market,
 * which is why the shard count is recorded in the data directory (storage/data-dir-layout.ts).
 */

import { fnv1a32Utf8 } from "../store/hash.js";

export { fnv1a32Utf8 as fnv1a32 } from "../store/hash.js";

export function shardOfMarket(marketId: string, shardCount: number): number {
  return fnv1a32Utf8(marketId) % shardCount;
}

/**
 * `<prefix>-<n>` for the first n whose market lands on `partition` among `partitions` (a cluster's
 * partitions are routed as shards are): shardOfMarket read backwards, for the cluster's fault tests
 * and bench:cluster-faults, which must hit one partition's owner. The service does not call it; it
 * lives beside shardOfMarket so it cannot drift from it, and so bench/ need not import from test/.
 */
export function marketIdOnPartition(prefix: string, partition: number, partitions: number): string {
  // Any other partition would never be found: the search would not end.
  if (!Number.isInteger(partitions) || partitions < 1 || !Number.isInteger(partition) || partition < 0 || partition >= partitions) {
    throw new RangeError(`partition ${partition} is not one of ${partitions} partitions`);
  }
  for (let n = 0; ; n += 1) {
    const marketId = `${prefix}-${n}`;
    if (shardOfMarket(marketId, partitions) === partition) return marketId;
  }
}

/** A shard's log id in its signed heads (packages/client/src/audit/signed-head.ts); a cluster's partitions are `partition-<p>`. */
export function shardLogId(shardIndex: number): string {
  return `shard-${shardIndex}`;
}

/**
 * The index n of a log id `<prefix>-<n>` (`shard-3`, `partition-0`) among `count` logs, written as
 * shardLogId writes it (decimal, no leading zero); undefined for any other text.
 */
export function logIndexOf(logId: string, prefix: "shard" | "partition", count: number): number | undefined {
  const match = /^([a-z]+)-(0|[1-9][0-9]{0,8})$/.exec(logId);
  if (match === null || match[1] !== prefix) return undefined;
  const index = Number(match[2]);
  return index < count ? index : undefined;
}
