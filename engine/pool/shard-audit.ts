/** What an audit reports per shard and market: plain data, returned by the worker pool's threads. */
import type { HeadInterval } from "../audit/heads/unsigned-tail.js";
import type { AcceptedTail } from "../audit/heads/head-audit.js";
import type { PublicKeyEntry } from "../audit/signing/head-keys.js";

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
  /**
   * verify: the service's public keys (keyId → raw 32 bytes); with them every signed head's signature
   * is checked, and the entries after the last head against `headInterval` (what a crash leaves).
   */
  publicKeys?: PublicKeyEntry[];
  headInterval?: HeadInterval;
}

/** One shard's audit: plain data, so a worker thread can post it. */
export interface ShardAudit {
  index: number;
  /** Command frames in the shard's log (0 when verify could not open it). */
  commands: number;
  /** Its markets in the order they were created; with a problem, those audited before it. */
  markets: MarketAudit[];
  snapshotsCompared: number;
  /** Signed head entries in the log (not counted in `commands`), and entries after the last of them. */
  heads: number;
  uncoveredEntries: number;
  /** Entries and no head at all. */
  headless: boolean;
  /** Unsigned tails an operator accepted at start, as recorded in the log. */
  acceptedTails: AcceptedTail[];
  /** verify: the first divergence in this shard. */
  problem?: string;
}
