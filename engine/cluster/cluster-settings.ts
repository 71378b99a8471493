/**
 * What turns a node into a cluster node, and how it behaves there (docs/cluster.md). Parsed from the
 * environment by gateway/config.ts; absent means the embedded default (one process, its file logs).
 */
export interface ClusterSettings {
  /** Client URLs of the NATS servers (every one, so that any one may fail). */
  readonly natsUrls: readonly string[];
  /** This service node's id, unique in the cluster. */
  readonly nodeId: string;
  /**
   * Partitions of a cluster created by this node. Only read when no layout is recorded yet; a
   * cluster's count is the recorded one (cluster-layout.ts).
   */
  readonly partitions: number | undefined;
  /**
   * Key homes of a cluster created by this node (the partitions whose owners bind idempotency keys:
   * key-bindings.ts). Only read when no layout is recorded yet, like `partitions`.
   */
  readonly keyHomes: number | undefined;
  /** How long a partition lease stays valid without renewal (the failover detection time). */
  readonly leaseMs: number;
  /** How long a forwarded request waits for the owner's answer before the client gets a 503. */
  readonly forwardTimeoutMs: number;
  /**
   * A partition's shard snapshots itself once this many of its commands (deadline commands and a
   * replayed tail included) are in no snapshot, besides the node's periodic checkpoints: what a new
   * owner replays stays about this long, however long ago the last checkpoint was (decision I57).
   */
  readonly snapshotEveryCommands: number;
  /**
   * After a batch of at least two commands, how long a partition's next batch waits for more, from
   * the moment the previous append returned (0: never): more claims share each replicated write
   * under a storm, at the cost of that wait (decision I69, engine/runtime/batch-gathering.ts). A
   * node's next bind message to a key home, after one of two binds or more, waits as long after its
   * answer (decision I70, forwarding.ts).
   */
  readonly batchLingerMs: number;
}

export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DEFAULT_PARTITIONS = 6;
/**
 * One home: every binding goes to one stream, whose group commits then gather the bindings of
 * every market (docs/cluster.md, "Idempotency across the cluster": a replicated, fsynced write
 * costs the NATS servers the same whatever it holds, so how many bindings share one is what counts).
 */
export const DEFAULT_KEY_HOMES = 1;
export const MAX_PARTITIONS = 256;
export const DEFAULT_LEASE_MS = 1_500;
export const DEFAULT_FORWARD_TIMEOUT_MS = 5_000;
/** Why this default: decision I57 (docs/cluster.md, "Known problems"). */
export const DEFAULT_SNAPSHOT_EVERY_COMMANDS = 5_000;
/** Why this default: decision I69 (docs/cluster.md, "Batches that wait for company"). */
export const DEFAULT_BATCH_LINGER_MS = 8;
