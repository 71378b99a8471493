/** Folding direct-claim allocation: the market closes at capacity and reopens when capacity returns. */
import { assert } from "../common/assert.js";
import { principalIndexOf, type MarketAggregate } from "../state/state.js";
import { DIRECT_CLAIM_PRESET, type DirectClaimAcceptedEvent, type DirectClaimState } from "@market-service/client/wire";

function directClaimConfig(agg: MarketAggregate) {
  assert(agg.market.mechanism.presetId === DIRECT_CLAIM_PRESET, "direct-claim event in a direct-claim market");
  return agg.market.mechanism.config;
}

export function evolveClaimAccepted(agg: MarketAggregate, event: DirectClaimAcceptedEvent): void {
  const config = directClaimConfig(agg);
  const allocated = event.data.allocated;
  assert(allocated === (agg.market.mechanismState as DirectClaimState).allocated + 1, "a claim allocates one unit");
  assert(allocated <= config.capacity && event.data.capacity === config.capacity, "allocated never exceeds capacity");
  agg.market.state = allocated === config.capacity ? "closed" : "open";
  (agg.market.mechanismState as DirectClaimState).allocated = allocated;
}

/**
 * The claimant's commitment is being created with `ordinal`: index it so a second claim by the same
 * principal is refused. Called before the row is appended, so a lazily built index does not hold it yet.
 */
export function evolveClaimCommitmentCreated(agg: MarketAggregate, participantPrincipalId: string, ordinal: number): void {
  principalIndexOf(agg).add(participantPrincipalId, ordinal); // asserts one active commitment per principal
}

/** A declined or expired claim returns its unit of capacity and reopens a market closed at capacity. */
export function evolveClaimReleased(agg: MarketAggregate, participantPrincipalId: string): void {
  directClaimConfig(agg);
  const allocated = (agg.market.mechanismState as DirectClaimState).allocated;
  assert(allocated >= 1, "a release follows an allocation");
  assert(principalIndexOf(agg).delete(participantPrincipalId), "released commitment was active");
  agg.market.state = "open";
  (agg.market.mechanismState as DirectClaimState).allocated = allocated - 1;
}
