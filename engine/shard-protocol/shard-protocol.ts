/**
 * Requests a shard answers and the answers it gives. The same types travel between the gateway
 * thread and a shard worker (packed, engine/runtime/wire.ts), and between tests and an in-process ShardCore.
 * Replies carry JSON text produced in the shard, so the gateway thread only writes bytes.
 *
 * Each message is built by its one constructor below, so its members come in one order: the shard
 * channel agrees MessagePack record structures for these shapes in advance, taken from the
 * constructors (engine/runtime/wire.ts), and a literal elsewhere could drift from them.
 */
import type { Command } from "../rules/types/command.js";
import type { ErrorCode } from "@market-service/client/wire";
import type { LogReadView } from "../../storage/index.js";
import type { LogProofRequest } from "../audit/log-proofs.js";
import type { TreeAnchor } from "../audit/cached-log-proofs.js";

export interface CommandRequest {
  kind: "command";
  /** `occurredAtMs` is ignored: the shard stamps its own server time. */
  command: Command;
  /** Idempotency fingerprint (engine/idempotency/fingerprint.ts), logged with the command. */
  fingerprint: string;
}

export type ReadRequest =
  | { kind: "market"; marketId: string }
  /** The market record; `actorId` is the authenticated reader, checked against the creator. */
  | { kind: "record"; marketId: string; actorId: string }
  /** One principal's own bid receipts and commitments in a market. */
  | { kind: "outcome"; marketId: string; principalId: string }
  /** Reproduce the reply of the command logged at `position` (idempotent replay). */
  | { kind: "reply-at"; position: number }
  /** A head signed now over the shard log's whole current tree (docs/proofs.md). */
  | { kind: "log-head" }
  /**
   * An inclusion or consistency proof of the shard's log, built off the shard thread (ReplayWork
   * "proof"). `after`, for a journal without a view: −1 lets the shard send the entries after those it
   * last sent; n ≥ 0 asks for the entries after the first n (the pool thread keeps n: engine/runtime/shard-answers.ts).
   */
  | { kind: "log-proof"; proof: LogProofRequest; after: number }
  /**
   * Start (`watching`) or stop emitting the market's committed events for live streams
   * (docs/events.md). Answered after the batch it arrived in is committed, with WatchAnswer JSON:
   * every event after its `lastSequence` is emitted from the next batch on, none before.
   */
  | { kind: "watch"; marketId: string; watching: boolean };

export type ShardRequest = CommandRequest | ReadRequest;

export type ShardReply =
  /** JSON text; as UTF-8 bytes when a worker pool thread made it (a record can be tens of MB: moved between threads, not copied). */
  | {
      ok: true;
      json: string | Buffer;
      /**
       * An accepted command's receipt (packages/client/src/audit/receipt.ts: JSON text for the `Market-Receipt`
       * header), set once its batch is durable; "" or absent for reads and replies without one.
       */
      receipt?: string;
    }
  | { ok: false; code: ErrorCode; message: string };

/** A reply's JSON as text, whichever form it travelled in. */
export function jsonText(json: string | Buffer): string {
  return typeof json === "string" ? json : json.toString("utf8");
}

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

/**
 * Where a replay finds the logged commands it replays. One ReplayWork type with this as a member
 * (rather than a variant of each work per source) keeps a single path after the commands are read:
 * engine/pool-worker/replay-work.ts reads them from whichever source, then decodes and replays them with the same code.
 *
 * - "log": the file journal's committed segment files (Journal.readView); the replay thread reads
 *   the frames at the work's positions itself, so the shard hands over a few bytes whatever the
 *   market's size.
 * - "payloads": a journal with no files another thread could read (one on a stream) was read by
 *   the shard (engine/runtime/entry-payloads.ts), and the commands' payloads travel with the work, in record order.
 *   They are concatenated in one buffer (`ends`: float64 bytes of where each payload ends) rather
 *   than sent as one Uint8Array each: a hot market's record is tens of thousands of entries, and
 *   as separate arrays every one would be an object to unpack on the gateway thread and to clone
 *   again for the replay thread, where one buffer is a single copy each way.
 */
