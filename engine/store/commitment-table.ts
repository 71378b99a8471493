/**
 * The commitments of one market as a table: one row of numbers per commitment in a growable
 * Float64Array, the participant ids as bytes in an arena (id-arena.ts), and sparse maps for what most
 * commitments leave empty (confirmation lists, auction terms). Everything else a `Commitment` shows is derived from the
 * market: the id (`c.<ref>.<ordinal>`), the market id, the creator and the direct-claim terms.
 *
 * Why not one object per commitment: a claim storm retains tens of thousands of commitments per
 * market. As objects each costs a heap object the collector walks, and a restart rebuilt every one
 * of them (decision I6). A row is eight numbers plus the participant id's bytes, and a restart copies
 * two byte ranges per market. The public `Commitment` is built on demand (`commitmentAt` in
 * rules/state/state.ts) for the few that a reply or a read shows.
 *
 * Index i is the commitment with ordinal i + 1. Times are epoch milliseconds of the engine's own
 * normalized text, so `isoFromMs` gives the text back exactly.
 */
import { assert } from "../rules/common/assert.js";
import type { CommitmentState, SealedAuctionClearingPrice } from "@market-service/client/wire";
import { NO_PRINCIPALS } from "../rules/state/confirmations.js";
import { IdArena } from "./id-arena.js";
import { grownCapacity } from "./capacity.js";
import type { PrincipalKeys } from "./principal-index.js";
import type { AuctionTerms, CommitmentChange, CommitmentRow, CommitmentStore } from "../rules/state/store.js";

export type { AuctionTerms, CommitmentChange, CommitmentRow } from "../rules/state/store.js";

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
/** Where the participant id lies in the arena: byte offset and signed unit count (id-arena.ts). */
const PARTICIPANT_AT = 6;
const PARTICIPANT_UNITS = 7;
/** Numbers per row; part of the snapshot format. */
export const ROW_NUMBERS = 8;
/** `expiresAtMs` of a commitment without a confirmation deadline. */
const NO_DEADLINE = -1;

const FIRST_CAPACITY_ROWS = 4;
/** Rows grow ×4 up to this many (16 KiB), then ×2 (capacity.ts). */
const QUADRUPLE_BELOW_ROWS = 256;
/** Bound: ordinals stay exact in a float64 row and in generated ids. */
const MAX_ROWS = 2 ** 31 - 1;
const NO_ROWS = new Float64Array(0);

/** The table as plain data, for snapshots. `rows` holds exactly `count × ROW_NUMBERS` numbers. */
export interface CommitmentTableImage {
  rows: Float64Array;
  /** The participant ids the rows point into (id-arena.ts). */
  arena: Uint8Array;
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

export class CommitmentTable implements CommitmentStore, PrincipalKeys {
  private rows: Float64Array = NO_ROWS;
  private countValue = 0;
  private participants = new IdArena();
  /** Sparse, created on first use: most claims have no confirmation lists. */
  private confirmationLists: Map<number, [required: string[], confirmed: string[]]> | undefined;
  private auctionTermsByIndex: Map<number, AuctionTerms> | undefined;

  get count(): number {
    return this.countValue;
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
    const { at, units } = this.participants.append(row.participantPrincipalId);
    rows[base + PARTICIPANT_AT] = at;
    rows[base + PARTICIPANT_UNITS] = units;
    this.countValue += 1;
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
    const lists = this.confirmationLists?.get(index);
    const required = lists?.[0] ?? NO_PRINCIPALS;
    const confirmed = change.confirmedPrincipalIds ?? lists?.[1] ?? NO_PRINCIPALS;
    if (isListed(required) || isListed(confirmed)) {
      this.confirmationLists ??= new Map();
      this.confirmationLists.set(index, [required, confirmed]);
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
    const base = index * ROW_NUMBERS;
    return this.participants.read(this.rows[base + PARTICIPANT_AT] as number, this.rows[base + PARTICIPANT_UNITS] as number);
  }

  /** Whether commitment `index`'s participant is `principalId`, without making a string. */
  isParticipant(index: number, principalId: string): boolean {
    this.assertIndex(index);
    const base = index * ROW_NUMBERS;
    return this.participants.equals(this.rows[base + PARTICIPANT_AT] as number, this.rows[base + PARTICIPANT_UNITS] as number, principalId);
  }

  // PrincipalKeys, by ordinal (index + 1): the direct-claim principal index reads keys from here.
  equals(ordinal: number, key: string): boolean {
    return this.isParticipant(ordinal - 1, key);
  }

  hash(ordinal: number): number {
    const index = ordinal - 1;
    this.assertIndex(index);
    const base = index * ROW_NUMBERS;
    return this.participants.hash(this.rows[base + PARTICIPANT_AT] as number, this.rows[base + PARTICIPANT_UNITS] as number);
  }

  key(ordinal: number): string {
    return this.participant(ordinal - 1);
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
      participantPrincipalId: this.participant(index),
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
      arena: this.participants.image(),
      confirmations: [...(this.confirmationLists ?? [])].map(([index, [required, confirmed]]) => [index, required, confirmed]),
      auctionTerms: [...(this.auctionTermsByIndex ?? [])].map(([index, terms]) => [index, terms.winningBidId, terms.pricing]),
    };
  }

  /** A table from an image, checked: the image comes from a file. `rows` is adopted, the arena copied. */
  static fromImage(image: CommitmentTableImage): CommitmentTable {
    const rows = image.rows;
    assert(rows.length % ROW_NUMBERS === 0, "a commitment table image holds whole rows");
    const count = rows.length / ROW_NUMBERS;
    assert(count <= MAX_ROWS, "commitments per market are bounded");
    const participants = IdArena.fromImage(image.arena);
    for (let base = 0; base < rows.length; base += ROW_NUMBERS) {
      const code = rows[base + STATE] as number;
      assert(code >= 0 && code < COMMITMENT_STATES.length && Number.isInteger(code), "stored commitment state is known");
      assert(participants.holds(rows[base + PARTICIPANT_AT] as number, rows[base + PARTICIPANT_UNITS] as number), "every commitment names its participant");
    }
    const table = new CommitmentTable();
    table.rows = rows;
    table.countValue = count;
    table.participants = participants;
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

  /** Room for `rowCount` rows: a storm appends one row per accepted claim. */
  private reserve(rowCount: number): void {
    const capacityRows = this.rows.length / ROW_NUMBERS;
    if (rowCount <= capacityRows) return;
    const grownRows = Math.min(grownCapacity(capacityRows, rowCount, FIRST_CAPACITY_ROWS, QUADRUPLE_BELOW_ROWS), MAX_ROWS);
    const grown = new Float64Array(grownRows * ROW_NUMBERS);
    grown.set(this.rows.subarray(0, this.count * ROW_NUMBERS));
    this.rows = grown;
  }

}
