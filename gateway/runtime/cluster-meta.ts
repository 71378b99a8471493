/**
 * DATA_DIR/cluster.json records the shard count the data was written with. Markets are placed by
 * `hash(marketId) mod shards`, so starting with another count would look for markets in the wrong
 * shard: refuse with a clear message instead (re-sharding is a later concern).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync } from "node:fs";
import * as path from "node:path";

export const CLUSTER_FORMAT_VERSION = 1;

interface ClusterMeta {
  formatVersion: number;
  shards: number;
  createdAt: string;
}

export class ClusterConfigError extends Error {
  override name = "ClusterConfigError";
}

export function ensureClusterMeta(dataDir: string, shardCount: number, nowMs: number): void {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 256) {
    throw new ClusterConfigError(`SHARDS must be an integer from 1 to 256 (got ${shardCount})`);
  }
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "cluster.json");
  if (existsSync(file)) {
    const meta = JSON.parse(readFileSync(file, "utf8")) as ClusterMeta;
    if (meta.formatVersion !== CLUSTER_FORMAT_VERSION) {
      throw new ClusterConfigError(`${file} has format version ${meta.formatVersion}; this build reads ${CLUSTER_FORMAT_VERSION}`);
    }
    if (meta.shards !== shardCount) {
      throw new ClusterConfigError(
        `${dataDir} was created with SHARDS=${meta.shards}; starting with SHARDS=${shardCount} would misplace markets. ` +
          `Start with SHARDS=${meta.shards} (re-sharding is not supported).`,
      );
    }
    return;
  }
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
