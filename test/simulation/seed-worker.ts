/**
 * A thread that runs seeds for `npm run sim -- --seeds N` (main.ts): the main thread hands it one
 * seed at a time and watches the time each takes, so a seed whose world spins for ever (an endless
 * loop in a node's code holds the thread, and no simulated event can stop it) is reported as a
 * failure of that seed instead of hanging the run.
 */
import { parentPort } from "node:worker_threads";
import { guardDeterminism } from "./determinism-guard.js";
import { runSeed } from "./run-seed.js";

export interface SeedRequest {
  readonly seed: number;
}

export interface SeedReport {
  readonly seed: number;
  readonly violation: string | undefined;
  readonly traceHash: string;
  readonly simulatedMs: number;
  readonly events: number;
  readonly wallMs: number;
}

const port = parentPort;
if (port === null) throw new Error("seed-worker runs in a worker thread");
guardDeterminism();
port.on("message", (request: SeedRequest) => {
  void runSeed(request.seed).then((result) => {
    const report: SeedReport = { seed: result.seed, violation: result.violation, traceHash: result.traceHash, simulatedMs: result.simulatedMs, events: result.events, wallMs: result.wallMs };
    port.postMessage(report);
  });
});
