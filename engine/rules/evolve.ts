/**
 * evolve(state, event) → state. Applies one event to the aggregate in place and returns it (see
 * state/state.ts for what is edited and what is replaced). Every invariant is asserted here, so a decide
 * bug shows up as a loud failure rather than as a wrong record.
 */
import { assert, assertNever } from "./common/assert.js";
import { evolveCommitment } from "./commitment/evolve.js";
import type { DomainEvent } from "./decision/decision.js";
import { evolveClaimAccepted } from "./direct-claim/evolve.js";
import { evolveDraftCreated, evolvePublished } from "./market/evolve.js";
import { evolveBidSubmitted, evolveResolved } from "./sealed-auction/evolve.js";
import { principalCount, type MarketAggregate } from "./state/state.js";
import type { MarketStorage } from "./state/store.js";
import type { DirectClaimState } from "@market-service/client/wire";

function advanceMarketVersion(agg: MarketAggregate, event: DomainEvent): void {
  const market = agg.market;
  assert(event.marketId === market.id, "event belongs to this market");
  if (event.marketVersion === market.version) return;
  assert(event.marketVersion === market.version + 1, "market versions increase by one per command");
  market.version = event.marketVersion;
  market.updatedAt = agg.storage.keptTime(event.occurredAt);
}

/**
 * Invariants that hold between commands (not between the events of one command: a claim's
 * `direct_claim.accepted` precedes the commitment it allocates).
 */
export function checkInvariants(agg: MarketAggregate): void {
  const market = agg.market;
  if (market.mechanism.presetId === "direct-claim.v1") {
    const allocated = (market.mechanismState as DirectClaimState).allocated;
    assert(allocated <= market.mechanism.config.capacity, "allocated ≤ capacity");
    assert(allocated === principalCount(agg), "allocated equals active commitments");
    assert((market.state === "closed") === (allocated === market.mechanism.config.capacity), "closed exactly at capacity");
  }
}

/** `storage` keeps the market a `market.draft_created` event creates. */
export function evolve(agg: MarketAggregate | undefined, event: DomainEvent, storage: MarketStorage): MarketAggregate {
  let next: MarketAggregate;
  if (event.type === "market.draft_created") {
    next = evolveDraftCreated(agg, event, storage);
  } else {
    assert(agg !== undefined, "only market.draft_created starts a market");
    next = agg;
    advanceMarketVersion(next, event);
    switch (event.type) {
      case "market.published":
        evolvePublished(next, event);
        break;
      case "direct_claim.accepted":
        evolveClaimAccepted(next, event);
        break;
      case "sealed_auction.bid_submitted":
        evolveBidSubmitted(next, event);
        break;
      case "sealed_auction.resolved":
        evolveResolved(next, event);
        break;
      case "commitment.provisional":
      case "commitment.awaiting_confirmations":
      case "commitment.committed":
      case "commitment.confirmation_recorded":
      case "commitment.declined":
      case "commitment.expired":
        evolveCommitment(next, event);
        break;
      default:
        assertNever(event, "event type");
    }
  }
  if (event.sequence !== undefined) {
    assert(event.sequence === next.eventCount + 1, "event sequences are contiguous");
    next.eventCount = event.sequence;
  }
  return next;
}
