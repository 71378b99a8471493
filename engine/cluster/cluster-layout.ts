/**
 * The cluster's layout, recorded once in NATS when the cluster is created: its partition count.
 * Markets are placed by `hash(marketId) mod partitions`, so the count belongs to the cluster's data,
 * never to a node's configuration or core count: a node that joins uses the recorded count, and one
 * whose explicit CLUSTER_PARTITIONS disagrees is refused (as SHARDS is for a data directory:
 * engine/runtime/cluster-meta.ts). Kept in KV bucket `cluster-meta`, key `layout`, created with
 * KV's create (exactly one creator wins a race; the others read what it wrote).
 */
import type { KvBucket } from "../messaging/kv.js";
import type { Messaging } from "../messaging/messaging.js";
import { ClusterConfigError } from "../runtime/cluster-meta.js";
import { withRetries } from "../journal/jetstream-retry.js";
import { DEFAULT_PARTITIONS, MAX_PARTITIONS } from "./cluster-settings.js";

export const CLUSTER_LAYOUT_VERSION = 1;
const BUCKET = "cluster-meta";
const KEY = "layout";
const OPEN_DEADLINE_MS = 15_000;
/** How long one request to the bucket waits (the NATS client's default). */
const REQUEST_TIMEOUT_MS = 5_000;

export interface ClusterLayout {
  readonly formatVersion: number;
  readonly partitions: number;
  readonly createdAt: string;
}

function parseLayout(bytes: Uint8Array): ClusterLayout {
  const value = JSON.parse(new TextDecoder().decode(bytes)) as Partial<ClusterLayout>;
  if (value.formatVersion !== CLUSTER_LAYOUT_VERSION) {
    throw new ClusterConfigError(`the cluster's layout has format version ${String(value.formatVersion)}; this build reads ${CLUSTER_LAYOUT_VERSION}`);
  }
  const partitions = value.partitions;
  if (typeof partitions !== "number" || !Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
    throw new ClusterConfigError(`the cluster's layout records an invalid partition count (${String(partitions)})`);
  }
  return { formatVersion: CLUSTER_LAYOUT_VERSION, partitions, createdAt: String(value.createdAt) };
}

/** The `cluster-meta` bucket: the layout and the audit key history (cluster-key-history.ts). */
export async function clusterMetaBucket(messaging: Messaging, replicas: number): Promise<KvBucket> {
  // Reads go to the stream's leader, which holds a record once it was written.
  return messaging.jetStream(REQUEST_TIMEOUT_MS).kv.open(BUCKET, { replicas, history: 1 });
}

/**
 * The cluster's layout: the recorded one, or, for a new cluster, `requested` (else the default)
 * recorded now. An explicit `requested` that differs from the recorded count is refused.
 */
export async function openClusterLayout(messaging: Messaging, requested: number | undefined, nowMs: number, replicas = 3): Promise<ClusterLayout> {
  const layout = await withRetries(messaging.timers, "reading the cluster layout", OPEN_DEADLINE_MS, async () => {
    const kv = await clusterMetaBucket(messaging, replicas);
    const existing = await kv.get(KEY);
    if (existing !== null && existing.operation === "PUT") return parseLayout(existing.value);
    const created: ClusterLayout = { formatVersion: CLUSTER_LAYOUT_VERSION, partitions: requested ?? DEFAULT_PARTITIONS, createdAt: new Date(nowMs).toISOString() };
    try {
      await kv.create(KEY, new TextEncoder().encode(JSON.stringify(created)));
      return created;
    } catch (error) {
      // Another node created it first: theirs is the layout.
      const raced = await kv.get(KEY);
      if (raced === null) throw error;
      return parseLayout(raced.value);
    }
  });
  if (requested !== undefined && requested !== layout.partitions) {
    throw new ClusterConfigError(
      `the cluster was created with CLUSTER_PARTITIONS=${layout.partitions}; this node sets ${requested}, which would misplace markets. ` +
        `Unset CLUSTER_PARTITIONS (the cluster's own count is used) or set it to ${layout.partitions} (re-partitioning is not supported).`,
    );
  }
  return layout;
}
