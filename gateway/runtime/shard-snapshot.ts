/**
 * The shard snapshot payload: every market's aggregate and the log positions of its recorded
 * commands. A claim storm leaves tens of thousands of commitments per market, so commitments are
 * stored column by column, and everything derivable is left out and rebuilt on load: the id
 * (`c.<ref>.<ordinal>`), direct-claim terms (the market's subject and pricing), the subject in
 * auction terms, and the principal index. Plain MessagePack, like the log.
 */
import { Packr } from "msgpackr";
import { endianness } from "node:os";
import { assert } from "../../engine/assert.js";
import { NO_PRINCIPALS } from "../../engine/commitment/confirmations.js";
import { generatedIdOf } from "../../engine/ids.js";
import { newAggregate, principalIndexOf, type MarketAggregate, type SealedBid } from "../../engine/state.js";
import { isoFromMs, parseDateTimeMs } from "../../engine/time.js";
import type { SealedAuctionClearingPrice, SealedAuctionResolution } from "../../engine/types/auction.js";
import type { Commitment, CommitmentState } from "../../engine/types/commitment.js";
import { DIRECT_CLAIM_PRESET, type Market } from "../../engine/types/market.js";

export const SHARD_SNAPSHOT_VERSION = 3;

export interface ShardMarket {
  agg: MarketAggregate;
  /** Log positions of the commands in this market's record, in record order. */
  positions: number[];
}

const STATES: readonly CommitmentState[] = ["provisional", "awaiting_confirmations", "committed", "declined", "expired", "failed"];

/**
 * Commitments of one market as columns; index i is the commitment with ordinal i + 1. Numbers are
 * stored as raw little-endian arrays (Uint8 for the state, Float64 for versions and times): a
 * MessagePack array of a million times decodes into a million heap numbers, raw bytes into one copy.
 */
interface CommitmentColumns {
  participant: string[];
  /** Uint8: index into STATES. */
  state: Uint8Array;
  /** Float64 each: version, marketVersion, createdAtMs, updatedAtMs, expiresAtMs (-1: none). */
  version: Uint8Array;
  marketVersion: Uint8Array;
  createdAtMs: Uint8Array;
  updatedAtMs: Uint8Array;
  expiresAtMs: Uint8Array;
  /** Only commitments with confirmation lists: [index, required, confirmed]. Most claims have none. */
  confirmations: [number, string[], string[]][];
  /** Auction commitments only (empty for direct claims). */
  winningBidId: string[];
  price: SealedAuctionClearingPrice[];
}

/** Version 2 stored every column as a MessagePack array; still read, converted on load. */
interface CommitmentColumnsV2 {
  participant: string[];
  state: number[];
  version: number[];
  marketVersion: number[];
  createdAtMs: number[];
  updatedAtMs: number[];
  expiresAtMs: number[];
  required: string[][];
  confirmed: string[][];
  winningBidId: string[];
  price: SealedAuctionClearingPrice[];
}

interface StoredMarket {
  /** The market with its subject as JSON text (see logged-command.ts: msgpackr renames `__proto__`). */
  market: Omit<Market, "subject"> & { subject: string };
  commitments: CommitmentColumns;
  bids: SealedBid[];
  lastResolution: SealedAuctionResolution | null;
  commandCount: number;
  eventCount: number;
  /** Positions as little-endian float64 bytes. */
  positions: Uint8Array;
}

interface StoredShard {
  v: typeof SHARD_SNAPSHOT_VERSION | 2;
  shardIndex: number;
  lastStampMs: number;
  /** Log end position when the snapshot was taken. */
  endPosition: number;
  markets: (Omit<StoredMarket, "commitments"> & { commitments: CommitmentColumns | CommitmentColumnsV2 })[];
}

