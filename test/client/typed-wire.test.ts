/**
 * The types a client leans on (docs/client.md, "Mechanism configs" and "Narrowing events"; decision
 * I54): a mechanism selection is a union on `presetId`, each preset with its own config, and an event
 * is a union on `type`, with that type's `data`, in the creator's view and in the public view.
 *
 * Most of this file is checked by the compiler, not by vitest: tsconfig.json includes test/, and
 * `npm test` runs `npm run typecheck` first. Each `@ts-expect-error` line must be an error, so a
 * union that widens again (a `string` preset id, a `Record` config or `data`) fails the type check
 * with "Unused '@ts-expect-error' directive". The functions holding them are never called. The tests
 * at the end run `isCreatorEvent` on the views the service builds.
 */
import { describe, expect, it } from "vitest";
import { isCreatorEvent, type CreateMarketBody, type CreatorMarketEvent, type MarketClient, type MarketEventEnvelope, type MechanismSelectionInput, type PublicMarketEvent } from "@market-service/client";
import { publicEventView } from "../../engine/events/public-event.js";

const SUBJECT = { schema: "table.v1", data: { seats: 4 } };

/** Mechanism selections: what compiles and what does not. */
export function mechanismSelections(client: MarketClient, selection: MechanismSelectionInput): unknown[] {
  const direct: MechanismSelectionInput = { presetId: "direct-claim.v1", config: { capacity: 50, pricing: { mode: "free" }, confirmation: "none" } };
  const auction: MechanismSelectionInput = { presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt: "2030-01-01T12:00:00Z", holdDurationSeconds: 600 } };
  const body: CreateMarketBody = { commandId: "c1", marketId: "table-7", principalId: "alice", subject: SUBJECT, mechanism: direct };
  const wrong = [
    // @ts-expect-error: "direct-claim.v2" is no preset, and capacity is a number
    client.createMarket({ marketId: "table-7", principalId: "alice", subject: SUBJECT, mechanism: { presetId: "direct-claim.v2", config: { capacity: "fifty" } } }),
    // @ts-expect-error: a preset id the union does not hold, with a config that would fit direct-claim.v1
    client.createMarket({ marketId: "table-7", principalId: "alice", subject: SUBJECT, mechanism: { presetId: "direct-claim.v2", config: direct.config } }),
    // @ts-expect-error: capacity is a number
    client.createMarket({ marketId: "table-7", principalId: "alice", subject: SUBJECT, mechanism: { presetId: "direct-claim.v1", config: { capacity: "fifty", pricing: { mode: "free" }, confirmation: "none" } } }),
    // @ts-expect-error: the auction's config under the direct-claim preset
    client.createMarket({ marketId: "table-7", principalId: "alice", subject: SUBJECT, mechanism: { presetId: "direct-claim.v1", config: auction.config } }),
    // @ts-expect-error: a confirmation other than "none" needs holdDurationSeconds
    client.createMarket({ marketId: "table-7", principalId: "alice", subject: SUBJECT, mechanism: { presetId: "direct-claim.v1", config: { capacity: 5, pricing: { mode: "free" }, confirmation: "creator" } } }),
  ];
  // Narrowed on presetId, the config is that preset's.
  const closesAt: string | undefined = selection.presetId === "sealed-forward-auction.v1" ? selection.config.closesAt : undefined;
  const confirmation: string | undefined = selection.presetId === "direct-claim.v1" ? selection.config.confirmation : undefined;
  // @ts-expect-error: without narrowing, the config may be the other preset's
  const capacity: number = selection.config.capacity;
  return [client.createMarket(body), client.createMarket({ ...body, commandId: "c2", mechanism: auction }), wrong, closesAt, confirmation, capacity];
}

/** Events: narrowed on `type` (and, on a stream, on the view), `data` is that type's. */
export async function events(client: MarketClient): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const { event } of client.subscribe("table-7", { after: 0 })) {
    if (event.type === "direct_claim.accepted") {
      seen.push(event.data.allocated, event.data.capacity);
      // @ts-expect-error: either view; the public one carries no commitment id
      seen.push(event.data.commitmentId);
    }
    if (isCreatorEvent(event)) {
      seen.push(event.commandId, event.principalId);
      if (event.type === "direct_claim.accepted") seen.push(event.data.commitmentId);
      if (event.type === "sealed_auction.resolved" && event.data.outcome === "winner_selected") seen.push(event.data.winnerPrincipalId, event.data.clearingPrice.amountMinor);
      if (event.type === "sealed_auction.bid_submitted") {
        // @ts-expect-error: no event carries a bid's amount, not even the creator's view
        seen.push(event.data.amountMinor);
      }
      // @ts-expect-error: no such member
      if (event.type === "direct_claim.accepted") seen.push(event.data.commitmentIdentifier);
    } else {
      // @ts-expect-error: the public view names no command
      seen.push(event.commandId);
      if (event.type === "sealed_auction.resolved") {
        if (event.data.outcome === "winner_selected") seen.push(event.data.winningBidId);
        // @ts-expect-error: the public view has no clearing price
        if (event.data.outcome === "winner_selected") seen.push(event.data.clearingPrice);
      }
      if (event.type === "commitment.declined") seen.push(event.data.state);
      // @ts-expect-error: a commitment's confirmation is never public, so the public view has no such type
      if (event.type === "commitment.confirmation_recorded") seen.push(event);
    }
  }
  // The record holds the creator's view.
  const record = await client.getMarketRecord("table-7");
  for (const event of record.events) {
    if (event.type === "market.draft_created" && event.data.mechanism.presetId === "direct-claim.v1") seen.push(event.data.mechanism.config.capacity);
    if (event.type === "commitment.awaiting_confirmations") seen.push(event.data.requiredConfirmationPrincipalIds);
    // @ts-expect-error: a published event's data has no capacity
    if (event.type === "market.published") seen.push(event.data.capacity);
  }
  return seen;
}

const ACCEPTED: CreatorMarketEvent = {
  sequence: 3,
  id: "e.dGFibGUtNw.3",
  type: "direct_claim.accepted",
  marketId: "table-7",
  marketVersion: 3,
  commandId: "claim-1",
  principalId: "bob",
  actorId: "bob",
  occurredAt: "2030-01-01T12:00:00.000Z",
  data: { commitmentId: "c.dGFibGUtNw.1", allocated: 1, capacity: 2 },
};

describe("the two views of an event", () => {
  it("isCreatorEvent tells the record's event from the public view the service builds of it", () => {
    const publicView: PublicMarketEvent | undefined = publicEventView(ACCEPTED);
    expect(publicView).toEqual({ sequence: 3, id: ACCEPTED.id, type: "direct_claim.accepted", marketId: "table-7", marketVersion: 3, occurredAt: ACCEPTED.occurredAt, data: { allocated: 1, capacity: 2 } });
    // As a subscriber gets them: JSON, parsed.
    const received = [ACCEPTED, publicView].map((event) => JSON.parse(JSON.stringify(event)) as MarketEventEnvelope);
    expect(received.map(isCreatorEvent)).toEqual([true, false]);
  });

  it("an event with nothing public has no public view", () => {
    const committed: CreatorMarketEvent = { ...ACCEPTED, type: "commitment.committed", data: { commitmentId: "c.dGFibGUtNw.1", state: "committed" } };
    expect(publicEventView(committed)).toBeUndefined();
  });
});
