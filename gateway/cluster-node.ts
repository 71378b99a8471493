/**
 * What makes this process a cluster node (docs/cluster.md): its NATS connection, the cluster's
 * recorded layout and audit key history, the leases and the cluster runtime. The same binary as the
 * embedded default: service.ts takes this path only when CLUSTER_NATS_URLS is set.
 */
import type { ShardHeadsSpec } from "../engine/runtime/worker-messages.js";
import type { Messaging } from "../engine/messaging/messaging.js";
import type { Clock } from "../engine/clock.js";
import type { ClusterSettings } from "../engine/cluster/cluster-settings.js";
import { openClusterLayout, type ClusterLayout } from "../engine/cluster/cluster-layout.js";
import { openClusterKeyHistory, type ClusterKeyVerdict } from "../engine/cluster/cluster-key-history.js";
import { currentKey, type KeyHistory } from "@market-service/client/audit";
import { ConfigError } from "./auth/config-error.js";
import { KEY_HISTORY_SETTING, SIGNING_KEY_SETTING, type AuditKeys } from "./audit-signing-key.js";
import { connectClusterNode } from "../engine/cluster/nats-connection.js";
import { ClusterRuntime } from "../engine/cluster/cluster-runtime.js";
import { LeaseManager } from "../engine/cluster/leases.js";
import type { IdempotencyIndex } from "../engine/idempotency/index.js";
import type { ShardWorkerSource } from "../engine/runtime/shard-host.js";
import type { ShardThreadStarter } from "../engine/runtime/shard-thread.js";
import type { Replays } from "../engine/runtime/shard-answers.js";
import type { BatchStats } from "../engine/shard-protocol/shard-protocol.js";
import type { LogFn } from "./http/log.js";
import { JetStreamJournal } from "../engine/journal/jetstream-journal.js";
import { openClusterChallengeStore, type ClusterChallengeStore } from "./cluster-challenge-store.js";

export interface ClusterConnection {
  readonly settings: ClusterSettings;
  /** The node's NATS connection, as the cluster's modules take it (engine/messaging/). */
  readonly messaging: Messaging;
  readonly layout: ClusterLayout;
  /** The cluster's audit key history (the same on every node): what GET /v1/audit/keys publishes. */
  readonly auditKeyHistory: KeyHistory;
}

/**
 * Connects to NATS (refusing to start, naming the URLs, when it cannot), reads or records the layout,
 * then checks this node's audit signing key against the cluster's (refusing a different one).
 */
export async function joinCluster(settings: ClusterSettings, clock: Clock, keys: AuditKeys, log: LogFn): Promise<ClusterConnection> {
  const messaging = await connectClusterNode(settings.natsUrls, settings.nodeId);
  try {
    const layout = await openClusterLayout(messaging, { partitions: settings.partitions, keyHomes: settings.keyHomes }, clock.nowMs());
    const auditKeyHistory = clusterKeyHistory(await openClusterKeyHistory(messaging, keys.history), keys, log);
    return { settings, messaging, layout, auditKeyHistory };
  } catch (error) {
    await messaging.close();
    throw error;
  }
}

/** The history this node publishes, given the verdict on its own; a conflict is a ConfigError naming both keys. */
function clusterKeyHistory(verdict: ClusterKeyVerdict, keys: AuditKeys, log: LogFn): KeyHistory {
  const own = keys.signer.keyId;
  switch (verdict.kind) {
    case "recorded":
      log("info", "recorded this node's audit key history as the cluster's", { keyId: own, historyKeys: verdict.history.keys.length });
      return verdict.history;
    case "rotated":
      log("warn", "audit signing key rotated for the whole cluster: every other node must be restarted with the new key and history", {
        fromKeyId: verdict.from.keyId,
        toKeyId: own,
        historyKeys: verdict.history.keys.length,
      });
      return verdict.history;
    case "same":
      if (JSON.stringify(verdict.history) !== JSON.stringify(keys.history)) {
        log("warn", `this node signs with the cluster's current key but its key history differs: it publishes the cluster's (set ${KEY_HISTORY_SETTING} as on the other nodes)`, {
          keyId: own,
          historyKeys: keys.history.keys.length,
          clusterHistoryKeys: verdict.history.keys.length,
        });
      }
      return verdict.history;
    case "conflict":
      throw keyConflict(verdict.recorded, verdict.older, keys);
  }
}

/**
 * The one-line refusal: which key this node has and where from, the cluster's, why they must be one,
 * and what to do. Quick-start keys are generated per data directory, so they always differ.
 */
