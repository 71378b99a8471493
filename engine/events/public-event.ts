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
import type { Event, PositiveSafeUint64, PublicEventData, PublicEventType, PublicEventView, PublicMarketEvent } from "@market-service/client/wire";
import type { EmittedEvent } from "../shard-protocol/shard-protocol.js";

/**
 * The public view of an event of type `Type`, with `data` of the type the client package declares for
 * that type's public view (PublicEventData), so the service's views and the client's types cannot
 * drift apart. Members in the order the streams have always written them.
 */
function viewOf<Type extends PublicEventType>(type: Type, event: Event, sequence: PositiveSafeUint64, data: PublicEventData[Type]): PublicEventView<Type> {
  return { sequence, id: event.id, type, marketId: event.marketId, marketVersion: event.marketVersion, occurredAt: event.occurredAt, data };
}

/** The view of `event` for a subscriber who is not the market's creator; undefined: none. */
export function publicEventView(event: Event): PublicMarketEvent | undefined {
  const sequence = event.sequence;
  if (sequence === undefined) return undefined;
  switch (event.type) {
    case "market.draft_created":
      // Everything here is in the market snapshot (creator, subject, mechanism, mechanism state).
      return viewOf(event.type, event, sequence, { ...event.data });
    case "market.published":
      return viewOf(event.type, event, sequence, { previousState: event.data.previousState, state: event.data.state });
    case "direct_claim.accepted":
      return viewOf(event.type, event, sequence, { allocated: event.data.allocated, capacity: event.data.capacity });
    case "sealed_auction.bid_submitted":
      return viewOf(event.type, event, sequence, { bidCount: event.data.bidCount });
    case "sealed_auction.resolved":
      return viewOf(event.type, event, sequence, event.data.outcome === "winner_selected" ? { outcome: "winner_selected", winningBidId: event.data.winningBidId } : { outcome: "no_trade" });
    case "commitment.declined":
      // A released hold: the snapshot shows it too (`allocated` falls; an auction's winner is excluded).
      return viewOf(event.type, event, sequence, { state: event.data.state });
    case "commitment.expired":
      return viewOf(event.type, event, sequence, { state: event.data.state });
    case "commitment.provisional":
    case "commitment.awaiting_confirmations":
    case "commitment.committed":
    case "commitment.confirmation_recorded":
      return undefined;
  }
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
