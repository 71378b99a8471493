/**
 * Where a worker thread's code comes from: inside the single binary, a bundled worker is an asset
 * of the executable, and a worker thread cannot be started from a file that does not exist, so it
 * is evaluated (`new Worker(code, { eval: true })`); from TypeScript sources (tests), tsx is
 * registered inside the worker first; from the built output, the worker is its .js file.
 *
 * `node:sea` is reached through process.getBuiltinModule so that importing this module costs the
 * normal (non-SEA) path nothing but one call.
 */
import type * as Sea from "node:sea";
import { Worker, type WorkerOptions } from "node:worker_threads";

export type WorkerSource = { kind: "file"; url: URL } | { kind: "eval"; code: string };

/** The bundled worker `asset` when running as the single binary, else undefined. */
export function embeddedWorkerSource(asset: string): { kind: "eval"; code: string } | undefined {
  const sea = process.getBuiltinModule("node:sea") as typeof Sea | undefined;
  if (sea === undefined || !sea.isSea()) return undefined;
  return { kind: "eval", code: sea.getAsset(asset, "utf8") };
}

/**
 * The source of the worker module `basename` (without extension) that sits beside the module at
 * `hereUrl` (the caller's `import.meta.url`), or the embedded `asset` in the single binary.
 */
export function workerSource(asset: string, hereUrl: string, basename: string): WorkerSource {
  const embedded = embeddedWorkerSource(asset);
  if (embedded !== undefined) return embedded;
  if (hereUrl.endsWith(".ts")) {
    const target = new URL(`./${basename}.ts`, hereUrl).href;
    return {
      kind: "eval",
      code: `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(target)}); }).catch((error) => { console.error(error); process.exit(1); });`,
    };
  }
  return { kind: "file", url: new URL(`./${basename}.js`, hereUrl) };
}

export function startWorker(source: WorkerSource, options: WorkerOptions): Worker {
  return source.kind === "file" ? new Worker(source.url, options) : new Worker(source.code, { ...options, eval: true });
}
