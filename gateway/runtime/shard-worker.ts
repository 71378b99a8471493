/**
 * A shard's thread: a message loop around ShardCore. Requests that arrive while a batch is being
 * processed (the batch blocks on its fdatasync) queue up and become the next batch, so group commit
 * falls out of the loop. Replies of a batch are posted in one message, after its commit.
 *
 * A failed write or fdatasync is fatal: the worker reports it and stops; the gateway exits non-zero.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ManualClock, systemClock, type Clock } from "../clock.js";
import { ShardCore } from "./shard-core.js";
import type { Envelope } from "./worker-messages.js";
import type { FromShard, ShardWorkerData, ToShard } from "./worker-messages.js";
import { packResponses, unpackRequests } from "./wire.js";
import type { ShardRequest } from "./shard-protocol.js";

const port = parentPort;
if (port === null) throw new Error("shard-worker must run in a worker thread");
const data = workerData as ShardWorkerData;
const controlled = data.clockMode === "controlled" ? new ManualClock(data.startMs) : undefined;
const clock: Clock = controlled ?? systemClock;

function post(message: FromShard): void {
  port?.postMessage(message);
}

function fatal(error: unknown): never {
  post({ t: "fatal", message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  port?.close();
  process.exit(1); // ends this worker thread only
}

let core: ShardCore;
try {
  const opened = ShardCore.open({
    dir: data.dir,
    shardIndex: data.shardIndex,
    clock,
    reportIdempotencyAfterLsn: data.reportIdempotencyAfterLsn,
    ...(data.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: data.segmentSizeBytes }),
  });
  core = opened.core;
  post({ t: "ready", report: opened.report, idempotency: opened.idempotency });
} catch (error) {
  fatal(error);
}

let inbox: Array<Envelope<ShardRequest>> = [];
let scheduled = false;
let closing = false;

function processInbox(): void {
  scheduled = false;
  if (inbox.length === 0) return;
  const items = inbox;
  inbox = [];
  try {
    const responses = core.processBatch(items.map((item) => item.body));
    const packed = packResponses(responses.map((body, index) => ({ id: (items[index] as Envelope<ShardRequest>).id, body })));
    port?.postMessage({ t: "batch", items: packed, stats: core.lastBatch } satisfies FromShard, [packed.buffer as ArrayBuffer]);
  } catch (error) {
    fatal(error);
  }
}

function tick(): void {
  try {
    if (core.tick() > 0) post({ t: "stats", stats: core.lastBatch });
  } catch (error) {
    fatal(error);
  }
}

const ticker = controlled === undefined ? setInterval(tick, data.tickIntervalMs) : undefined;

port.on("message", (message: ToShard) => {
  switch (message.t) {
    case "batch":
      if (closing) return;
      controlled?.set(Math.max(controlled.nowMs(), message.nowMs));
      for (const item of unpackRequests(message.items)) inbox.push(item);
      if (!scheduled) {
        scheduled = true;
        setImmediate(processInbox);
      }
      return;
    case "time":
      if (controlled !== undefined) {
        controlled.set(Math.max(controlled.nowMs(), message.nowMs));
        tick();
      }
      return;
    case "snapshot":
      processInbox();
      try {
        const written = core.snapshot();
        post({ t: "snapshot", id: message.id, lsn: written.lsn, sizeBytes: written.sizeBytes });
      } catch (error) {
        fatal(error);
      }
      return;
    case "close":
      closing = true;
      processInbox();
      if (ticker !== undefined) clearInterval(ticker);
      try {
        if (core.commandsSinceLastSnapshot > 0) core.snapshot();
        core.close();
      } catch (error) {
        fatal(error);
      }
      post({ t: "closed", lsn: core.lastLsn });
      port.close();
      return;
  }
});
