/** What an audit reports per shard and market: plain data, returned by the worker pool's threads. */

export interface MarketAudit {
  marketId: string;
  shard: number;
  commands: number;
  recordHash: string;
  stateReconstructed: boolean;
}

export type AuditMode = "replay" | "verify";

/** What each shard's audit does (plain data: it is sent to the worker pool's threads). */
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
