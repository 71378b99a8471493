/**
 * A replay worker (replay-pool.ts starts it): finishes the ReplayWork shards hand back (a market's
 * record, the reply of an old command) so that no shard thread spends its time on them. Stateless:
 * each job carries what it needs, and jobs run one after another in arrival order.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { completeReplayWork } from "./replay-work.js";
import type { ReplayWork, ShardReply } from "./shard-protocol.js";

export interface ReplayJob {
  id: number;
  work: ReplayWork;
}

/**
 * A success travels as the JSON's UTF-8 bytes in a buffer of their own, moved to the gateway
 * thread (transferred, not copied): a hot market's record is tens of MB of JSON, and a string
 * that size costs the receiving thread a copy, then uWS a conversion that takes longer than
 * writing its bytes, while claims wait.
 */
export type FromReplayWorker = { id: number; json: Uint8Array } | { id: number; refusal: Extract<ShardReply, { ok: false }> } | { id: number; error: string };

const utf8 = new TextEncoder();

const port = parentPort;
if (port === null) throw new Error("replay-worker must run in a worker thread");

/**
 * Replays yield the CPU to the shards and the gateway: a record read of a hot market takes seconds
 * of CPU, and on a small machine that core is the one claims need. On Linux a thread has its own
 * nice value (setpriority(2) with who = 0 changes the calling thread only, NPTL), so this lowers
 * this thread alone; raising a nice value never needs privileges. Elsewhere it would lower the
 * whole process, so it is done on Linux only.
 */
export const REPLAY_THREAD_NICE = 10;
if (process.platform === "linux") {
  try {
    setPriority(0, REPLAY_THREAD_NICE);
  } catch {
    // a sandbox may refuse even this; replays then run at normal priority
  }
}
port.on("message", ({ id, work }: ReplayJob) => {
  let message: FromReplayWorker;
  try {
    const reply = completeReplayWork(work);
    if (!reply.ok) message = { id, refusal: reply };
    else {
      const json = utf8.encode(reply.json);
      port.postMessage({ id, json } satisfies FromReplayWorker, [json.buffer as ArrayBuffer]);
      return;
    }
  } catch (error) {
    message = { id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  port.postMessage(message);
});
