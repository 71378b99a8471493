/**
 * Names of the assets embedded in the single binary (`dist/market-service`). Shared by the build
 * (build/build-binary.ts writes them into the SEA config) and the runtime loaders in this folder.
 *
 * The binary is the Node executable that built it plus a blob, so the Node ABI at run time is the
 * one at build time: the uWS asset name is derived from the running process and matches.
 */

/** The bundled shard worker (CommonJS text; evaluated with `new Worker(code, { eval: true })`). */
export const SHARD_WORKER_ASSET = "shard-worker.js";

/** The bundled journal worker (engine/journal/journal-worker.ts; the identity log's writes and fdatasyncs), evaluated like the shard worker. */
export const JOURNAL_WORKER_ASSET = "journal-worker.js";

/** uWebSockets.js native addon for this platform and Node ABI (e.g. `uws_linux_x64_115.node`). */
export function uwsAssetName(platform: string = process.platform, arch: string = process.arch, abi: string = process.versions.modules): string {
  return `uws_${platform}_${arch}_${abi}.node`;
}

/** @node-rs/crc32 native addon (N-API, so not tied to the Node ABI); Linux x64 glibc only. */
export const CRC32_ASSET = "crc32.linux-x64-gnu.node";

/**
 * The worker pool's thread module (engine/pool-worker/pool-tasks.ts with piscina's thread runner, one
 * CommonJS file): replays records and old replies for the service, and audits shards for `replay`
 * and `verify`. Extracted to a file (pool-worker-file.ts); `.cjs`, so no package.json above the
 * extraction directory can make Node read it as an ES module.
 */
export const POOL_WORKER_ASSET = "pool-worker.cjs";
