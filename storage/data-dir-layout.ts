/**
 * DATA_DIR/cluster.json records the data directory's layout: the shard count its logs were written
 * with. Markets are placed by `hash(marketId) mod shards`, so the count belongs to the data, not to
 * the machine: a directory moved to a machine with another core count starts with its recorded count,
 * and only an explicit SHARDS that disagrees with it is refused (re-sharding is a later concern).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync } from "node:fs";
import * as path from "node:path";

export const CLUSTER_FORMAT_VERSION = 1;
const LAYOUT_FILE = "cluster.json";

interface ClusterMeta {
  formatVersion: number;
  shards: number;
  createdAt: string;
}

export class ClusterConfigError extends Error {
  override name = "ClusterConfigError";
}

/** The shard count recorded in `dataDir`, or undefined for a directory that has none yet. */
export function recordedShardCount(dataDir: string): number | undefined {
  const file = path.join(dataDir, LAYOUT_FILE);
  if (!existsSync(file)) return undefined;
  const meta = JSON.parse(readFileSync(file, "utf8")) as ClusterMeta;
  if (meta.formatVersion !== CLUSTER_FORMAT_VERSION) {
    throw new ClusterConfigError(`${file} has format version ${meta.formatVersion}; this build reads ${CLUSTER_FORMAT_VERSION}`);
  }
  if (!Number.isInteger(meta.shards) || meta.shards < 1 || meta.shards > 256) {
    throw new ClusterConfigError(`${file} records an invalid shard count (${String(meta.shards)})`);
  }
  return meta.shards;
}

/**
 * The shard count to start with: the recorded one when the directory has a layout (an explicit
 * `requested` count that differs is refused), else `requested`, else `fallback`.
 */
export function shardCountFor(dataDir: string, requested: number | undefined, fallback: number): number {
  const recorded = recordedShardCount(dataDir);
  if (recorded === undefined) return requested ?? fallback;
  if (requested !== undefined && requested !== recorded) throw layoutMismatch(dataDir, recorded, requested);
  return recorded;
}

function layoutMismatch(dataDir: string, recorded: number, requested: number): ClusterConfigError {
  return new ClusterConfigError(
    `${dataDir} was created with SHARDS=${recorded}; starting with SHARDS=${requested} would misplace markets. ` +
      `Unset SHARDS (the directory's own count is used) or set SHARDS=${recorded} (re-sharding is not supported).`,
  );
}

/** Checks `shardCount` against the recorded layout, recording it on a directory's first start. */
export function ensureClusterMeta(dataDir: string, shardCount: number, nowMs: number): void {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 256) {
    throw new ClusterConfigError(`SHARDS must be an integer from 1 to 256 (got ${shardCount})`);
  }
  mkdirSync(dataDir, { recursive: true });
  const recorded = recordedShardCount(dataDir);
  if (recorded === shardCount) return;
  if (recorded !== undefined) throw layoutMismatch(dataDir, recorded, shardCount);
  const file = path.join(dataDir, LAYOUT_FILE);
  const meta: ClusterMeta = { formatVersion: CLUSTER_FORMAT_VERSION, shards: shardCount, createdAt: new Date(nowMs).toISOString() };
  const temp = `${file}.tmp`;
  writeFileSync(temp, `${JSON.stringify(meta, null, 2)}\n`);
  const fd = openSync(temp, "r");
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, file);
  const dirFd = openSync(dataDir, "r");
  fsyncSync(dirFd);
  closeSync(dirFd);
}
