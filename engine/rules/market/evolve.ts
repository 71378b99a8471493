/** Folding market lifecycle events. */
import { assert } from "../common/assert.js";
import { newAggregate, type MarketAggregate } from "../state/state.js";
import type { MarketStorage } from "../state/store.js";
import type { DraftCreatedEvent, PublishedEvent } from "@market-service/client/wire";

export function evolveDraftCreated(agg: MarketAggregate | undefined, event: DraftCreatedEvent, storage: MarketStorage): MarketAggregate {
  assert(agg === undefined, "a market is created once");
  assert(event.marketVersion === 1, "a draft starts at version 1");
  const { creator, subject, mechanism, mechanismState } = event.data;
  const createdAt = storage.keptTime(event.occurredAt);
  return newAggregate({
    id: event.marketId,
    version: 1,
    state: "draft",
    creator,
    subject,
    mechanism,
    // The event keeps its own copy: the aggregate edits mechanism state in place.
    mechanismState: { ...mechanismState },
    createdAt,
    updatedAt: createdAt,
  }, storage);
}

export function evolvePublished(agg: MarketAggregate, _event: PublishedEvent): void {
  assert(agg.market.state === "draft", "only a draft is published");
  agg.market.state = "open";
}
