/**
 * What makes this process a cluster node (docs/cluster.md): its NATS connection, the cluster's
 * recorded layout, the leases and the cluster runtime. The same binary as the embedded default:
 * service.ts takes this path only when CLUSTER_NATS_URLS is set.
 */
import type { ShardHeadsSpec } from "../engine/runtime/worker-messages.js";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Clock } from "../engine/clock.js";
import type { ClusterSettings } from "../engine/cluster/cluster-settings.js";
import { openClusterLayout, type ClusterLayout } from "../engine/cluster/cluster-layout.js";
import { connectClusterNode } from "../engine/cluster/nats-connection.js";
import { ClusterRuntime } from "../engine/cluster/cluster-runtime.js";
import { LeaseManager } from "../engine/cluster/leases.js";
import type { IdempotencyIndex } from "../engine/idempotency/index.js";
import type { ShardWorkerSource } from "../engine/runtime/shard-host.js";
import type { BatchStats } from "../engine/runtime/shard-protocol.js";
import type { LogFn } from "./http/log.js";
import { JetStreamJournal } from "../engine/journal/jetstream-journal.js";

export interface ClusterConnection {
  readonly settings: ClusterSettings;
  readonly connection: NatsConnection;
  readonly layout: ClusterLayout;
}

/** Connects to NATS (refusing to start, naming the URLs, when it cannot) and reads or records the layout. */
export async function joinCluster(settings: ClusterSettings, clock: Clock): Promise<ClusterConnection> {
  const connection = await connectClusterNode(settings.natsUrls, settings.nodeId);
  try {
    const layout = await openClusterLayout(connection, settings.partitions, clock.nowMs());
    return { settings, connection, layout };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** How long a node waits for the identity stream at start (a cluster starting together elects its leaders meanwhile). */
const IDENTITY_OPEN_DEADLINE_MS = 15_000;

/** The cluster's one identity log (engine/identity/shared-log.ts): the `identity` stream, R3. */
export const IDENTITY_STREAM = "identity";

/**
 * Opens the identity stream on the node's connection: the identity store, given it, runs as one
 * writer of the shared log. Its appends give up after the reply deadline, so an identity command or
 * a token request is answered (503 + Retry-After, the log is reopened) rather than kept waiting.
 */
export function identityJournalOpener(cluster: ClusterConnection): () => Promise<JetStreamJournal> {
  return () =>
    JetStreamJournal.open({
      connection: cluster.connection,
      name: IDENTITY_STREAM,
      retryDeadlineMs: cluster.settings.forwardTimeoutMs,
      // Opening may wait for the stream's creation and first leader while the cluster starts.
      openDeadlineMs: IDENTITY_OPEN_DEADLINE_MS,
    });
}

export interface ClusterRuntimeParts {
  clock: Clock;
  controlledClock: boolean;
  idempotency: IdempotencyIndex;
  checkpointEverySeconds: number;
  workerSource?: ShardWorkerSource;
  log: LogFn;
  onBatch: (partition: number, stats: BatchStats) => void;
  heads?: ShardHeadsSpec;
}

/** The cluster runtime with its leases: from here on this node takes partitions and serves them. */
export async function openClusterRuntime(cluster: ClusterConnection, parts: ClusterRuntimeParts): Promise<ClusterRuntime> {
  const { settings, connection, layout } = cluster;
  const runtime = new ClusterRuntime({
    settings,
    connection,
    partitions: layout.partitions,
    clock: parts.clock,
    controlledClock: parts.controlledClock,
    idempotency: parts.idempotency,
    checkpointEverySeconds: parts.checkpointEverySeconds,
    log: (level, message, fields) => parts.log(level, message, fields),
    onBatch: parts.onBatch,
    ...(parts.workerSource === undefined ? {} : { workerSource: parts.workerSource }),
    ...(parts.heads === undefined ? {} : { heads: parts.heads }),
  });
  const leases = await LeaseManager.open({
    connection,
    nodeId: settings.nodeId,
    partitions: layout.partitions,
    clock: parts.clock,
    leaseMs: settings.leaseMs,
    onAcquired: (lease) => runtime.acquired(lease.partition, lease.epoch),
    onLost: (partition, reason) => runtime.lost(partition, reason),
  });
  runtime.attach(leases);
  return runtime;
}
