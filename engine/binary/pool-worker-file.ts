/**
 * Single binary only: the worker pool's thread module (engine/pool-worker/pool-tasks.ts bundled together
 * with piscina's own thread runner, one CommonJS file; build/build-binary.ts) extracted from the
 * executable as embedded-file.ts does it (private directory, checked by hash, reused, replaced when
 * it differs). piscina starts each thread from this file, and the runner then finds the tasks in
 * the same file: a thread's main module is in the require cache, so loading it again is free.
 */
import { POOL_WORKER_ASSET } from "./assets.js";
import { extractEmbeddedFile } from "./embedded-file.js";

export function seaPoolWorkerFile(): string {
  return extractEmbeddedFile(POOL_WORKER_ASSET, { what: "worker pool module", plural: "Embedded files" }).file;
}
