/**
 * The gateway's replay workers: where a shard's ReplayWork is finished (replay-work.ts). Started on
 * the first job, not with the service (most runs never read a record), and unref'd, so an idle one
 * keeps nothing alive. Jobs go to the worker with the fewest outstanding; each worker runs its
 * jobs in order. A worker that dies fails its outstanding jobs (the reads answer 500) and is
 * replaced on the next job; shard state is never involved, so nothing else is affected.
 */
import type { Worker } from "node:worker_threads";
import { REPLAY_WORKER_ASSET } from "../sea/assets.js";
import { startWorker, workerSource, type WorkerSource } from "../sea/embedded-worker.js";
import type { FromReplayWorker, ReplayJob } from "./replay-worker.js";
import type { ReplayWork, ShardReply } from "./shard-protocol.js";

/** One worker by default: replays are rare, and on a small machine a second would only take CPU from the shards. */
export const DEFAULT_REPLAY_THREADS = 1;

interface Lane {
  worker: Worker;
  outstanding: Map<number, { resolve: (reply: ShardReply) => void; reject: (error: Error) => void }>;
}

export class ReplayPool {
  private readonly lanes: Array<Lane | undefined>;
  private nextId = 1;
  private closed = false;

  constructor(
    threads: number = DEFAULT_REPLAY_THREADS,
    private readonly source: WorkerSource = workerSource(REPLAY_WORKER_ASSET, import.meta.url, "replay-worker"),
  ) {
    if (!(Number.isInteger(threads) && threads >= 1 && threads <= 64)) throw new RangeError(`replay threads must be an integer in [1, 64], not ${threads}`);
    this.lanes = new Array<Lane | undefined>(threads).fill(undefined);
  }

  /** Finish `work` on a worker. Rejects if the worker fails or the pool is closed meanwhile. */
  run(work: ReplayWork): Promise<ShardReply> {
    if (this.closed) return Promise.reject(new Error("the replay pool is closed"));
    const lane = this.laneFor();
    const id = this.nextId++;
    return new Promise<ShardReply>((resolve, reject) => {
      lane.outstanding.set(id, { resolve, reject });
      lane.worker.postMessage({ id, work } satisfies ReplayJob);
    });
  }

  /** Workers started and not exited (for tests and metrics). */
  get running(): number {
    return this.lanes.filter((lane) => lane !== undefined).length;
  }

  /** An idle started worker; else a new one while there is room; else the least busy. */
  private laneFor(): Lane {
    let best: Lane | undefined;
    for (const lane of this.lanes) if (lane !== undefined && (best === undefined || lane.outstanding.size < best.outstanding.size)) best = lane;
    if (best !== undefined && best.outstanding.size === 0) return best;
    const free = this.lanes.indexOf(undefined);
    if (free >= 0) return this.start(free);
    if (best === undefined) throw new Error("a replay pool has at least one lane");
    return best;
  }

  private start(index: number): Lane {
    const worker = startWorker(this.source, {});
    worker.unref();
    const lane: Lane = { worker, outstanding: new Map() };
    this.lanes[index] = lane;
    const failAll = (why: string) => {
      if (this.lanes[index] === lane) this.lanes[index] = undefined;
      for (const { reject } of lane.outstanding.values()) reject(new Error(why));
      lane.outstanding.clear();
    };
    worker.on("message", (message: FromReplayWorker) => {
      const job = lane.outstanding.get(message.id);
      if (job === undefined) return;
      lane.outstanding.delete(message.id);
      if ("error" in message) job.reject(new Error(`replay failed: ${message.error}`));
      else if ("refusal" in message) job.resolve(message.refusal);
      else job.resolve({ ok: true, json: Buffer.from(message.json.buffer, message.json.byteOffset, message.json.byteLength) });
    });
    worker.on("error", (error) => failAll(`replay worker failed: ${error.message}`));
    worker.on("exit", (code) => failAll(`replay worker exited (code ${code})`));
    return lane;
  }

  /** Stop every worker; outstanding jobs are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.lanes.map((lane) => lane?.worker.terminate()));
  }
}
