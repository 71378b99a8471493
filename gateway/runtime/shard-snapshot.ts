/**
 * The shard snapshot payload: every market's aggregate and the log positions of its recorded
 * commands. A claim storm leaves tens of thousands of commitments per market, so commitments are
 * stored column by column, and everything derivable is left out and rebuilt on load: the id
 * (`c.<ref>.<ordinal>`), direct-claim terms (the market's subject and pricing), the subject in
 * auction terms, and the principal index. Plain MessagePack, like the log.
 */
import { Packr } from "msgpackr";
import { assert } from "../../engine/assert.js";
import { generatedIdOf } from "../../engine/ids.js";
import { newAggregate, principalIndexOf, type MarketAggregate, type SealedBid } from "../../engine/state.js";
import { isoFromMs, parseDateTimeMs } from "../../engine/time.js";
import type { SealedAuctionClearingPrice, SealedAuctionResolution } from "../../engine/types/auction.js";
import type { Commitment, CommitmentState } from "../../engine/types/commitment.js";
import { DIRECT_CLAIM_PRESET, type Market } from "../../engine/types/market.js";

export const SHARD_SNAPSHOT_VERSION = 2;

export interface ShardMarket {
  agg: MarketAggregate;
  /** Log positions of the commands in this market's record, in record order. */
  positions: number[];
}

const STATES: readonly CommitmentState[] = ["provisional", "awaiting_confirmations", "committed", "declined", "expired", "failed"];

/** Commitments of one market as columns; index i is the commitment with ordinal i + 1. */
interface CommitmentColumns {
  participant: string[];
  state: number[];
  version: number[];
  marketVersion: number[];
  createdAtMs: number[];
  updatedAtMs: number[];
  /** -1 when the commitment has no deadline. */
  expiresAtMs: number[];
  required: string[][];
  confirmed: string[][];
  /** Auction commitments only (empty for direct claims). */
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
  v: typeof SHARD_SNAPSHOT_VERSION;
  shardIndex: number;
  lastStampMs: number;
  /** Log end position when the snapshot was taken. */
  endPosition: number;
  markets: StoredMarket[];
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

function msOf(text: string): number {
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

function columnsOf(commitments: readonly Commitment[]): CommitmentColumns {
  const columns: CommitmentColumns = {
    participant: [], state: [], version: [], marketVersion: [], createdAtMs: [], updatedAtMs: [], expiresAtMs: [],
    required: [], confirmed: [], winningBidId: [], price: [],
  };
  for (const c of commitments) {
    columns.participant.push(c.participantPrincipalId);
    columns.state.push(STATES.indexOf(c.state));
    columns.version.push(c.version);
    columns.marketVersion.push(c.marketVersion);
    columns.createdAtMs.push(msOf(c.createdAt));
    columns.updatedAtMs.push(msOf(c.updatedAt));
    columns.expiresAtMs.push(c.expiresAt === undefined ? -1 : msOf(c.expiresAt));
    columns.required.push(c.requiredConfirmationPrincipalIds ?? []);
    columns.confirmed.push(c.confirmedPrincipalIds ?? []);
    if ("winningBidId" in c.terms) {
      columns.winningBidId.push(c.terms.winningBidId);
      columns.price.push(c.terms.pricing);
    }
  }
  return columns;
}

function positionsBytes(positions: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(positions.length * 8);
  new Float64Array(bytes.buffer).set(positions);
  return bytes;
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
      positions: positionsBytes(positions),
    });
  }
  const payload: StoredShard = { v: SHARD_SNAPSHOT_VERSION, ...header, markets: stored };
  return packr.pack(payload);
}

export interface DecodedShardSnapshot extends ShardSnapshotHeader {
  markets: ShardMarket[];
}

/** One shared empty list, as the engine uses (lists are replaced, never edited). */
const NONE: string[] = [];
const shared = (list: string[]): string[] => (list.length === 0 ? NONE : list);

function restoreMarket(m: StoredMarket): ShardMarket {
  const agg = newAggregate({ ...m.market, subject: JSON.parse(m.market.subject) as Market["subject"] });
  const market = agg.market;
  const isDirectClaim = market.mechanism.presetId === DIRECT_CLAIM_PRESET;
  if (market.mechanism.presetId === DIRECT_CLAIM_PRESET) {
    agg.claimTerms = { subject: market.subject, pricing: market.mechanism.config.pricing };
  }
  const cols = m.commitments;
  for (let i = 0; i < cols.participant.length; i += 1) {
    const state = STATES[cols.state[i] as number];
    assert(state !== undefined, "stored commitment state is known");
    const expiresAtMs = cols.expiresAtMs[i] as number;
    const terms = isDirectClaim
      ? (agg.claimTerms as NonNullable<MarketAggregate["claimTerms"]>)
      : { subject: market.subject, winningBidId: cols.winningBidId[i] as string, pricing: cols.price[i] as SealedAuctionClearingPrice };
    const createdAt = isoFromMs(cols.createdAtMs[i] as number);
    const updatedMs = cols.updatedAtMs[i] as number;
    const commitment: Commitment = {
      id: generatedIdOf("c", agg.ref, i + 1),
      version: cols.version[i] as number,
      marketId: market.id,
      marketVersion: cols.marketVersion[i] as number,
      creatorPrincipalId: market.creator.principalId,
      participantPrincipalId: cols.participant[i] as string,
      state,
      terms,
      requiredConfirmationPrincipalIds: shared(cols.required[i] as string[]),
      confirmedPrincipalIds: shared(cols.confirmed[i] as string[]),
      ...(expiresAtMs < 0 ? {} : { expiresAt: isoFromMs(expiresAtMs) }),
      createdAt,
      updatedAt: updatedMs === cols.createdAtMs[i] ? createdAt : isoFromMs(updatedMs),
    };
    agg.commitments.push(commitment);
    if (isDirectClaim && (state === "awaiting_confirmations" || state === "committed")) {
      principalIndexOf(agg).set(commitment.participantPrincipalId, i + 1);
    }
  }
  for (const bid of m.bids) {
    agg.bids.push(bid);
    principalIndexOf(agg).set(bid.principalId, bid.ordinal);
  }
  agg.lastResolution = m.lastResolution ?? undefined;
  agg.commandCount = m.commandCount;
  agg.eventCount = m.eventCount;
  const bytes = m.positions;
  const view = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return { agg, positions: Array.from(view) };
}

export function decodeShardSnapshot(payload: Uint8Array): DecodedShardSnapshot {
  const stored = packr.unpack(payload) as StoredShard;
  if (stored?.v !== SHARD_SNAPSHOT_VERSION) throw new Error("shard snapshot of an unknown version");
  return {
    shardIndex: stored.shardIndex,
    lastStampMs: stored.lastStampMs,
    endPosition: stored.endPosition,
    markets: stored.markets.map(restoreMarket),
  };
}
