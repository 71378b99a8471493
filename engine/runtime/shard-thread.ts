/**
 * A shard's thread as its channel (shard-channel.ts) sees it: messages both ways, an error, an
 * exit. Node's Worker is one (production: shard-worker.ts in a worker thread); the simulation runs
 * the same loop (shard-loop.ts) in-process behind this shape, its messages carried by the scheduler.
 */
import { startWorker, type WorkerSource } from "../binary/embedded-worker.js";
import type { FromShard, ToShard } from "./worker-messages.js";

export interface ShardThread {
  postMessage(message: ToShard, transfer?: readonly ArrayBuffer[]): void;
  on(event: "message", listener: (message: FromShard) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "exit", listener: (code: number) => void): unknown;
  once(event: "message", listener: (message: FromShard) => void): unknown;
  once(event: "error", listener: (error: Error) => void): unknown;
  once(event: "exit", listener: (code: number) => void): unknown;
  off(event: "message", listener: (message: FromShard) => void): unknown;
  off(event: "error", listener: (error: Error) => void): unknown;
  off(event: "exit", listener: (code: number) => void): unknown;
  terminate(): Promise<number>;
}

/** Starts a shard's thread, which waits for its first message (`open`: what it opens) before it does anything. */
export type ShardThreadStarter = () => ShardThread;

/** Shards in worker threads running `source` (shard-worker.ts). */
export function workerThreads(source: WorkerSource): ShardThreadStarter {
  return () => startWorker(source, {});
}
