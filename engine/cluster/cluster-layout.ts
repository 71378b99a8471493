/**
 * The cluster's layout, recorded once in NATS when the cluster is created: its partition count, and
 * how many of the partitions are key homes (the first `keyHomes`: their owners bind idempotency
 * keys, key-bindings.ts). Markets are placed by `hash(marketId) mod partitions` and keys by
 * `hash(key) mod keyHomes`, so both counts belong to the cluster's data, never to a node's
 * configuration or core count: a node that joins uses the recorded counts, and one whose explicit
 * CLUSTER_PARTITIONS or CLUSTER_KEY_HOMES disagrees is refused (as SHARDS is for a data directory:
 * storage/data-dir-layout.ts). Kept in KV bucket `cluster-meta`, key `layout`, created with
 * KV's create (exactly one creator wins a race; the others read what it wrote).
 *
 * Format 1 had no key homes: every partition was one (its clusters keep that). A build that knows
 * only format 1 refuses format 2 rather than look for keys where they are not.
 */
import type { KvBucket } from "../messaging/kv.js";
import type { Messaging } from "../messaging/messaging.js";
import { ClusterConfigError } from "../../storage/data-dir-layout.js";
import { withRetries } from "../journal/jetstream-retry.js";
import { DEFAULT_KEY_HOMES, DEFAULT_PARTITIONS, MAX_PARTITIONS } from "./cluster-settings.js";

export const CLUSTER_LAYOUT_VERSION = 2;
/** The format before key homes: every partition a key home. */
const LAYOUT_VERSION_ALL_HOMES = 1;
const BUCKET = "cluster-meta";
const KEY = "layout";
const OPEN_DEADLINE_MS = 15_000;
/** How long one request to the bucket waits (the NATS client's default). */
const REQUEST_TIMEOUT_MS = 5_000;

export interface ClusterLayout {
  readonly formatVersion: number;
  readonly partitions: number;
  /** Partitions 0..keyHomes-1 are the key homes (1..partitions). */
  readonly keyHomes: number;
  readonly createdAt: string;
}

/** What a node asks for when it may be the one creating the cluster (unset: the defaults). */
export interface RequestedLayout {
  readonly partitions: number | undefined;
  readonly keyHomes: number | undefined;
}

function parseLayout(bytes: Uint8Array): ClusterLayout {
  const value = JSON.parse(new TextDecoder().decode(bytes)) as Partial<ClusterLayout>;
  const formatVersion = value.formatVersion;
  if (formatVersion !== CLUSTER_LAYOUT_VERSION && formatVersion !== LAYOUT_VERSION_ALL_HOMES) {
    throw new ClusterConfigError(`the cluster's layout has format version ${String(formatVersion)}; this build reads ${LAYOUT_VERSION_ALL_HOMES} and ${CLUSTER_LAYOUT_VERSION}`);
  }
  const partitions = value.partitions;
  if (!isCount(partitions, MAX_PARTITIONS)) {
    throw new ClusterConfigError(`the cluster's layout records an invalid partition count (${String(partitions)})`);
  }
  const keyHomes = formatVersion === LAYOUT_VERSION_ALL_HOMES ? partitions : value.keyHomes;
  if (!isCount(keyHomes, partitions)) {
    throw new ClusterConfigError(`the cluster's layout records an invalid key home count (${String(keyHomes)} for ${partitions} partitions)`);
  }
  return { formatVersion, partitions, keyHomes, createdAt: String(value.createdAt) };
}

/** An integer from 1 to `max`. */
function isCount(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= max;
}

/** The `cluster-meta` bucket: the layout and the audit key history (cluster-key-history.ts). */
export async function clusterMetaBucket(messaging: Messaging, replicas: number): Promise<KvBucket> {
  // Reads go to the stream's leader, which holds a record once it was written.
  return messaging.jetStream(REQUEST_TIMEOUT_MS).kv.open(BUCKET, { replicas, history: 1 });
}

/**
 * The cluster's layout: the recorded one, or, for a new cluster, `requested` (else the defaults)
 * recorded now. An explicit request that differs from the recorded layout is refused.
 */
export async function openClusterLayout(messaging: Messaging, requested: RequestedLayout, nowMs: number, replicas = 3): Promise<ClusterLayout> {
  const layout = await withRetries(messaging.timers, "reading the cluster layout", OPEN_DEADLINE_MS, async () => {
    const kv = await clusterMetaBucket(messaging, replicas);
    const existing = await kv.get(KEY);
    if (existing !== null && existing.operation === "PUT") return parseLayout(existing.value);
    const created = newLayout(requested, nowMs);
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
  if (requested.partitions !== undefined && requested.partitions !== layout.partitions) {
    throw new ClusterConfigError(
      `the cluster was created with CLUSTER_PARTITIONS=${layout.partitions}; this node sets ${requested.partitions}, which would misplace markets. ` +
        `Unset CLUSTER_PARTITIONS (the cluster's own count is used) or set it to ${layout.partitions} (re-partitioning is not supported).`,
    );
  }
  if (requested.keyHomes !== undefined && requested.keyHomes !== layout.keyHomes) {
    const created =
      layout.formatVersion === LAYOUT_VERSION_ALL_HOMES
        ? `the cluster was created before key homes existed, so each of its ${layout.partitions} partitions is one for good`
        : `the cluster was created with CLUSTER_KEY_HOMES=${layout.keyHomes}`;
    throw new ClusterConfigError(
      `${created}; this node sets ${requested.keyHomes}, which would look for idempotency keys where they are not. ` +
        `Unset CLUSTER_KEY_HOMES (the cluster's own count is used) or set it to ${layout.keyHomes}.`,
    );
  }
  return layout;
}

function newLayout(requested: RequestedLayout, nowMs: number): ClusterLayout {
  const partitions = requested.partitions ?? DEFAULT_PARTITIONS;
  const keyHomes = requested.keyHomes ?? Math.min(DEFAULT_KEY_HOMES, partitions);
  if (!isCount(partitions, MAX_PARTITIONS)) throw new ClusterConfigError(`CLUSTER_PARTITIONS (${partitions}) must be an integer from 1 to ${MAX_PARTITIONS}`);
  if (!isCount(keyHomes, partitions)) throw new ClusterConfigError(`CLUSTER_KEY_HOMES (${keyHomes}) must be an integer from 1 to the partition count (${partitions})`);
  return { formatVersion: CLUSTER_LAYOUT_VERSION, partitions, keyHomes, createdAt: new Date(nowMs).toISOString() };
}
