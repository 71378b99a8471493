/**
 * `MarketClient.subscribe` (issue 28, live events) against the real service: the client's own
 * credentials authorize the stream; the creator gets the record's events in order from `after: 0`,
 * another actor the public views; closing the subscription ends the iteration.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketClient, type MarketStreamEvent, type MarketEventSubscription } from "../../gateway/client/index.js";
import { Harness } from "../http-api/support/harness.js";

const DIRECT = { presetId: "direct-claim.v1", config: { capacity: 5, pricing: { mode: "free" }, confirmation: "none" } } as const;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ env: { SHARDS: "1" } });
});
afterAll(async () => {
  await h.close();
});

/** The next `count` events of `subscription`, bounded by a deadline on real events. */
async function take(subscription: MarketEventSubscription, count: number): Promise<MarketStreamEvent[]> {
  const events: MarketStreamEvent[] = [];
  const timer = setTimeout(() => subscription.close(), 15_000);
  try {
    for await (const event of subscription) {
      events.push(event);
      if (events.length === count) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return events;
}

describe("MarketClient.subscribe", () => {
  it("streams the market's events with the client's credentials: the record's for the creator, public views for others", async () => {
    const [creator, bob, carol] = await h.principals("sub-creator", "sub-bob", "sub-carol");
    const client = new MarketClient({ baseUrl: h.url });
    const asCreator = client.withCredentials(creator.auth);
    await asCreator.createMarket({ marketId: "sub-1", principalId: "sub-creator", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT });
    await asCreator.publishMarket("sub-1", { principalId: "sub-creator", expectedVersion: 1 });
    await client.submitDirectClaim("sub-1", { principalId: "sub-bob" }, { credentials: bob.auth });
    await client.submitDirectClaim("sub-1", { principalId: "sub-carol" }, { credentials: carol.auth });

    const record = await asCreator.getMarketRecord("sub-1");
    const full = await take(asCreator.subscribe("sub-1", { after: 0 }), record.events.length);
    expect(full.map((e) => e.sequence)).toEqual(record.events.map((e) => e.sequence));
    expect(full.map((e) => e.event)).toEqual(record.events);

    const seen = await take(client.subscribe("sub-1", { after: 0, credentials: bob.auth }), 4);
    expect(seen.map((e) => e.event.type)).toEqual(["market.draft_created", "market.published", "direct_claim.accepted", "direct_claim.accepted"]);
    expect(seen.map((e) => e.event.data)).toContainEqual({ allocated: 2, capacity: 5 });
    expect(JSON.stringify(seen)).not.toContain("sub-carol");
  });
});
