/** What an audit reports per shard and market: plain data, posted by audit workers. */

export interface MarketAudit {
  marketId: string;
  shard: number;
  commands: number;
  recordHash: string;
  stateReconstructed: boolean;
}

export type AuditMode = "replay" | "verify";

/** What each shard's audit does (plain data: it is posted to audit workers). */
export interface ShardAuditWork {
  mode: AuditMode;
  keptPayloadBytes: number;
}

/** One shard's audit: plain data, so a worker thread can post it. */
export interface ShardAudit {
  index: number;
  /** Frames in the shard's log (0 when verify could not open it). */
  commands: number;
  /** Its markets in the order they were created; with a problem, those audited before it. */
  markets: MarketAudit[];
  snapshotsCompared: number;
  /** verify: the first divergence in this shard. */
  problem?: string;
}

/** What audit-pool.ts gives an audit worker, and what the worker posts back. */
export interface AuditWorkerData {
  index: number;
  dir: string;
  work: ShardAuditWork;
}

export type FromAuditWorker =
  | { t: "frames"; frames: number }
  | { t: "done"; audit: ShardAudit }
  | { t: "error"; message: string };
