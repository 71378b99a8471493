/**
 * The shard snapshot payload: every market's aggregate and the log positions of its recorded
 * commands. A claim storm leaves tens of thousands of commitments per market, so each market's
 * commitment table is stored as its rows of numbers (raw little-endian float64 bytes: one copy to
 * load, no heap number per value) and its participant ids' bytes (no string per commitment); what is derivable (ids, direct-claim
 * terms) is rebuilt on load, and the principal index on a market's first command. Plain MessagePack, like the log.
 *
 * Only this version is read. A snapshot of another version (written by an earlier build) is not
 * an error: snapshots only shorten recovery, so the shard then folds its whole log instead.
 */
import { Packr } from "msgpackr";
import { assert } from "../rules/common/assert.js";
import { CommitmentTable } from "../store/commitment-table.js";
import { tableStorage } from "../store/market-storage.js";
import { newAggregate, type MarketAggregate, type SealedBid } from "../rules/state/state.js";
import type { ShardMarket } from "../log-fold.js";
import type { Market, SealedAuctionClearingPrice, SealedAuctionResolution } from "@market-service/client/wire";
import { float64Bytes, float64sOf } from "./float64-bytes.js";
import type { LogTreeAnchor } from "../audit/heads/log-heads.js";

export const SHARD_SNAPSHOT_VERSION = 4;

export type { ShardMarket } from "../log-fold.js";

/** A commitment table as stored (version 4): the image with its rows as bytes. */
interface StoredCommitments {
  /** Float64 bytes: ROW_NUMBERS numbers per commitment. */
  rows: Uint8Array;
  /** The participant ids' bytes (id-arena.ts). */
  arena: Uint8Array;
  confirmations: [number, string[], string[]][];
  auctionTerms: [number, string, SealedAuctionClearingPrice][];
}

interface StoredMarket {
  /** The market with its subject as JSON text (see engine/log/logged-command.ts: msgpackr renames `__proto__`). */
  market: Omit<Market, "subject"> & { subject: string };
  commitments: StoredCommitments;
  bids: SealedBid[];
  lastResolution: SealedAuctionResolution | null;
  commandCount: number;
  eventCount: number;
  /** Positions as little-endian float64 bytes. */
  positions: Uint8Array;
}

interface StoredShard {
  v: number;
  shardIndex: number;
  lastStampMs: number;
  /** Written by earlier versions (the log checkpoint, which the journal now keeps itself); ignored. */
  endPosition?: number;
  lastFramePosition?: number;
  markets: StoredMarket[];
  /**
   * Written by earlier versions: the tree as of the snapshot, unsigned; ignored (the tree is then
   * rebuilt from the log's first entry, whose heads are all checked).
   */
  logTree?: unknown;
  /** The last recorded head and the tree just before it (engine/audit/heads/log-heads.ts); absent before the first head, or without heads. */
  headAnchor?: LogTreeAnchor;
}

