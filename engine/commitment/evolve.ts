/**
 * Folding commitment events. The first event naming a commitment creates it (version 1); every later
 * one replaces it with the state the event carries and increments its version.
 */
import { assert, assertNever } from "../assert.js";
import { NO_PRINCIPALS } from "./confirmations.js";
import { evolveClaimCommitmentCreated, evolveClaimReleased } from "../direct-claim/evolve.js";
import { evolveWinnerReleased } from "../sealed-auction/evolve.js";
import { commitmentIndexOf, type MarketAggregate } from "../state.js";
import type { Commitment, CommitmentTerms } from "../types/commitment.js";
import type { CommitmentEvent } from "../types/event.js";
import { DIRECT_CLAIM_PRESET, SEALED_AUCTION_PRESET } from "../types/market.js";

function newCommitment(agg: MarketAggregate, event: CommitmentEvent): Commitment {
  const market = agg.market;
  let participantPrincipalId: string;
  let terms: CommitmentTerms;
  const presetId = market.mechanism.presetId;
  switch (presetId) {
    case DIRECT_CLAIM_PRESET:
      participantPrincipalId = event.principalId;
      // Immutable and identical for every claim of the market: one shared object.
      agg.claimTerms ??= { subject: market.subject, pricing: market.mechanism.config.pricing };
      terms = agg.claimTerms;
      break;
    case SEALED_AUCTION_PRESET: {
      const resolution = agg.lastResolution;
      assert(resolution?.outcome === "winner_selected", "a winner commitment follows a winner resolution");
      participantPrincipalId = resolution.winnerPrincipalId;
      terms = { subject: market.subject, winningBidId: resolution.winningBidId, pricing: resolution.clearingPrice };
      break;
    }
    default:
      return assertNever(presetId, "mechanism preset");
  }
  const { data } = event;
  const created: Commitment = {
    id: data.commitmentId,
    version: 1,
    marketId: market.id,
    marketVersion: event.marketVersion,
    creatorPrincipalId: market.creator.principalId,
    participantPrincipalId,
    state: data.state,
    terms,
    requiredConfirmationPrincipalIds: data.requiredConfirmationPrincipalIds ?? NO_PRINCIPALS,
    confirmedPrincipalIds: data.confirmedPrincipalIds ?? NO_PRINCIPALS,
    createdAt: event.occurredAt,
    updatedAt: event.occurredAt,
  };
  // Added after the literal, not spread into it: a spread gives every commitment an out-of-object
  // property store (measured: bytes per retained claim, bench/recovery.bench.ts).
  if (data.expiresAt !== undefined) created.expiresAt = data.expiresAt;
  return created;
}

function released(agg: MarketAggregate, commitment: Commitment): void {
  const presetId = agg.market.mechanism.presetId;
  switch (presetId) {
    case DIRECT_CLAIM_PRESET:
      return evolveClaimReleased(agg, commitment);
    case SEALED_AUCTION_PRESET:
      return evolveWinnerReleased(agg, commitment);
    default:
      return assertNever(presetId, "mechanism preset");
  }
}

export function evolveCommitment(agg: MarketAggregate, event: CommitmentEvent): void {
  const index = commitmentIndexOf(agg, event.data.commitmentId);
  assert(index !== undefined, "commitment ids name their market");
  const existing = agg.commitments[index];
  if (existing === undefined) {
    assert(index === agg.commitments.length, "commitments are created in ordinal order");
    assert(
      event.type === "commitment.awaiting_confirmations" || event.type === "commitment.committed",
      "a commitment is created awaiting confirmations or committed",
    );
    const created = newCommitment(agg, event);
    agg.commitments.push(created);
    if (agg.market.mechanism.presetId === DIRECT_CLAIM_PRESET) evolveClaimCommitmentCreated(agg, created);
    return;
  }
  assert(existing.id === event.data.commitmentId, "ordinal lookup finds the named commitment");
  assert(existing.state === "awaiting_confirmations", "only an awaiting commitment changes");
  const next: Commitment = {
    ...existing,
    version: existing.version + 1,
    marketVersion: event.marketVersion,
    state: event.data.state,
    confirmedPrincipalIds: event.data.confirmedPrincipalIds ?? existing.confirmedPrincipalIds ?? NO_PRINCIPALS,
    updatedAt: event.occurredAt,
  };
  agg.commitments[index] = next;
  switch (event.type) {
    case "commitment.confirmation_recorded":
    case "commitment.committed":
    case "commitment.awaiting_confirmations":
    case "commitment.provisional":
      return;
    case "commitment.declined":
    case "commitment.expired":
      return released(agg, next);
    default:
      return assertNever(event.type, "commitment event");
  }
}
