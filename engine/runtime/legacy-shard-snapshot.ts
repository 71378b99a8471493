/**
 * Commitments as shard snapshots of versions 2 and 3 stored them (one column per field), rebuilt
 * into a commitment table. Kept so a data directory written by an earlier build still starts
 * from its snapshot; new snapshots are version 4 (shard-snapshot.ts).
 */
import { assert } from "../rules/assert.js";
import { NO_PRINCIPALS } from "../rules/commitment/confirmations.js";
import { COMMITMENT_STATES, CommitmentTable } from "../store/commitment-table.js";
import { float64sOf } from "./float64-bytes.js";
import type { SealedAuctionClearingPrice } from "../rules/types/auction.js";

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


/** The commitment table that stored columns describe, rebuilt row by row. */
export function tableOfColumns(stored: CommitmentColumnsV3 | CommitmentColumnsV2): CommitmentTable {
  const count = stored.participant.length;
  const v3 = "confirmations" in stored;
  const numbers: ArrayLike<number>[] = v3
    ? [stored.version, stored.marketVersion, stored.createdAtMs, stored.updatedAtMs, stored.expiresAtMs].map(float64sOf)
    : [stored.version, stored.marketVersion, stored.createdAtMs, stored.updatedAtMs, stored.expiresAtMs];
  const [version, marketVersion, createdAtMs, updatedAtMs, expiresAtMs] = numbers as [ArrayLike<number>, ArrayLike<number>, ArrayLike<number>, ArrayLike<number>, ArrayLike<number>];
  for (const column of [stored.state, ...numbers]) assert(column.length === count, "stored commitment columns have one length");
  const lists = new Map<number, [string[], string[]]>();
  if (v3) {
    for (const [index, required, confirmed] of stored.confirmations) lists.set(index, [required, confirmed]);
  } else {
    for (let index = 0; index < count; index += 1) lists.set(index, [stored.required[index] ?? [], stored.confirmed[index] ?? []]);
  }
  assert(stored.winningBidId.length === stored.price.length, "auction terms come in pairs");
  const table = new CommitmentTable();
  for (let index = 0; index < count; index += 1) {
    const state = COMMITMENT_STATES[stored.state[index] as number];
    assert(state !== undefined, "stored commitment state is known");
    const expires = expiresAtMs[index] as number;
    const winningBidId = stored.winningBidId[index];
    table.append(
      {
        participantPrincipalId: stored.participant[index] as string,
        state,
        version: version[index] as number,
        marketVersion: marketVersion[index] as number,
        createdAtMs: createdAtMs[index] as number,
        updatedAtMs: updatedAtMs[index] as number,
        expiresAtMs: expires < 0 ? undefined : expires,
        requiredConfirmationPrincipalIds: lists.get(index)?.[0] ?? NO_PRINCIPALS,
        confirmedPrincipalIds: lists.get(index)?.[1] ?? NO_PRINCIPALS,
      },
      winningBidId === undefined ? undefined : { winningBidId, pricing: stored.price[index] as SealedAuctionClearingPrice },
    );
  }
  return table;
}
