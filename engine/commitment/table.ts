/**
 * The commitments of one market as a table: one row of numbers per commitment in a growable
 * Float64Array, the participant ids beside it, and sparse maps for what most commitments leave empty
 * (confirmation lists, auction terms). Everything else a `Commitment` shows is derived from the
 * market: the id (`c.<ref>.<ordinal>`), the market id, the creator and the direct-claim terms.
 *
 * Why not one object per commitment: a claim storm retains tens of thousands of commitments per
 * market. As objects they cost ≈ 300 B each, and a restart rebuilt a million of them (GC was 40% of
 * a start, bench/README.md). A row costs 48 B plus the participant id. The public `Commitment` is
 * built on demand (`commitmentAt` in state.ts) for the few that a reply or a read shows.
 *
 * Index i is the commitment with ordinal i + 1. Times are epoch milliseconds of the engine's own
 * normalized text, so `isoFromMs` gives the text back exactly.
 */
import { assert } from "../assert.js";
import type { SealedAuctionClearingPrice } from "../types/auction.js";
import type { CommitmentState } from "../types/commitment.js";
import { NO_PRINCIPALS } from "./confirmations.js";

/** State codes, stored as numbers; the order is part of the snapshot format. */
export const COMMITMENT_STATES: readonly CommitmentState[] = [
  "provisional",
  "awaiting_confirmations",
  "committed",
  "declined",
  "expired",
  "failed",
];
const STATE_CODES: ReadonlyMap<CommitmentState, number> = new Map(COMMITMENT_STATES.map((state, code) => [state, code]));

/** Offsets of the numbers in a row. */
const STATE = 0;
const VERSION = 1;
const MARKET_VERSION = 2;
const CREATED_AT_MS = 3;
const UPDATED_AT_MS = 4;
const EXPIRES_AT_MS = 5;
/** Numbers per row; part of the snapshot format. */
export const ROW_NUMBERS = 6;
/** `expiresAtMs` of a commitment without a confirmation deadline. */
const NO_DEADLINE = -1;

const FIRST_CAPACITY_ROWS = 4;
/** Bound: ordinals stay exact in a float64 row and in generated ids. */
const MAX_ROWS = 2 ** 31 - 1;
const NO_ROWS = new Float64Array(0);

export interface AuctionTerms {
  winningBidId: string;
  pricing: SealedAuctionClearingPrice;
}

/** One commitment's stored fields. */
export interface CommitmentRow {
  participantPrincipalId: string;
  state: CommitmentState;
  version: number;
  marketVersion: number;
  createdAtMs: number;
  updatedAtMs: number;
  /** Undefined when the commitment has no confirmation deadline. */
  expiresAtMs: number | undefined;
  requiredConfirmationPrincipalIds: string[];
  confirmedPrincipalIds: string[];
}

/** A change to an existing commitment (spec §6.2: state, confirmations, versions, time). */
export interface CommitmentChange {
  state: CommitmentState;
  marketVersion: number;
  updatedAtMs: number;
  confirmedPrincipalIds: string[];
}

/** The table as plain data, for snapshots. `rows` holds exactly `count × ROW_NUMBERS` numbers. */
export interface CommitmentTableImage {
  rows: Float64Array;
  participants: string[];
  /** Only commitments with a non-empty list: [index, required, confirmed]. */
  confirmations: [number, string[], string[]][];
  /** Auction commitments only: [index, winningBidId, pricing]. */
  auctionTerms: [number, string, SealedAuctionClearingPrice][];
}

function stateCode(state: CommitmentState): number {
  const code = STATE_CODES.get(state);
  assert(code !== undefined, "commitment state is known");
  return code;
}

function isListed(list: readonly string[]): boolean {
  return list.length > 0;
}

export class CommitmentTable {
  private rows: Float64Array = NO_ROWS;
  /** Sparse, created on first use: most claims have no confirmation lists. */
  private confirmationLists: Map<number, [required: string[], confirmed: string[]]> | undefined;
  private auctionTermsByIndex: Map<number, AuctionTerms> | undefined;

  /** `participants` is the table's own array from here on (an adopted image's, or a new one). */
  constructor(private readonly participants: string[] = []) {}

  get count(): number {
    return this.participants.length;
  }

  append(row: CommitmentRow, auctionTerms?: AuctionTerms): number {
    const index = this.count;
    assert(index < MAX_ROWS, "commitments per market are bounded");
    this.reserve(index + 1);
    const base = index * ROW_NUMBERS;
    const rows = this.rows;
    rows[base + STATE] = stateCode(row.state);
    rows[base + VERSION] = row.version;
    rows[base + MARKET_VERSION] = row.marketVersion;
    rows[base + CREATED_AT_MS] = row.createdAtMs;
    rows[base + UPDATED_AT_MS] = row.updatedAtMs;
    rows[base + EXPIRES_AT_MS] = row.expiresAtMs ?? NO_DEADLINE;
    this.participants.push(row.participantPrincipalId);
    if (isListed(row.requiredConfirmationPrincipalIds) || isListed(row.confirmedPrincipalIds)) {
      this.confirmationLists ??= new Map();
      this.confirmationLists.set(index, [row.requiredConfirmationPrincipalIds, row.confirmedPrincipalIds]);
    }
    if (auctionTerms !== undefined) {
      this.auctionTermsByIndex ??= new Map();
      this.auctionTermsByIndex.set(index, auctionTerms);
    }
    return index;
  }