export type ReplaySource = { from: "log"; log: LogReadView } | { from: "payloads"; payloads: Uint8Array; ends: Uint8Array };

/**
 * Work a shard hands back instead of doing it on its own thread: replaying a market's logged
 * commands, for its record or for the reply of an old command. That replay takes hundreds of
 * milliseconds for a hot market, and every claim of the shard would wait for it; the shard only
 * takes the market's state and a view of its log or the payloads it read (ReplaySource), and the
 * gateway finishes the work on its worker pool (engine/pool-worker/replay-work.ts on engine/pool/). Committed entries
 * never change, so reading them there needs no coordination with the shard.
 */
export type ReplayWork =
  /**
   * The market's record. `market`: the market as the shard holds it (shard-snapshot encoding), whose
   * state the replay must reproduce, and whose positions name the record's commands; `recordLength`:
   * how many commands its record holds, which with the market id names the record exactly (records
   * only grow; engine/runtime/record-cache.ts).
   */
  | { kind: "record"; source: ReplaySource; market: Uint8Array; marketId: string; recordLength: number }
  /**
   * The reply of the last of these commands (float64 bytes of their log positions, in record order),
   * and the receipt (receipt.ts JSON, "" for none) the shard signed for it now, which whoever finishes
   * the work puts on an accepted reply.
   */
  | { kind: "reply"; source: ReplaySource; positions: Uint8Array; receipt: string }
  /**
   * A proof of the log `logId` (engine/audit/cached-log-proofs.ts): its entries read from `source`
   * (the log's files; or the payloads of the entries after the first `after`, up to the log's durable
   * end, with `entry` the inclusion proof's leaf when it lies before them, else null) into the pool
   * thread's kept tree, and the proof built. `anchor`: the shard's own tree root at the log's durable
   * size, against which a kept tree is checked (null without heads, or while a batch is in flight).
   */
  | { kind: "proof"; source: ReplaySource; logId: string; proof: LogProofRequest; anchor: TreeAnchor | null; after: number; entry: Uint8Array | null };

export interface ReplayResponse {
  kind: "replay";
  work: ReplayWork;
}

export type ShardResponse = CommandResponse | ReadResponse | ReplayResponse;

/** A watch's answer (JSON): the market's last event sequence now, and whose record it is (visibility). */
export interface WatchAnswer {
  lastSequence: number;
  creator: { principalId: string; actorId: string };
}

/**
 * One committed event of a watched market, rendered by the shard for live streams: the event as
 * the record shows it, and its public view (engine/events/public-event.ts; "" when it has none).
 * Emitted only after the batch holding it is durable.
 */
export interface EmittedEvent {
  marketId: string;
  sequence: number;
  json: string;
  publicJson: string;
}

/** Idempotency entries of logged client commands, as parallel arrays (cheap to clone/transfer). */
export interface IdempotencyEntries {
  actorIds: string[];
  commandIds: string[];
  fingerprints: string[];
  positions: number[];
  /**
   * Cluster mode (decision I58): the partition's entries up to `sequence` as its owner last
   * snapshotted them (an index snapshot, engine/idempotency/index-snapshot.ts), checked against the
   * stream; the arrays then hold only the entries read after it (and may repeat some of it).
   */
  snapshot?: { sequence: number; payload: Uint8Array };
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
  /** Replies the shard keeps for retries, and their characters (bounded: engine/runtime/shard-core.ts `remember`). */
  replyCacheEntries: number;
  replyCacheChars: number;
}

