/**
 * Commitments as shard snapshots of versions 2 and 3 stored them (one column per field), converted
 * to the commitment table's image. Kept so a data directory written by an earlier build still starts
 * from its snapshot; new snapshots are version 4 (shard-snapshot.ts).
 */
import { assert } from "../../engine/assert.js";
import { ROW_NUMBERS, type CommitmentTableImage } from "../../engine/commitment/table.js";
import type { SealedAuctionClearingPrice } from "../../engine/types/auction.js";

/** Version 3: numbers as raw little-endian bytes, confirmation lists only where non-empty. */
export interface CommitmentColumnsV3 {
  participant: string[];
  /** Uint8: index into COMMITMENT_STATES. */
  state: Uint8Array;
  /** Float64 bytes each; expiresAtMs −1 for none. */
  version: Uint8Array;
  marketVersion: Uint8Array;
  createdAtMs: Uint8Array;
  updatedAtMs: Uint8Array;
  expiresAtMs: Uint8Array;
  confirmations: [number, string[], string[]][];
  /** Auction commitments only, in index order (an auction market's commitments all have them). */
  winningBidId: string[];
  price: SealedAuctionClearingPrice[];
}

/** Version 2: every column a MessagePack array. */
export interface CommitmentColumnsV2 {
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

/** The numbers of float64 bytes; copied, because decoded bytes need not be 8-byte aligned. */
export function float64sOf(bytes: Uint8Array): Float64Array {
  assert(bytes.byteLength % 8 === 0, "float64 column is whole");
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

export function imageOfColumns(stored: CommitmentColumnsV3 | CommitmentColumnsV2): CommitmentTableImage {
  const count = stored.participant.length;
  const v3 = "confirmations" in stored;
  const columns: ArrayLike<number>[] = v3
    ? [stored.state, ...[stored.version, stored.marketVersion, stored.createdAtMs, stored.updatedAtMs, stored.expiresAtMs].map(float64sOf)]
    : [stored.state, stored.version, stored.marketVersion, stored.createdAtMs, stored.updatedAtMs, stored.expiresAtMs];
  assert(columns.length === ROW_NUMBERS, "one column per row number");
  const rows = new Float64Array(count * ROW_NUMBERS);
  columns.forEach((column, offset) => {
    assert(column.length === count, "stored commitment columns have one length");
    for (let index = 0; index < count; index += 1) rows[index * ROW_NUMBERS + offset] = column[index] as number;
  });
  let confirmations: CommitmentTableImage["confirmations"];
  if (v3) {
    confirmations = stored.confirmations;
  } else {
    confirmations = [];
    for (let index = 0; index < count; index += 1) {
      const required = stored.required[index] ?? [];
      const confirmed = stored.confirmed[index] ?? [];
      if (required.length > 0 || confirmed.length > 0) confirmations.push([index, required, confirmed]);
    }
  }
  assert(stored.winningBidId.length === stored.price.length, "auction terms come in pairs");
  return {
    rows,
    participants: stored.participant,
    confirmations,
    auctionTerms: stored.winningBidId.map((winningBidId, index) => [index, winningBidId, stored.price[index] as SealedAuctionClearingPrice]),
  };
}
