/**
 * subscribeMarketEvents against a real server: refusals it cannot get past end it with a
 * MarketServiceError carrying the service's code (and its request id); a service out of reach is retried with a bounded
 * backoff (time injected: the delays are recorded, not slept) and then given up; `onEvent` mode.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, claim, directClaimMechanism, openMarket, uid, type Principal } from "../http-api/support/harness.js";
import { freePort } from "../../scripts/free-port.js";
import { MarketServiceError, subscribeMarketEvents, type MarketStreamEvent } from "@market-service/client";

let h: Harness;
let creator: Principal;

beforeAll(async () => {
  h = await Harness.start();
  creator = await h.principal("creator");
});

afterAll(async () => {
  await h.close();
});

describe("subscribeMarketEvents", () => {
  it("ends with MarketServiceError for 404 and 401, without retrying", async () => {
    const attempts: string[] = [];
    const missing = subscribeMarketEvents({ baseUrl: h.url, marketId: uid("nowhere"), headers: () => ({ authorization: `Bearer ${creator.auth.token}` }), onReconnect: (info) => attempts.push(info.reason) });
    await expect(missing.next()).rejects.toMatchObject({ name: "MarketServiceError", status: 404, code: "market_not_found", commandId: undefined, requestId: expect.any(String) });
    const marketId = uid("m");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 2 }));
    const anonymous = subscribeMarketEvents({ baseUrl: h.url, marketId, headers: () => ({}) });
    await expect(anonymous.next()).rejects.toMatchObject({ name: "MarketServiceError", status: 401, code: "unauthenticated" });
    expect(attempts).toEqual([]);
  });

  it("retries a service out of reach with a bounded, doubling delay, then gives up", async () => {
    const port = await freePort(); // nothing listens there
    const delays: number[] = [];
    const codes: string[] = [];
    const subscription = subscribeMarketEvents({
      baseUrl: `http://127.0.0.1:${port}`,
      marketId: "m",
      headers: () => ({}),
      backoff: { initialDelayMs: 100, maxDelayMs: 500, maxAttempts: 5 },
      sleep: async (ms) => {
        delays.push(ms);
      },
      onReconnect: (info) => codes.push(info.code),
    });
    await expect(subscription.next()).rejects.toMatchObject({ name: "MarketServiceError", code: "unreachable", status: 0, message: expect.stringContaining("gave up after 5 failed attempts in a row") });
    expect(delays).toEqual([100, 200, 400, 500, 500]);
    expect(codes).toEqual(["unreachable", "unreachable", "unreachable", "unreachable", "unreachable"]);
  });

  it("tells each reconnect's code, an end frame's included, and ends with a final end frame's code", async () => {
    const end = (event: string, code: string, message: string) => `event: ${event}\ndata: ${JSON.stringify({ code, message, resumeAfter: 0 })}\n\n`;
    // One stream per connection, each ended by the service with a reason; the last is final.
    const streams = [end("end", "shutting_down", "stopping"), end("overflow", "subscriber_too_slow", "slow"), end("end", "some_later_code", "?"), end("end", "market_not_found", "gone")];
    let served = 0;
    const codes: string[] = [];
    const subscription = subscribeMarketEvents({
      baseUrl: "http://service.invalid",
      marketId: "m",
      headers: () => ({}),
      fetch: async () => new Response(streams[served++] ?? "", { status: 200, headers: { "content-type": "text/event-stream" } }),
      sleep: async () => undefined,
      onReconnect: (info) => codes.push(info.code),
    });
    await expect(subscription.next()).rejects.toMatchObject({ name: "MarketServiceError", code: "market_not_found", status: 0, serviceMessage: "gone", commandId: undefined });
    expect(codes).toEqual(["shutting_down", "subscriber_too_slow", "unexpected_reply"]);
    expect(served).toBe(4);
  });

  it("calls onEvent for each event and stops when aborted", async () => {
    const marketId = uid("on-event");
    await openMarket(h, creator, marketId, directClaimMechanism({ capacity: 2 }));
    const seen: MarketStreamEvent[] = [];
    const control = new AbortController();
    let resolveTwo: () => void = () => undefined;
    const two = new Promise<void>((resolve) => (resolveTwo = resolve));
    const subscription = subscribeMarketEvents({
      baseUrl: h.url,
      marketId,
      after: 0,
      signal: control.signal,
      headers: () => ({ authorization: `Bearer ${creator.auth.token}` }),
      onEvent: (event) => {
        seen.push(event);
        if (seen.length === 4) resolveTwo();
      },
    });
    await claim(h, await h.principal(uid("p")), marketId);
    await two;
    control.abort();
    await subscription.finished;
    expect(seen.map((event) => event.event.type)).toEqual(["market.draft_created", "market.published", "direct_claim.accepted", "commitment.committed"]);
    expect(seen.map((event) => event.sequence)).toEqual([1, 2, 3, 4]);
  });
});
