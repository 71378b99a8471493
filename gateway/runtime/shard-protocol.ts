/**
 * Requests a shard answers and the answers it gives. The same types travel between the gateway
 * thread and a shard worker (structured clone), and between tests and an in-process ShardCore.
 * Replies carry JSON text produced in the shard, so the gateway thread only writes bytes.
 */
import type { Command } from "../../engine/types/command.js";
import type { ErrorCode } from "../../engine/types/errors.js";

export interface CommandRequest {
  kind: "command";
  /** `occurredAtMs` is ignored: the shard stamps its own server time. */
  command: Command;
  /** Idempotency fingerprint (gateway/idempotency/fingerprint.ts), logged with the command. */
  fingerprint: string;
}

export type ReadRequest =
  | { kind: "market"; marketId: string }
  /** The market record; `actorId` is the authenticated reader, checked against the creator. */
  | { kind: "record"; marketId: string; actorId: string }
  /** One principal's own bid receipts and commitments in a market. */
  | { kind: "outcome"; marketId: string; principalId: string }
  /** Reproduce the reply of the command logged at `position` (idempotent replay). */
  | { kind: "reply-at"; position: number };

export type ShardRequest = CommandRequest | ReadRequest;

export type ShardReply =
  | { ok: true; json: string }
  | { ok: false; code: ErrorCode; message: string };

export interface CommandResponse {
  kind: "command";
  status: "accepted" | "rejected";
  reply: ShardReply;
  /** Where the command's frame is in the shard log: the idempotency location. */
  position: number;
}

export interface ReadResponse {
  kind: "read";
  reply: ShardReply;
}

export type ShardResponse = CommandResponse | ReadResponse;

/** Idempotency entries of logged client commands, as parallel arrays (cheap to clone/transfer). */
export interface IdempotencyEntries {
  actorIds: string[];
  commandIds: string[];
  fingerprints: string[];
  positions: number[];
}

/** What one processed batch did, for metrics. */
export interface BatchStats {
  /** Commands (client and system) decided and logged in the batch. */
  commands: number;
  /** Wall time of the batch's write + fdatasync (0 when nothing was logged). */
  commitMs: number;
  /** Log end position in bytes after the batch. */
  logBytes: number;
  markets: number;
  commitments: number;
}

export interface ShardRecoveryReport {
  shardIndex: number;
  /** lsn of the snapshot recovery started from (0: none). */
  snapshotLsn: number;
  marketsFromSnapshot: number;
  /** Frames applied after the snapshot. */
  framesReplayed: number;
  /** Frames read only to report their idempotency entries. */
  framesScannedForIdempotency: number;
  /** Frames of the last segment open did not read, because it started at the snapshot's own frame. */
  framesTrustedByCheckpoint: number;
  lastLsn: number;
  markets: number;
  /** Set when a torn tail was truncated (never acknowledged). */
  truncatedBytes: number;
  elapsedMs: number;
}
