/**
 * The cluster the fault tests inject faults into: 3 nats-server, 3 service nodes with every
 * partition served by exactly one, a creator principal, and a connection of the test's own that
 * reads the partition streams behind the nodes' backs. Stopped with the nodes' logs saved when a
 * test failed (or with KEEP_NODE_LOGS set).
 */
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { connectForJournals } from "../../../engine/messaging/nats/connect.js";
import { NatsCluster } from "../../../scripts/nats-cluster.js";
import { ServiceCluster, saveNodeLogs } from "./service-cluster.js";
import { provisionPrincipal, type ClusterPrincipal } from "./cluster-clients.js";
import { everyPartitionServedOnce } from "./partition-owners.js";

export interface FaultCluster {
  readonly nats: NatsCluster;
  readonly nodes: ServiceCluster;
  readonly creator: ClusterPrincipal;
  readonly inspector: NatsConnection;
  readonly jsm: JetStreamManager;
}

/** Starts it with `partitions` partitions and the nodes' extra settings `env`; `creatorName` names the creator principal. */
export async function startFaultCluster(partitions: number, env: Record<string, string>, creatorName: string): Promise<FaultCluster> {
  const nats = await NatsCluster.start();
  const nodes = await ServiceCluster.start(nats.urls, 3, { env: { CLUSTER_PARTITIONS: String(partitions), ...env } });
  await everyPartitionServedOnce(nodes, partitions);
  const creator = await provisionPrincipal(nodes, 0, creatorName);
  const inspector = await connectForJournals(nats.urls);
  return { nats, nodes, creator, inspector, jsm: await jetstreamManager(inspector) };
}

/** Stops what started; with `failed` (or KEEP_NODE_LOGS set) the nodes' logs are kept under `name` and their folder printed. */
export async function stopFaultCluster(cluster: Partial<FaultCluster>, name: string, failed: boolean): Promise<void> {
  await cluster.inspector?.close();
  await cluster.nodes?.stop();
  await cluster.nats?.stop();
  if ((failed || process.env["KEEP_NODE_LOGS"] !== undefined) && cluster.nodes !== undefined) console.error(`node logs: ${saveNodeLogs(cluster.nodes, name)}`);
}
