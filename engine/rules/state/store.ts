/**
 * How the rules keep a market's commitments and its principals, as interfaces: the rules read and
 * change them only through these, so they can be read beside the spec, while the implementation
 * (engine/store/: typed-array rows, an id arena, an open-addressing index) is free to keep them
 * however is fastest. Only an implementation mutates its storage in place.
 */
import type { CommitmentState, DIRECT_CLAIM_PRESET, SEALED_AUCTION_PRESET, SealedAuctionClearingPrice } from "@market-service/client/wire";

/** One commitment's stored fields; the public `Commitment` (spec §2.6) is built from it and the market. */
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
  /** Absent: the confirmed list stays as it is. */
  confirmedPrincipalIds?: string[];
}

/** What an auction commitment holds beyond the row: the winning bid and the price it clears at. */
export interface AuctionTerms {
  winningBidId: string;
  pricing: SealedAuctionClearingPrice;
}

/** A market's commitments in creation order: index i is the commitment with ordinal i + 1. */
export interface CommitmentStore {
  readonly count: number;
  /** Appends a commitment (version 1) and returns its index. */
  append(row: CommitmentRow, auctionTerms?: AuctionTerms): number;
  /** Applies a change; the commitment's version goes up by one. */
  change(index: number, change: CommitmentChange): void;
  state(index: number): CommitmentState;
  participant(index: number): string;
  isParticipant(index: number, principalId: string): boolean;
  expiresAtMs(index: number): number | undefined;
  row(index: number): CommitmentRow;
  auctionTerms(index: number): AuctionTerms | undefined;
}

/**
 * The principals that hold something in a market, each with its ordinal: an active (awaiting or
 * committed) commitment in a direct-claim market, a bid in an auction. One entry per principal.
 */
export interface PrincipalSet {
  readonly size: number;
  has(principalId: string): boolean;
  /** Adds a principal that is not in the set (asserted). */
  add(principalId: string, ordinal: number): void;
  /** Removes a principal; false when it was not in the set. */
  delete(principalId: string): boolean;
  /** [principal, ordinal] pairs in ordinal order (tests and diagnostics). */
  entries(): [string, number][];
}

/**
 * Where a market's principals are read from when its set is built (and, for keys the set does not
 * copy, afterwards): the live commitment store, or the live list of bids in ordinal order.
 */
export type PrincipalSource =
  | { presetId: typeof DIRECT_CLAIM_PRESET; commitments: CommitmentStore }
  | { presetId: typeof SEALED_AUCTION_PRESET; bids: readonly { readonly principalId: string }[] };

/** The storage a market is kept in; the runtime gives engine/store's. */
export interface MarketStorage {
  /** An empty commitment store for a new market. */
  newCommitments(): CommitmentStore;
  /** The principal set of a market, built from its commitments or bids. */
  principals(source: PrincipalSource): PrincipalSet;
  /**
   * The text of a time a market keeps (its `createdAt`, `updatedAt`), equal to `text`: an
   * implementation may hand back an equal string it already keeps, so that the markets one batch
   * changes (one server time) share one string instead of a copy each.
   */
  keptTime(text: string): string;
}
