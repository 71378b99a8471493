/**
 * `npm run bench:journal-jetstream`: append latency of the JetStream journal on a real 3-node
 * nats-server cluster on this machine (R3, file storage, `sync_interval: always`; the cluster of
 * scripts/nats-cluster.ts), beside the file journal on the same disk in the same run.
 * Appends are serial (one in flight, as a shard appends), each awaited before the next; two batch
 * shapes: one entry, and `--entries` entries (a group-commit batch under load).
 *
 *   npm run bench:journal-jetstream -- [--appends 1000] [--entries 64] [--entry-bytes 200]
 *
 * For the JetStream journal it also prints the CPU the three NATS servers spent per append (user +
 * system, from /proc): what one replicated, fsynced write costs the servers, whatever it holds.
 *
 * Needs scripts/fetch-nats-server.sh. Prints p50/p90/p99/max per shape and journal; writes nothing.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as path from "node:path";
import { FileJournal } from "../engine/journal/file-journal.js";
import { connectForJournals } from "../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../engine/messaging/nats/nats-messaging.js";
import { JetStreamJournal } from "../engine/journal/jetstream-journal.js";
import type { Journal } from "../engine/journal/journal.js";
import { NatsCluster } from "../scripts/nats-cluster.js";
import { numberArg } from "./args.js";
import { percentile } from "./percentile.js";
import { cpuSecondsOf } from "./storm/processes.js";

const APPENDS = numberArg("appends", 1_000);
const ENTRIES = numberArg("entries", 64);
const ENTRY_BYTES = numberArg("entry-bytes", 200);

interface Row {
  journal: string;
  entriesPerBatch: number;
  appends: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  entriesPerSecond: number;
  /** CPU of the NATS servers per append (JetStream only). */
  natsCpuUsPerAppend?: number;
}


async function measure(label: string, journal: Journal, entriesPerBatch: number, natsPids: readonly number[] = []): Promise<Row> {
  const batch = Array.from({ length: entriesPerBatch }, (_, i) => new Uint8Array(ENTRY_BYTES).fill(i & 0xff));
  // Warm-up: connections, the stream's leader, the page cache.
  for (let i = 0; i < 20; i++) await journal.append(batch, { expectedLastSequence: journal.lastSequence });
  const latencies: number[] = [];
  const natsCpuBefore = cpuSecondsOf(natsPids);
  const started = performance.now();
  for (let i = 0; i < APPENDS; i++) {
    const t0 = performance.now();
    await journal.append(batch, { expectedLastSequence: journal.lastSequence });
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - started) / 1000;
  const natsCpu = cpuSecondsOf(natsPids) - natsCpuBefore;
  latencies.sort((a, b) => a - b);
  const round = (ms: number): number => Math.round(ms * 100) / 100;
  return {
    journal: label,
    entriesPerBatch,
    appends: APPENDS,
    p50Ms: round(percentile(latencies, 50)),
    p90Ms: round(percentile(latencies, 90)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(latencies[latencies.length - 1] ?? Number.NaN),
    entriesPerSecond: Math.round((APPENDS * entriesPerBatch) / seconds),
    ...(natsPids.length === 0 ? {} : { natsCpuUsPerAppend: Math.round((natsCpu * 1e6) / APPENDS) }),
  };
}

const root = path.join(import.meta.dirname, "..", ".tmp");
mkdirSync(root, { recursive: true });
const dir = mkdtempSync(path.join(root, "journal-bench-"));
const cluster = await NatsCluster.start();
const connection = await connectForJournals(cluster.urls);
const rows: Row[] = [];
try {
  for (const entries of [1, ENTRIES]) {
    const file = FileJournal.open({ dir: path.join(dir, `file-${entries}`) });
    rows.push(await measure("FileJournal", file, entries));
    await file.close();
    const stream = await JetStreamJournal.open({ messaging: new NatsMessaging(connection), name: `bench-${entries}` });
    rows.push(await measure("JetStreamJournal R3", stream, entries, cluster.pids()));
    await stream.close();
  }
} finally {
  await connection.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.table(rows);