export interface ShardSnapshotHeader {
  shardIndex: number;
  lastStampMs: number;
  headAnchor?: LogTreeAnchor | undefined;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

function storedCommitments(table: CommitmentTable): StoredCommitments {
  const image = table.image();
  return { ...image, rows: new Uint8Array(image.rows.buffer, image.rows.byteOffset, image.rows.byteLength) };
}

function tableOf(stored: StoredCommitments): CommitmentTable {
  return CommitmentTable.fromImage({ ...stored, rows: float64sOf(stored.rows) });
}

/** Snapshots store the table's own image: a market of this runtime is kept in `tableStorage`. */
function tableOfStore(store: MarketAggregate["commitments"]): CommitmentTable {
  assert(store instanceof CommitmentTable, "a shard's markets are kept in table storage");
  return store;
}

function storedMarketOf({ agg, positions }: ShardMarket): StoredMarket {
  return {
    market: { ...agg.market, subject: JSON.stringify(agg.market.subject) },
    commitments: storedCommitments(tableOfStore(agg.commitments)),
    bids: agg.bids,
    lastResolution: agg.lastResolution ?? null,
    commandCount: agg.commandCount,
    eventCount: agg.eventCount,
    positions: float64Bytes(positions),
  };
}

export function encodeShardSnapshot(header: ShardSnapshotHeader, markets: Iterable<ShardMarket>): Buffer {
  const stored: StoredMarket[] = [];
  for (const market of markets) stored.push(storedMarketOf(market));
  const payload: StoredShard = { v: SHARD_SNAPSHOT_VERSION, shardIndex: header.shardIndex, lastStampMs: header.lastStampMs, markets: stored };
  if (header.headAnchor !== undefined) payload.headAnchor = header.headAnchor;
  return packr.pack(payload);
}

/**
 * One market as its shard holds it (state and record positions), in the snapshot's encoding: how a
 * record read hands the live market to a replay off the shard thread (engine/pool-worker/replay-work.ts).
 */
export function encodeMarketImage(market: ShardMarket): Uint8Array {
  return packr.pack({ v: SHARD_SNAPSHOT_VERSION, market: storedMarketOf(market) });
}

export function decodeMarketImage(bytes: Uint8Array): ShardMarket {
  const stored = packr.unpack(bytes) as { v: unknown; market: StoredMarket };
  if (stored?.v !== SHARD_SNAPSHOT_VERSION) throw new Error("market image of an unknown version");
  return restoreMarket(stored.market);
}

export interface DecodedShardSnapshot extends ShardSnapshotHeader {
  markets: ShardMarket[];
}

/** A plain array of the values (a loop: faster than `Array.from` on large arrays). */
function numbersOf(values: Float64Array): number[] {
  const numbers = new Array<number>(values.length);
  for (let i = 0; i < values.length; i += 1) numbers[i] = values[i] as number;
  return numbers;
}

function restoreMarket(m: StoredMarket): ShardMarket {
  const table = tableOf(m.commitments);
  const agg = newAggregate({ ...m.market, subject: JSON.parse(m.market.subject) as Market["subject"] }, tableStorage, table);
  // The principal index is rebuilt from these on the market's first command (rules/state/state.ts).
  for (const bid of m.bids) agg.bids.push(bid);
  agg.lastResolution = m.lastResolution ?? undefined;
  agg.commandCount = m.commandCount;
  agg.eventCount = m.eventCount;
  return { agg, positions: numbersOf(float64sOf(m.positions)) };
}

/** The snapshot's markets, or the version it was written in if this build does not read that version. */
export function decodeShardSnapshot(payload: Uint8Array): DecodedShardSnapshot | { unreadableVersion: unknown } {
  const stored = packr.unpack(payload) as StoredShard;
  assert(stored !== null && typeof stored === "object", "a shard snapshot is a MessagePack map");
  if (stored.v !== SHARD_SNAPSHOT_VERSION) return { unreadableVersion: stored.v };
  return {
    shardIndex: stored.shardIndex,
    lastStampMs: stored.lastStampMs,
    markets: stored.markets.map(restoreMarket),
    headAnchor: headAnchorOf(stored.headAnchor),
  };
}

/**
 * The stored anchor, its form checked (a malformed one is ignored: the tree is then rebuilt from the
 * log). Whether its head is the service's and its roots the head's is for recovery to check.
 */
function headAnchorOf(stored: unknown): LogTreeAnchor | undefined {
  if (stored === undefined || stored === null || typeof stored !== "object") return undefined;
  const { headEntry, head, roots } = stored as Record<string, unknown>;
  if (!Number.isSafeInteger(headEntry) || (headEntry as number) < 1 || head === null || typeof head !== "object") return undefined;
  if (!Array.isArray(roots) || !roots.every((root) => root instanceof Uint8Array && root.length === 32)) return undefined;
  const { logId, treeSize, rootHash, timeMs, keyId, signature } = head as Record<string, unknown>;
  const wellFormed =
    typeof logId === "string" &&
    treeSize === (headEntry as number) - 1 &&
    rootHash instanceof Uint8Array &&
    rootHash.length === 32 &&
    Number.isSafeInteger(timeMs) &&
    typeof keyId === "string" &&
    signature instanceof Uint8Array &&
    signature.length === 64;
  if (!wellFormed) return undefined;
  return { headEntry: headEntry as number, head: { logId, treeSize, rootHash, timeMs: timeMs as number, keyId, signature }, roots: roots as Uint8Array[] };
}
