/**
 * Real shard workers behind a gate, for tests of the readiness gate: the service listens and answers
 * 503 `service_unavailable` with Retry-After until its shards have recovered, and these workers start
 * recovering only once the test opens the gate (and exit, code 7, when told to crash).
 */
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import type { ShardWorkerSource } from "../../engine/runtime/shard-host.js";

const SHARD_WORKER = new URL("../../engine/runtime/shard-worker.ts", import.meta.url).href;

/** Real shard workers that start recovering only once `gate` exists, and exit (code 7) once `crash.<shard>` does. */
export function gatedWorkers(dir: string): { source: ShardWorkerSource; open(): void; crash(shard: number): void } {
  const gate = path.join(dir, "gate");
  const crash = path.join(dir, "crash");
  const code = `
    const fs = require("node:fs");
    const { parentPort } = require("node:worker_threads");
    // A thread learns its shard from its first message ("open"): the worker's own listener is
    // wrapped to read it on the way, so that a crash can be asked of one shard.
    let shardIndex;
    const on = parentPort.on.bind(parentPort);
    parentPort.on = (event, listener) =>
      on(event, event !== "message" ? listener : (message) => {
        if (message.t === "open") shardIndex = message.data.shardIndex;
        listener(message);
      });
    const waiting = setInterval(() => {
      if (!fs.existsSync(${JSON.stringify(gate)})) return;
      clearInterval(waiting);
      import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(SHARD_WORKER)}); })
        .catch((error) => { console.error(error); process.exit(1); });
    }, 5);
    setInterval(() => { if (shardIndex !== undefined && fs.existsSync(${JSON.stringify(crash)} + "." + shardIndex)) process.exit(7); }, 5).unref();
  `;
  return {
    source: { kind: "eval", code },
    open: () => writeFileSync(gate, ""),
    crash: (shard) => writeFileSync(`${crash}.${shard}`, ""),
  };
}
