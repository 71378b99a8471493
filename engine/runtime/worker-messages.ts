/** Messages between the gateway thread (ShardHost) and a shard worker. */
import type { BatchStats, EmittedEvent, IdempotencyEntries, ShardRecoveryReport } from "../shard-protocol/shard-protocol.js";

/** The journal a shard worker opens: its file journal (embedded default) or a partition's stream (cluster mode). */
export type ShardJournalSpec =
  | {
      kind: "file";
      dir: string;
      segmentSizeBytes?: number;
      /** Report idempotency entries after this sequence (the gateway's index snapshot's watermark for the shard). */
      reportIdempotencyAfterLsn: number;
    }
  | {
      kind: "jetstream";
      natsUrls: string[];
      /** The partition's stream. */
      stream: string;
      /** The owner's lease epoch: appends are fenced, so a later owner's claim stops this one. */
      epoch: number;
      /** Names the worker's NATS connection (server monitoring). */
      connectionName: string;
    };

import type { AuditSignerWorkerData } from "../audit/signing/audit-signer.js";
import type { PublicKeyEntry } from "../audit/signing/head-keys.js";
import type { SnapshotMark } from "../journal/jetstream-snapshots.js";

export interface ShardWorkerData {
  journal: ShardJournalSpec;
  shardIndex: number;
  /** "system": the worker reads Date.now(). "controlled": time arrives in messages (tests). */
  clockMode: "system" | "controlled";
  startMs: number;
  /** How often the worker checks its timer wheel (system clock mode). */
  tickIntervalMs: number;
  /** Sign the log's heads (engine/audit/heads/log-heads.ts); undefined: no heads, no receipts. */
  heads?: ShardHeadsSpec;
  /** Cluster mode: snapshot once this many commands are in no snapshot (decision I57); unset: only when asked. */
  snapshotEveryCommands?: number;
  /** Cluster mode: after a batch of at least two commands, the next waits up to this long for more (decision I69); unset: never. */
  batchLingerMs?: number;
}

/**
 * Signed heads as a shard worker gets them: the signer (its key travels as a KeyObject Node clones
 * into the worker: engine/audit/signing/audit-signer.ts) and the interval. The log id follows from
 * the journal: `shard-<n>` for a file journal, the stream's name (`partition-<p>`) in a cluster.
 */
export interface ShardHeadsSpec {
  signer: AuditSignerWorkerData;
  everyCommands: number;
  everyMs: number;
  /** The key history's public keys: recovery checks every head it reads against them. */
  publicKeys: PublicKeyEntry[];
  /** Unsigned tails an operator accepted (AUDIT_ACCEPT_UNSIGNED_TAIL): `<logId>:<first entry>`. */
  acceptUnsignedTails: string[];
}

export interface Envelope<T> {
  id: number;
  body: T;
}

/** The one constructor of an envelope (its members are an agreed channel structure, wire.ts). */
export function envelope<T>(id: number, body: T): Envelope<T> {
  return { id, body };
}

export type ToShard =
  /**
   * The first message a shard thread gets, and only then: what it opens. A thread is started before
   * it knows its shard, so that a cluster node can keep one started for its next partition.
   */
  | { t: "open"; data: ShardWorkerData }
  /** `items`: packed `Envelope<ShardRequest>[]` (wire.ts), transferred. */
  | { t: "batch"; nowMs: number; items: Uint8Array }
  | { t: "time"; nowMs: number }
  | { t: "snapshot"; id: number }
  /** The node stored what it keeps beside the snapshot `snapshotting` marked at `sequence`, or will not (decision I60). */
  | { t: "besideStored"; sequence: number }
  | { t: "close" };

export type FromShard =
  | { t: "ready"; report: ShardRecoveryReport; idempotency: IdempotencyEntries }
  /** `items`: packed `Envelope<ShardResponse>[]` (wire.ts), transferred: the batch's commands, and its reads unless they are answered later. */
  | { t: "batch"; items: Uint8Array; stats: BatchStats }
  /** A batch's reads, answered after it while later batches went on (ShardCore.commitBatch); `items` as a batch's. */
  | { t: "answers"; items: Uint8Array }
  /** Committed events of watched markets (live streams), posted before the replies of their batch. */
  | { t: "events"; events: readonly EmittedEvent[] }
  /**
   * A snapshot on a journal on a stream is taken, after the replies of every batch it holds: its
   * mark (decision I58). It is stored once the node answers `besideStored` (decision I60).
   */
  | { t: "snapshotting"; mark: SnapshotMark }
  /** A timer tick that logged system commands (no client replies). */
  | { t: "stats"; stats: BatchStats }
  | { t: "snapshot"; id: number; lsn: number; sizeBytes: number }
  | { t: "fatal"; message: string }
  /** Another owner appended to the shard's journal: the worker stopped without acknowledging its batch. */
  | { t: "fenced"; message: string }
  /** After a final snapshot: `lsn` is the shard's last lsn, all of it in its newest snapshot. */
  | { t: "closed"; lsn: number };
