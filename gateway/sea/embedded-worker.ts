/**
 * The shard worker's code inside the single binary: the bundled worker (built from
 * gateway/runtime/shard-worker.ts) is an asset of the executable, and a worker thread cannot be
 * started from a file that does not exist, so it is evaluated (`new Worker(code, { eval: true })`).
 * Outside the binary this returns undefined and the usual file/tsx source is used.
 *
 * `node:sea` is reached through process.getBuiltinModule so that importing this module costs the
 * normal (non-SEA) path nothing but one call.
 */
import type * as Sea from "node:sea";
import { SHARD_WORKER_ASSET } from "./assets.js";

export function embeddedShardWorkerSource(): { kind: "eval"; code: string } | undefined {
  const sea = process.getBuiltinModule("node:sea") as typeof Sea | undefined;
  if (sea === undefined || !sea.isSea()) return undefined;
  return { kind: "eval", code: sea.getAsset(SHARD_WORKER_ASSET, "utf8") };
}