export interface ShardRecoveryReport {
  shardIndex: number;
  /** lsn of the snapshot recovery started from (0: none). */
  snapshotLsn: number;
  /** Why the newest snapshot was not used (another format, or it does not match the log), or null. */
  snapshotIgnored: string | null;
  marketsFromSnapshot: number;
  /** Frames applied after the snapshot. */
  framesReplayed: number;
  /** Frames read only to report their idempotency entries. */
  framesScannedForIdempotency: number;
  /** Cluster mode: why the newest snapshot of the partition's idempotency entries was not used (it does not match the stream, or it cannot be read): the entries were read after the older snapshot it names, or from the first. */
  idempotencySnapshotIgnored?: string;
  /** Frames of the last segment open did not read, because it started at the snapshot's own frame. */
  framesTrustedByCheckpoint: number;
  lastLsn: number;
  markets: number;
  /** Set when a torn tail was truncated (never acknowledged). */
  truncatedBytes: number;
  /** Signed heads recovery read and checked (root, size and signature). */
  headsChecked: number;
  /** Reads of the journal that went on with a new consumer during recovery, and why the last did (a journal on a stream). */
  readsResumed?: { count: number; last: string };
  /** Entries after the last verified head that an operator accepted (AUDIT_ACCEPT_UNSIGNED_TAIL), recorded by a head entry. */
  acceptedUnsignedTail?: { logId: string; from: number; to: number };
  /** Cluster mode: the shard's NATS connection made, before the stream was opened. */
  connectMs?: number;
  /** Cluster mode: the partition's stream opened and claimed and its idempotency snapshot read, before recovery proper (elapsedMs). */
  streamOpenMs?: number;
  elapsedMs: number;
}

// ---------------------------------------------------------------------------------------------
// The one constructor of each message.
// ---------------------------------------------------------------------------------------------

export function commandRequest(command: Command, fingerprint: string): CommandRequest {
  return { kind: "command", command, fingerprint };
}

export function marketRead(marketId: string): Extract<ReadRequest, { kind: "market" }> {
  return { kind: "market", marketId };
}

export function recordRead(marketId: string, actorId: string): Extract<ReadRequest, { kind: "record" }> {
  return { kind: "record", marketId, actorId };
}

export function outcomeRead(marketId: string, principalId: string): Extract<ReadRequest, { kind: "outcome" }> {
  return { kind: "outcome", marketId, principalId };
}

export function replyAtRead(position: number): Extract<ReadRequest, { kind: "reply-at" }> {
  return { kind: "reply-at", position };
}

export function logHeadRead(): Extract<ReadRequest, { kind: "log-head" }> {
  return { kind: "log-head" };
}

export function logProofRead(proof: LogProofRequest, after = -1): Extract<ReadRequest, { kind: "log-proof" }> {
  return { kind: "log-proof", proof, after };
}

export function watchRead(marketId: string, watching: boolean): Extract<ReadRequest, { kind: "watch" }> {
  return { kind: "watch", marketId, watching };
}

export function okReply(json: string, receipt?: string): { ok: true; json: string; receipt?: string };
export function okReply(json: string | Buffer, receipt?: string): Extract<ShardReply, { ok: true }>;
export function okReply(json: string | Buffer, receipt = ""): Extract<ShardReply, { ok: true }> {
  return { ok: true, json, receipt };
}

export function errorReply(code: ErrorCode, message: string): Extract<ShardReply, { ok: false }> {
  return { ok: false, code, message };
}

export function commandResponse(status: CommandResponse["status"], reply: ShardReply, position: number): CommandResponse {
  return { kind: "command", status, reply, position };
}

export function readResponse(reply: ShardReply): ReadResponse {
  return { kind: "read", reply };
}

export function replayResponse(work: ReplayWork): ReplayResponse {
  return { kind: "replay", work };
}

export function logSource(log: LogReadView): Extract<ReplaySource, { from: "log" }> {
  return { from: "log", log };
}

export function payloadSource(payloads: Uint8Array, ends: Uint8Array): Extract<ReplaySource, { from: "payloads" }> {
  return { from: "payloads", payloads, ends };
}

export function recordWork(source: ReplaySource, market: Uint8Array, marketId: string, recordLength: number): Extract<ReplayWork, { kind: "record" }> {
  return { kind: "record", source, market, marketId, recordLength };
}

export function proofWork(
  source: ReplaySource,
  logId: string,
  proof: LogProofRequest,
  anchor: TreeAnchor | null = null,
  after = 0,
  entry: Uint8Array | null = null,
): Extract<ReplayWork, { kind: "proof" }> {
  return { kind: "proof", source, logId, proof, anchor, after, entry };
}

export function replyWork(source: ReplaySource, positions: Uint8Array, receipt = ""): Extract<ReplayWork, { kind: "reply" }> {
  return { kind: "reply", source, positions, receipt };
}
