/**
 * A shard's thread: a message loop around ShardCore on its journal (the file journal in the shard's
 * directory, or in cluster mode a partition's JetStream stream, fenced by the owner's epoch). Requests that arrive while a batch is being processed (while its append is durable
 * only after an fdatasync) queue up and become the next batch, so group commit falls out of the
 * loop. Replies of a batch are posted in one message, after its commit.
 *
 * A failed write or fdatasync is fatal: the worker reports it and stops; the gateway exits non-zero.
 * A fenced append (cluster mode: another owner took the partition) is reported as such and the
 * worker stops the same way, its batch unacknowledged; the node stops serving that partition only.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ManualClock, systemClock, type Clock } from "../clock.js";
import { openFileShard, ShardCore, type OpenedShard } from "./shard-core.js";
import { JournalFencedError } from "../journal/journal.js";
import { openPartitionJournal, type PartitionJournal } from "./partition-journal.js";
import { envelope, type Envelope } from "./worker-messages.js";
import type { FromShard, ShardHeadsSpec, ShardWorkerData, ToShard } from "./worker-messages.js";
import type { LogHeadsOptions } from "./log-heads.js";
import { shardLogId } from "./shard-routing.js";
import { auditSignerFromWorkerData } from "../audit/signing/audit-signer.js";
import { HeadKeys } from "../audit/signing/head-keys.js";
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
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  post(error instanceof JournalFencedError ? { t: "fenced", message } : { t: "fatal", message });
  port?.close();
  process.exit(1); // ends this worker thread only
}

/** Everything the core does runs in this order, one task at a time (appends are awaited). */
let work: Promise<void> = Promise.resolve();
function enqueue(task: () => Promise<void>): void {
  work = work.then(task).catch(fatal);
}

let core: ShardCore | undefined;
/** Cluster mode: the partition's stream and its NATS connection, closed after the core. */
let partition: PartitionJournal | undefined;

async function openShard(): Promise<OpenedShard> {
  const spec = data.journal;
  const headsSpec = data.heads;
  const signed =
    headsSpec === undefined
      ? {}
      : { heads: headsOptions(headsSpec, spec.kind === "file" ? shardLogId(data.shardIndex) : spec.stream), headChecks: { keys: new HeadKeys(headsSpec.publicKeys), acceptedTails: headsSpec.acceptUnsignedTails } };
  const common = { shardIndex: data.shardIndex, clock, reportIdempotencyAfterLsn: data.reportIdempotencyAfterLsn, ...signed };
  if (spec.kind === "file") {
    return openFileShard({ ...common, dir: spec.dir, ...(spec.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: spec.segmentSizeBytes }) });
  }
  partition = await openPartitionJournal(spec);
  return ShardCore.open({ ...common, journal: partition.journal, fenced: true });
}

function headsOptions(spec: ShardHeadsSpec, logId: string): LogHeadsOptions {
  return { logId, signer: auditSignerFromWorkerData(spec.signer), everyCommands: spec.everyCommands, everyMs: spec.everyMs };
}

enqueue(async () => {
  const opened = await openShard();
  core = opened.core;
  post({ t: "ready", report: opened.report, idempotency: opened.idempotency });
});

function opened(): ShardCore {
  if (core === undefined) throw new Error("the shard is not open");
  return core;
}

let inbox: Array<Envelope<ShardRequest>> = [];
let scheduled = false;
let closing = false;

/** One batch: everything that arrived since the last one (group commit falls out of this). */
async function processInbox(): Promise<void> {
  scheduled = false;
  if (inbox.length === 0) return;
  const items = inbox;
  inbox = [];
  const shard = opened();
  const responses = await shard.processBatch(items.map((item) => item.body));
  postEvents(shard);
  const packed = packResponses(responses.map((body, index) => envelope((items[index] as Envelope<ShardRequest>).id, body)));
  port?.postMessage({ t: "batch", items: packed, stats: shard.lastBatch } satisfies FromShard, [packed.buffer as ArrayBuffer]);
}

/**
 * Events of watched markets from the batch just committed, before its replies (docs/events.md): a
 * watch answered in this batch counts these events in its `lastSequence`, so its subscriber drops them.
 */
function postEvents(shard: ShardCore): void {
  const events = shard.takeEvents();
  if (events.length > 0) post({ t: "events", events });
}

async function tick(): Promise<void> {
  const shard = opened();
  const fired = await shard.tick();
  postEvents(shard);
  if (fired > 0) post({ t: "stats", stats: shard.lastBatch });
}

const ticker = controlled === undefined ? setInterval(() => enqueue(tick), data.tickIntervalMs) : undefined;

port.on("message", (message: ToShard) => {
  switch (message.t) {
    case "batch":
      if (closing) return;
      controlled?.set(Math.max(controlled.nowMs(), message.nowMs));
      for (const item of unpackRequests(message.items)) inbox.push(item);
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => enqueue(processInbox));
      }
      return;
    case "time":
      if (controlled !== undefined) {
        controlled.set(Math.max(controlled.nowMs(), message.nowMs));
        enqueue(tick);
      }
      return;
    case "snapshot":
      enqueue(async () => {
        await processInbox();
        const written = await opened().snapshot();
        post({ t: "snapshot", id: message.id, lsn: written.lsn, sizeBytes: written.sizeBytes });
      });
      return;
    case "close":
      closing = true;
      if (ticker !== undefined) clearInterval(ticker);
      enqueue(async () => {
        await processInbox();
        const shard = opened();
        if (shard.commandsSinceLastSnapshot > 0) await shard.snapshot();
        await shard.close();
        await partition?.close();
        post({ t: "closed", lsn: shard.lastLsn });
        port.close();
      });
      return;
  }
});
