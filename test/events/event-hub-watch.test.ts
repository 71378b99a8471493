/**
 * The event hub's watch of a market (gateway/events/event-hub.ts), against a scripted `Markets`:
 * a watch that fails (a cluster node whose owner is not reachable yet answers 503) leaves nothing
 * behind, so the next subscriber watches afresh. Found in a cluster test: after an owner's
 * failover a stream's first resume met a watch refused while the new owner was subscribing, and
 * every later resume got that same refusal until the client gave up.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EventHub } from "../../gateway/events/event-hub.js";
import type { Markets } from "../../engine/runtime/markets.js";
import { errorReply, okReply, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";
import { UnavailableError } from "../../engine/runtime/unavailable.js";

type HubMarkets = Pick<Markets, "listenForEvents" | "watchMarket" | "readRecord">;

/** A Markets whose watches answer as `answers` says, in order; every watch call is counted. */
function scriptedMarkets(answers: Array<() => Promise<ShardReply>>): HubMarkets & { watches: boolean[] } {
  const watches: boolean[] = [];
  return {
    watches,
    listenForEvents: () => undefined,
    readRecord: () => Promise.resolve(okReply(JSON.stringify({ events: [] }))),
    watchMarket: (_marketId, watching) => {
      watches.push(watching);
      if (!watching) return Promise.resolve(okReply("{}"));
      const next = answers.shift();
      if (next === undefined) throw new Error("no more scripted watch answers");
      return next();
    },
  };
}

const watched = () => Promise.resolve(okReply(JSON.stringify({ lastSequence: 3, creator: { principalId: "p-creator", actorId: "a-creator" } })));
const refused = () => Promise.reject(new UnavailableError("partition 2 has no owner right now (it is changing hands); retry shortly"));

let hub: EventHub | undefined;
afterEach(() => hub?.close());

function hubOver(markets: HubMarkets): EventHub {
  hub = new EventHub(markets, { keepAliveMs: 60_000, subscriberBufferBytes: 1 << 20, log: () => undefined });
  return hub;
}

describe("the event hub's watch of a market", () => {
  it("watches afresh for the next subscriber after a watch that failed", async () => {
    const markets = scriptedMarkets([refused, watched]);
    const events = hubOver(markets);
    await expect(events.subscribe("m-1", "a-someone", 0)).rejects.toThrow(/no owner right now/);
    const second = await events.subscribe("m-1", "a-someone", 0);
    expect(second.status).toBe(200);
    expect(markets.watches).toEqual([true, true]);
  });

  it("watches afresh after a failure that several subscribers waited on together", async () => {
    const markets = scriptedMarkets([refused, watched]);
    const events = hubOver(markets);
    const together = await Promise.allSettled([events.subscribe("m-1", "a-one", 0), events.subscribe("m-1", "a-two", 0)]);
    expect(together.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    expect((await events.subscribe("m-1", "a-three", 0)).status).toBe(200);
    expect(markets.watches).toEqual([true, true]);
  });

  it("watches afresh after a watch answered with an error reply", async () => {
    const markets = scriptedMarkets([() => Promise.resolve(errorReply("not_found", "market m-1 does not exist")), watched]);
    const events = hubOver(markets);
    expect((await events.subscribe("m-1", "a-someone", 0)).status).toBe(404);
    expect((await events.subscribe("m-1", "a-someone", 0)).status).toBe(200);
    expect(markets.watches).toEqual([true, true]);
  });
});
