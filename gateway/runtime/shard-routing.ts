/**
 * Which shard owns a market: FNV-1a (32-bit) over the market id's UTF-8 bytes, modulo the shard count.
 * Stable across processes, platforms and versions; changing it would strand every existing market,
 * which is why the shard count is recorded in the data directory (cluster-meta.ts).
 */

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash >>> 0;
}

export function shardOfMarket(marketId: string, shardCount: number): number {
  return fnv1a32(marketId) % shardCount;
}
