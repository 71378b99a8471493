/**
 * A shard's thread: the message loop (shard-loop.ts) around ShardCore on its journal (the file
 * journal in the shard's directory, or in cluster mode a partition's JetStream stream, fenced by the
 * owner's epoch), on Node's timers and this thread's message port. When the loop stops (fatal, fenced
 * or closed) the thread ends; the gateway exits non-zero only for a fatal error of the embedded default.
 *
 * The thread learns which shard it is from its first message (`open`), not at its start: its modules
 * load before that, so a cluster node keeps one started and a takeover does not wait for them.
 */
import { parentPort, type MessagePort } from "node:worker_threads";
import { ManualClock, systemClock, type Clock } from "../clock.js";
import { systemTimers } from "../timers.js";
import { openFileShard, type OpenedShard } from "./shard-core.js";
import { openPartitionShard } from "./partition-shard.js";
import type { ShardHeadsSpec, ShardWorkerData } from "./worker-messages.js";
import type { LogHeadsOptions } from "../audit/heads/log-heads.js";
import { shardLogId } from "./shard-routing.js";
import { auditSignerFromWorkerData } from "../audit/signing/audit-signer.js";
import { ShardLoop, shardThreadReceiver } from "./shard-loop.js";
import { connectMessaging } from "../messaging/nats/nats-messaging.js";
import { HeadKeys } from "../audit/signing/head-keys.js";

if (parentPort === null) throw new Error("shard-worker must run in a worker thread");
const port: MessagePort = parentPort;

async function openShard(data: ShardWorkerData, clock: Clock): Promise<{ opened: OpenedShard; close(): Promise<void> }> {
  const spec = data.journal;
  const headsSpec = data.heads;
  const signed =
    headsSpec === undefined
      ? {}
      : { heads: headsOptions(headsSpec, spec.kind === "file" ? shardLogId(data.shardIndex) : spec.stream), headChecks: { keys: new HeadKeys(headsSpec.publicKeys), acceptedTails: headsSpec.acceptUnsignedTails } };
  const common = { shardIndex: data.shardIndex, clock, ...signed };
  if (spec.kind === "file") {
    const opened = await openFileShard({ ...common, reportIdempotencyAfterLsn: spec.reportIdempotencyAfterLsn, dir: spec.dir, ...(spec.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: spec.segmentSizeBytes }) });
    return { opened, close: () => Promise.resolve() };
  }
  // Cluster mode: the partition's stream on a NATS connection of this thread's own, closed after the core.
  const startedMs = performance.now();
  const messaging = await connectMessaging(spec.natsUrls, spec.connectionName);
  const connectMs = Math.round(performance.now() - startedMs);
  const partition = await openPartitionShard(messaging, spec, common);
  partition.opened.report.connectMs = connectMs;
  return partition;
}

function headsOptions(spec: ShardHeadsSpec, logId: string): LogHeadsOptions {
  return { logId, signer: auditSignerFromWorkerData(spec.signer), everyCommands: spec.everyCommands, everyMs: spec.everyMs };
}

function startLoop(data: ShardWorkerData): ShardLoop {
  const controlled = data.clockMode === "controlled" ? new ManualClock(data.startMs) : undefined;
  return new ShardLoop({
    open: () => openShard(data, controlled ?? systemClock),
    post: (message, transfer) => port.postMessage(message, transfer),
    exit: (failed) => {
      port.close();
      if (failed) process.exit(1); // ends this worker thread only
    },
    timers: systemTimers,
    controlled,
    tickIntervalMs: data.tickIntervalMs,
    snapshotEveryCommands: data.snapshotEveryCommands,
    ...(data.batchLingerMs === undefined ? {} : { batchLingerMs: data.batchLingerMs }),
  });
}

port.on("message", shardThreadReceiver(startLoop));