export interface ShardSnapshotHeader {
  shardIndex: number;
  lastStampMs: number;
  endPosition: number;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * Stored times are the engine's own `isoFromMs` output (`YYYY-MM-DDTHH:MM:SS.mmmZ`), and the
 * commitments of one batch share their second. Parsing each one in full was half the cost of a
 * snapshot (profile of a 300k-commitment shard), so the second is parsed once per distinct prefix
 * and only the milliseconds per value; anything of another shape takes the full parser.
 */
let cachedSecondPrefix = "";
let cachedSecondMs = 0;

let cachedText = "";
let cachedTextMs = 0;

function msOf(text: string): number {
  // Commitments stamped in one batch share one time string (`isoFromMs` caches per millisecond).
  if (text === cachedText) return cachedTextMs;
  const ms = parseStoredTime(text);
  cachedText = text;
  cachedTextMs = ms;
  return ms;
}

function parseStoredTime(text: string): number {
  if (text.length === 24 && text.charCodeAt(19) === 46 /* . */ && text.charCodeAt(23) === 90 /* Z */) {
    const prefix = text.slice(0, 19);
    if (prefix !== cachedSecondPrefix) {
      const secondMs = parseDateTimeMs(`${prefix}Z`);
      assert(secondMs !== undefined, "stored times are normalized");
      cachedSecondPrefix = prefix;
      cachedSecondMs = secondMs;
    }
    const d0 = text.charCodeAt(20) - 48;
    const d1 = text.charCodeAt(21) - 48;
    const d2 = text.charCodeAt(22) - 48;
    if (d0 >= 0 && d0 <= 9 && d1 >= 0 && d1 <= 9 && d2 >= 0 && d2 <= 9) return cachedSecondMs + d0 * 100 + d1 * 10 + d2;
  }
  const ms = parseDateTimeMs(text);
  assert(ms !== undefined, "stored times are normalized");
  return ms;
}

// Float64 columns are written and read in the machine's byte order, which every Node platform we
// ship for has as little-endian; a big-endian one would misread snapshots, so refuse it outright.
assert(endianness() === "LE", "shard snapshots store little-endian float64 columns");

/** Little-endian float64 bytes of `values`. */
function float64Bytes(values: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  new Float64Array(bytes.buffer).set(values);
  return bytes;
}

/** The numbers of float64 bytes; copied, because decoded bytes need not be 8-byte aligned. */
function float64sOf(bytes: Uint8Array): Float64Array {
  assert(bytes.byteLength % 8 === 0, "float64 column is whole");
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

function columnsOf(commitments: readonly Commitment[]): CommitmentColumns {
  const count = commitments.length;
  const participant: string[] = new Array<string>(count);
  const state = new Uint8Array(count);
  const version = new Float64Array(count);
  const marketVersion = new Float64Array(count);
  const createdAtMs = new Float64Array(count);
  const updatedAtMs = new Float64Array(count);
  const expiresAtMs = new Float64Array(count);
  const confirmations: CommitmentColumns["confirmations"] = [];
  const winningBidId: string[] = [];
  const price: SealedAuctionClearingPrice[] = [];
  for (let i = 0; i < count; i += 1) {
    const c = commitments[i] as Commitment;
    participant[i] = c.participantPrincipalId;
    state[i] = STATES.indexOf(c.state);
    version[i] = c.version;
    marketVersion[i] = c.marketVersion;
    createdAtMs[i] = msOf(c.createdAt);
    updatedAtMs[i] = msOf(c.updatedAt);
    expiresAtMs[i] = c.expiresAt === undefined ? -1 : msOf(c.expiresAt);
    const required = c.requiredConfirmationPrincipalIds ?? [];
    const confirmed = c.confirmedPrincipalIds ?? [];
    if (required.length > 0 || confirmed.length > 0) confirmations.push([i, required, confirmed]);
    if ("winningBidId" in c.terms) {
      winningBidId.push(c.terms.winningBidId);
      price.push(c.terms.pricing);
    }
  }
  return {
    participant,
    state,
    version: float64Bytes(version),
    marketVersion: float64Bytes(marketVersion),
    createdAtMs: float64Bytes(createdAtMs),
    updatedAtMs: float64Bytes(updatedAtMs),
    expiresAtMs: float64Bytes(expiresAtMs),
    confirmations,
    winningBidId,
    price,
  };
}

/** Columns ready to restore from: numbers as Float64Array, confirmation lists by index. */
interface LoadedColumns {
  participant: string[];
  state: Uint8Array;
  version: Float64Array;
  marketVersion: Float64Array;
  createdAtMs: Float64Array;
  updatedAtMs: Float64Array;
  expiresAtMs: Float64Array;
  confirmations: [number, string[], string[]][];
  winningBidId: string[];
  price: SealedAuctionClearingPrice[];
}

function loadColumns(stored: CommitmentColumns | CommitmentColumnsV2): LoadedColumns {
  if ("confirmations" in stored) {
    return {
      ...stored,
      version: float64sOf(stored.version),
      marketVersion: float64sOf(stored.marketVersion),
      createdAtMs: float64sOf(stored.createdAtMs),
      updatedAtMs: float64sOf(stored.updatedAtMs),
      expiresAtMs: float64sOf(stored.expiresAtMs),
    };
  }
  const confirmations: [number, string[], string[]][] = [];
  for (let i = 0; i < stored.participant.length; i += 1) {
    const required = stored.required[i] ?? [];
    const confirmed = stored.confirmed[i] ?? [];
    if (required.length > 0 || confirmed.length > 0) confirmations.push([i, required, confirmed]);
  }
  return {
    participant: stored.participant,
    state: Uint8Array.from(stored.state),
    version: Float64Array.from(stored.version),
    marketVersion: Float64Array.from(stored.marketVersion),
    createdAtMs: Float64Array.from(stored.createdAtMs),
    updatedAtMs: Float64Array.from(stored.updatedAtMs),
    expiresAtMs: Float64Array.from(stored.expiresAtMs),
    confirmations,
    winningBidId: stored.winningBidId,
    price: stored.price,
  };
}

export function encodeShardSnapshot(header: ShardSnapshotHeader, markets: Iterable<ShardMarket>): Buffer {
  const stored: StoredMarket[] = [];
  for (const { agg, positions } of markets) {
    stored.push({
      market: { ...agg.market, subject: JSON.stringify(agg.market.subject) },
      commitments: columnsOf(agg.commitments),
      bids: agg.bids,
      lastResolution: agg.lastResolution ?? null,
      commandCount: agg.commandCount,
      eventCount: agg.eventCount,
      positions: float64Bytes(positions),
    });
  }
  const payload: StoredShard = { v: SHARD_SNAPSHOT_VERSION, ...header, markets: stored };
  return packr.pack(payload);
}

export interface DecodedShardSnapshot extends ShardSnapshotHeader {
  markets: ShardMarket[];
}

type StoredMarketAnyVersion = StoredShard["markets"][number];

function restoreMarket(m: StoredMarketAnyVersion): ShardMarket {
  const agg = newAggregate({ ...m.market, subject: JSON.parse(m.market.subject) as Market["subject"] });
  const market = agg.market;
  const isDirectClaim = market.mechanism.presetId === DIRECT_CLAIM_PRESET;
  if (market.mechanism.presetId === DIRECT_CLAIM_PRESET) {
    agg.claimTerms = { subject: market.subject, pricing: market.mechanism.config.pricing };
  }
  const cols = loadColumns(m.commitments);
  const count = cols.participant.length;
  assert(
    cols.state.length === count && cols.version.length === count && cols.marketVersion.length === count &&
      cols.createdAtMs.length === count && cols.updatedAtMs.length === count && cols.expiresAtMs.length === count,
    "stored commitment columns have one length",
  );
  const commitments: Commitment[] = new Array<Commitment>(count);
  for (let i = 0; i < count; i += 1) {
    const state = STATES[cols.state[i] as number];
    assert(state !== undefined, "stored commitment state is known");
    const expiresAtMs = cols.expiresAtMs[i] as number;
    const terms = isDirectClaim
      ? (agg.claimTerms as NonNullable<MarketAggregate["claimTerms"]>)
      : { subject: market.subject, winningBidId: cols.winningBidId[i] as string, pricing: cols.price[i] as SealedAuctionClearingPrice };
    const createdAtMs = cols.createdAtMs[i] as number;
    const updatedMs = cols.updatedAtMs[i] as number;
    const createdAt = isoFromMs(createdAtMs);
    const commitment: Commitment = {
      id: generatedIdOf("c", agg.ref, i + 1),
      version: cols.version[i] as number,
      marketId: market.id,
      marketVersion: cols.marketVersion[i] as number,
      creatorPrincipalId: market.creator.principalId,
      participantPrincipalId: cols.participant[i] as string,
      state,
      terms,
      // The engine's one shared empty list; the few non-empty ones are set below.
      requiredConfirmationPrincipalIds: NO_PRINCIPALS,
      confirmedPrincipalIds: NO_PRINCIPALS,
      createdAt,
      updatedAt: updatedMs === createdAtMs ? createdAt : isoFromMs(updatedMs),
    };
    // After the literal, as the engine does: the same object shape live and restored.
    if (expiresAtMs >= 0) commitment.expiresAt = isoFromMs(expiresAtMs);
    commitments[i] = commitment;
    if (isDirectClaim && (state === "awaiting_confirmations" || state === "committed")) {
      principalIndexOf(agg).set(commitment.participantPrincipalId, i + 1);
    }
  }
  for (const [i, required, confirmed] of cols.confirmations) {
    const commitment = commitments[i];
    assert(commitment !== undefined, "stored confirmation lists name a commitment");
    if (required.length > 0) commitment.requiredConfirmationPrincipalIds = required;
    if (confirmed.length > 0) commitment.confirmedPrincipalIds = confirmed;
  }
  agg.commitments = commitments;
  for (const bid of m.bids) {
    agg.bids.push(bid);
    principalIndexOf(agg).set(bid.principalId, bid.ordinal);
  }
  agg.lastResolution = m.lastResolution ?? undefined;
  agg.commandCount = m.commandCount;
  agg.eventCount = m.eventCount;
  return { agg, positions: Array.from(float64sOf(m.positions)) };
}

export function decodeShardSnapshot(payload: Uint8Array): DecodedShardSnapshot {
  const stored = packr.unpack(payload) as StoredShard;
  if (stored?.v !== SHARD_SNAPSHOT_VERSION && stored?.v !== 2) throw new Error("shard snapshot of an unknown version");
  return {
    shardIndex: stored.shardIndex,
    lastStampMs: stored.lastStampMs,
    endPosition: stored.endPosition,
    markets: stored.markets.map(restoreMarket),
  };
}