function keyConflict(recorded: KeyHistory, older: boolean, keys: AuditKeys): ConfigError {
  const own = keys.signer.keyId;
  const cluster = currentKey(recorded).keyId;
  const where = `the cluster signs with key ${cluster} (recorded in NATS, KV cluster-meta/audit-keys)`;
  const why = "every node of a cluster must sign audit heads with the same key and have the same key history, or a partition's heads could not be checked across a change of owner";
  const fix = `give this node the cluster's key file: set ${SIGNING_KEY_SETTING} (and ${KEY_HISTORY_SETTING}, if the cluster's key was rotated) to the files the other nodes use (docs/cluster.md, "Configuration")`;
  if (older) {
    return new ConfigError(SIGNING_KEY_SETTING, `this node signs with key ${own} (${keys.keyFile}), which the cluster has rotated past: ${where}; ${why}. Fix: ${fix}`);
  }
  if (keys.warning !== undefined) {
    return new ConfigError(
      SIGNING_KEY_SETTING,
      `is not set, so this node signs with its own quick-start key ${own} (${keys.keyFile}), but ${where}; quick-start keys are generated per data directory and differ between nodes, and ${why}. ` +
        `Fix: ${fix}; a cluster that started on the first node's quick-start key can use a copy of that key outside every DATA_DIR (chmod 600)`,
    );
  }
  return new ConfigError(SIGNING_KEY_SETTING, `this node signs with key ${own} (${keys.keyFile}), but ${where}; ${why}. Fix: ${fix}`);
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
export function identityJournalOpener(cluster: Pick<ClusterConnection, "messaging" | "settings">): () => Promise<JetStreamJournal> {
  return () =>
    JetStreamJournal.open({
      messaging: cluster.messaging,
      name: IDENTITY_STREAM,
      retryDeadlineMs: cluster.settings.forwardTimeoutMs,
      // Opening may wait for the stream's creation and first leader while the cluster starts.
      openDeadlineMs: IDENTITY_OPEN_DEADLINE_MS,
    });
}

/**
 * The cluster's challenge bucket (cluster-challenge-store.ts): a challenge any node issued is
 * redeemed at any node, once. Its requests give up after the reply deadline (503 + Retry-After).
 */
export function openChallengeStore(cluster: ClusterConnection, maxChallenges: number): Promise<ClusterChallengeStore> {
  return openClusterChallengeStore({ messaging: cluster.messaging, maxChallenges, requestTimeoutMs: cluster.settings.forwardTimeoutMs });
}

export interface ClusterRuntimeParts {
  clock: Clock;
  controlledClock: boolean;
  idempotency: IdempotencyIndex;
  checkpointEverySeconds: number;
  /** Each worker pool thread's bound for log trees kept between proofs (AUDIT_PROOF_CACHE_BYTES). */
  proofCacheBytes?: number;
  workerSource?: ShardWorkerSource;
  /** How owned partitions' shards run (default: worker threads; the simulation's run in-process). */
  startThread?: ShardThreadStarter;
  /** Where record reads and old replies are replayed (default: the worker pool). */
  replays?: Replays;
  /** How often an owned partition's shard checks its timer wheel (default 100 ms). */
  tickIntervalMs?: number;
  log: LogFn;
  onBatch: (partition: number, stats: BatchStats) => void;
  heads?: ShardHeadsSpec;
}

/** The cluster runtime with its leases: from here on this node takes partitions and serves them. */
export async function openClusterRuntime(cluster: Pick<ClusterConnection, "messaging" | "settings" | "layout">, parts: ClusterRuntimeParts): Promise<ClusterRuntime> {
  const { settings, messaging, layout } = cluster;
  const runtime = new ClusterRuntime({
    settings,
    messaging,
    partitions: layout.partitions,
    keyHomes: layout.keyHomes,
    clock: parts.clock,
    controlledClock: parts.controlledClock,
    idempotency: parts.idempotency,
    checkpointEverySeconds: parts.checkpointEverySeconds,
    ...(parts.proofCacheBytes === undefined ? {} : { proofCacheBytes: parts.proofCacheBytes }),
    log: (level, message, fields) => parts.log(level, message, fields),
    onBatch: parts.onBatch,
    ...(parts.workerSource === undefined ? {} : { workerSource: parts.workerSource }),
    ...(parts.startThread === undefined ? {} : { startThread: parts.startThread }),
    ...(parts.replays === undefined ? {} : { replays: parts.replays }),
    ...(parts.tickIntervalMs === undefined ? {} : { tickIntervalMs: parts.tickIntervalMs }),
    ...(parts.heads === undefined ? {} : { heads: parts.heads }),
  });
  let leases: LeaseManager;
  try {
    leases = await LeaseManager.open({
      messaging,
      nodeId: settings.nodeId,
      partitions: layout.partitions,
      clock: parts.clock,
      leaseMs: settings.leaseMs,
      onAcquired: (lease) => runtime.acquired(lease.partition, lease.epoch),
      onLost: (partition, reason) => runtime.lost(partition, reason),
      onOwnerSeen: (partition, owner) => runtime.ownerSeen(partition, owner.epoch),
    });
  } catch (error) {
    // What the runtime started (its idle shard thread, the replay pool) ends with it.
    await runtime.close();
    throw error;
  }
  runtime.attach(leases);
  return runtime;
}