  /** Apply a change: the version goes up by one. */
  change(index: number, change: CommitmentChange): void {
    this.assertIndex(index);
    const base = index * ROW_NUMBERS;
    const rows = this.rows;
    rows[base + STATE] = stateCode(change.state);
    rows[base + VERSION] = (rows[base + VERSION] as number) + 1;
    rows[base + MARKET_VERSION] = change.marketVersion;
    rows[base + UPDATED_AT_MS] = change.updatedAtMs;
    const required = this.confirmationLists?.get(index)?.[0] ?? NO_PRINCIPALS;
    if (isListed(required) || isListed(change.confirmedPrincipalIds)) {
      this.confirmationLists ??= new Map();
      this.confirmationLists.set(index, [required, change.confirmedPrincipalIds]);
    }
  }

  state(index: number): CommitmentState {
    this.assertIndex(index);
    const state = COMMITMENT_STATES[this.rows[index * ROW_NUMBERS + STATE] as number];
    assert(state !== undefined, "stored commitment state is known");
    return state;
  }

  participant(index: number): string {
    this.assertIndex(index);
    return this.participants[index] as string;
  }

  /** The confirmation deadline in epoch milliseconds, if the commitment has one. */
  expiresAtMs(index: number): number | undefined {
    this.assertIndex(index);
    const ms = this.rows[index * ROW_NUMBERS + EXPIRES_AT_MS] as number;
    return ms === NO_DEADLINE ? undefined : ms;
  }

  row(index: number): CommitmentRow {
    this.assertIndex(index);
    const base = index * ROW_NUMBERS;
    const rows = this.rows;
    const lists = this.confirmationLists?.get(index);
    return {
      participantPrincipalId: this.participants[index] as string,
      state: this.state(index),
      version: rows[base + VERSION] as number,
      marketVersion: rows[base + MARKET_VERSION] as number,
      createdAtMs: rows[base + CREATED_AT_MS] as number,
      updatedAtMs: rows[base + UPDATED_AT_MS] as number,
      expiresAtMs: this.expiresAtMs(index),
      requiredConfirmationPrincipalIds: lists?.[0] ?? NO_PRINCIPALS,
      confirmedPrincipalIds: lists?.[1] ?? NO_PRINCIPALS,
    };
  }

  auctionTerms(index: number): AuctionTerms | undefined {
    this.assertIndex(index);
    return this.auctionTermsByIndex?.get(index);
  }

  /** The table as data; `rows` is a copy of exactly the used rows. */
  image(): CommitmentTableImage {
    return {
      rows: this.rows.slice(0, this.count * ROW_NUMBERS),
      participants: this.participants,
      confirmations: [...(this.confirmationLists ?? [])].map(([index, [required, confirmed]]) => [index, required, confirmed]),
      auctionTerms: [...(this.auctionTermsByIndex ?? [])].map(([index, terms]) => [index, terms.winningBidId, terms.pricing]),
    };
  }

  /** A table from an image, checked: the image comes from a file. Its arrays are adopted, not copied. */
  static fromImage(image: CommitmentTableImage): CommitmentTable {
    const participants = image.participants;
    const rows = image.rows;
    const count = participants.length;
    assert(count <= MAX_ROWS, "commitments per market are bounded");
    assert(rows.length === count * ROW_NUMBERS, "a commitment table image has one row per participant");
    for (let index = 0; index < count; index += 1) {
      const participant = participants[index];
      assert(typeof participant === "string" && participant.length > 0, "every commitment names its participant");
      const code = rows[index * ROW_NUMBERS + STATE] as number;
      assert(code >= 0 && code < COMMITMENT_STATES.length && Number.isInteger(code), "stored commitment state is known");
    }
    const table = new CommitmentTable(participants);
    table.rows = rows;
    for (const [index, required, confirmed] of image.confirmations) {
      table.assertIndex(index);
      assert(Array.isArray(required) && Array.isArray(confirmed), "confirmation lists are lists");
      table.confirmationLists ??= new Map();
      table.confirmationLists.set(index, [isListed(required) ? required : NO_PRINCIPALS, isListed(confirmed) ? confirmed : NO_PRINCIPALS]);
    }
    for (const [index, winningBidId, pricing] of image.auctionTerms) {
      table.assertIndex(index);
      table.auctionTermsByIndex ??= new Map();
      table.auctionTermsByIndex.set(index, { winningBidId, pricing });
    }
    return table;
  }

  private assertIndex(index: number): void {
    assert(Number.isInteger(index) && index >= 0 && index < this.count, "commitment index is within the table");
  }

  /** Room for `rows` rows, doubling: a storm appends one row per accepted claim. */
  private reserve(rowCount: number): void {
    const needed = rowCount * ROW_NUMBERS;
    if (needed <= this.rows.length) return;
    let capacityRows = Math.max(FIRST_CAPACITY_ROWS, this.rows.length / ROW_NUMBERS);
    while (capacityRows < rowCount) capacityRows *= 2;
    const grown = new Float64Array(Math.min(capacityRows, MAX_ROWS) * ROW_NUMBERS);
    grown.set(this.rows.subarray(0, this.count * ROW_NUMBERS));
    this.rows = grown;
  }
}
