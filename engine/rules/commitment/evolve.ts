/**
 * Folding commitment events. The first event naming a commitment creates its row (version 1); every
 * later one changes the row to the state the event carries and increments its version.
 */
import { assert, assertNever } from "../common/assert.js";
import { NO_PRINCIPALS } from "../state/confirmations.js";
import type { AuctionTerms } from "../state/store.js";
import { evolveClaimCommitmentCreated, evolveClaimReleased } from "../direct-claim/evolve.js";
import { evolveWinnerReleased } from "../sealed-auction/evolve.js";
import { commitmentIndexOf, principalIndexOf, type MarketAggregate } from "../state/state.js";
import { msOfNormalized } from "../common/time.js";
import { type CommitmentEvent, DIRECT_CLAIM_PRESET, SEALED_AUCTION_PRESET } from "@market-service/client/wire";

function createCommitment(agg: MarketAggregate, event: CommitmentEvent): void {
  const market = agg.market;
  let participantPrincipalId: string;
  let auctionTerms: AuctionTerms | undefined;
  const presetId = market.mechanism.presetId;
  switch (presetId) {
    case DIRECT_CLAIM_PRESET:
      participantPrincipalId = event.principalId;
      evolveClaimCommitmentCreated(agg, participantPrincipalId, agg.commitments.count + 1);
      break;
    case SEALED_AUCTION_PRESET: {
      const resolution = agg.lastResolution;
      assert(resolution?.outcome === "winner_selected", "a winner commitment follows a winner resolution");
      participantPrincipalId = resolution.winnerPrincipalId;
      auctionTerms = { winningBidId: resolution.winningBidId, pricing: resolution.clearingPrice };
      break;
    }
    default:
      return assertNever(presetId, "mechanism preset");
  }
  const { data } = event;
  const occurredAtMs = msOfNormalized(event.occurredAt);
  agg.commitments.append(
    {
      participantPrincipalId,
      state: data.state,
      version: 1,
      marketVersion: event.marketVersion,
      createdAtMs: occurredAtMs,
      updatedAtMs: occurredAtMs,
      expiresAtMs: data.expiresAt === undefined ? undefined : msOfNormalized(data.expiresAt),
      requiredConfirmationPrincipalIds: data.requiredConfirmationPrincipalIds ?? NO_PRINCIPALS,
      confirmedPrincipalIds: data.confirmedPrincipalIds ?? NO_PRINCIPALS,
    },
    auctionTerms,
  );
}

function released(agg: MarketAggregate, index: number): void {
  const presetId = agg.market.mechanism.presetId;
  switch (presetId) {
    case DIRECT_CLAIM_PRESET:
      return evolveClaimReleased(agg, agg.commitments.participant(index));
    case SEALED_AUCTION_PRESET:
      return evolveWinnerReleased(agg, index);
    default:
      return assertNever(presetId, "mechanism preset");
  }
}

export function evolveCommitment(agg: MarketAggregate, event: CommitmentEvent): void {
  const index = commitmentIndexOf(agg, event.data.commitmentId);
  assert(index !== undefined, "commitment ids name their market");
  const table = agg.commitments;
  // The principal index derives from the rows; build it (if a restart left it unbuilt) before this
  // event changes them, so the release below finds the commitment it removes.
  principalIndexOf(agg);
  if (index === table.count) {
    assert(
      event.type === "commitment.awaiting_confirmations" || event.type === "commitment.committed",
      "a commitment is created awaiting confirmations or committed",
    );
    return createCommitment(agg, event);
  }
  assert(index < table.count, "commitments are created in ordinal order");
  assert(table.state(index) === "awaiting_confirmations", "only an awaiting commitment changes");
  table.change(index, {
    state: event.data.state,
    marketVersion: event.marketVersion,
    updatedAtMs: msOfNormalized(event.occurredAt),
    ...(event.data.confirmedPrincipalIds === undefined ? {} : { confirmedPrincipalIds: event.data.confirmedPrincipalIds }),
  });
  switch (event.type) {
    case "commitment.confirmation_recorded":
    case "commitment.committed":
    case "commitment.awaiting_confirmations":
    case "commitment.provisional":
      return;
    case "commitment.declined":
    case "commitment.expired":
      return released(agg, index);
    default:
      return assertNever(event.type, "commitment event");
  }
}
