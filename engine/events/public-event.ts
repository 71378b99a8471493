/**
 * What an actor who is not the market's creator may see of one event on a live stream
 * (docs/events.md, decision I38): no more than `GET /v1/markets/{id}` shows. The market snapshot
 * shows the creator, subject, mechanism, state, version and the public mechanism state
 * (`allocated`; `bidCount`, `resolution`, `winningBidId`, `excludedBidIds`), so an event's public
 * view carries at most those facts, as of the event: never a participant's principal or actor, a
 * command id, a commitment id or its terms, a bid id other than the winning one, or an amount.
 *
 * An event with nothing public has no view (undefined): it is not sent to such a subscriber, and
 * its sequence number is simply skipped on that stream (resume works by "after N", so a gap in the
 * numbers is no gap in what that subscriber may see).
 */
import type { Event, PublicMarketEvent } from "@market-service/client/wire";
import type { EmittedEvent } from "../shard-protocol/shard-protocol.js";

/** The public payload of `event`, or undefined when nothing of it is public. */
function publicData(event: Event): Record<string, unknown> | undefined {
  switch (event.type) {
    case "market.draft_created":
      // Everything here is in the market snapshot (creator, subject, mechanism, mechanism state).
      return { ...event.data };
    case "market.published":
      return { previousState: event.data.previousState, state: event.data.state };
    case "direct_claim.accepted":
      return { allocated: event.data.allocated, capacity: event.data.capacity };
    case "sealed_auction.bid_submitted":
      return { bidCount: event.data.bidCount };
    case "sealed_auction.resolved":
      return event.data.outcome === "winner_selected" ? { outcome: "winner_selected", winningBidId: event.data.winningBidId } : { outcome: "no_trade" };
    case "commitment.declined":
    case "commitment.expired":
      // A released hold: the snapshot shows it too (`allocated` falls; an auction's winner is excluded).
      return { state: event.data.state };
    case "commitment.provisional":
    case "commitment.awaiting_confirmations":
    case "commitment.committed":
    case "commitment.confirmation_recorded":
      return undefined;
  }
}

/** The view of `event` for a subscriber who is not the market's creator; undefined: none. */
export function publicEventView(event: Event): PublicMarketEvent | undefined {
  const data = publicData(event);
  if (data === undefined || event.sequence === undefined) return undefined;
  return {
    sequence: event.sequence,
    id: event.id,
    type: event.type,
    marketId: event.marketId,
    marketVersion: event.marketVersion,
    occurredAt: event.occurredAt,
    data,
  };
}

const BOTH_VIEWS = { record: true, public: true } as const;

/**
 * An event as live streams send it: the record's envelope and its public view ("" when it has none
 * or was not asked for). The shard renders both for the node's subscribers; a backlog read for one
 * subscriber renders only the view it may see.
 */
export function renderedEvent(event: Event, views: { readonly record: boolean; readonly public: boolean } = BOTH_VIEWS): EmittedEvent {
  const view = views.public ? publicEventView(event) : undefined;
  return { marketId: event.marketId, sequence: event.sequence ?? 0, json: views.record ? JSON.stringify(event) : "", publicJson: view === undefined ? "" : JSON.stringify(view) };
}
