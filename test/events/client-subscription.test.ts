/**
 * subscribeMarketEvents against a real server: refusals it cannot get past end it with a
 * MarketServiceError carrying the service's code (and its request id); a service out of reach is retried with a bounded
 * backoff (time injected: the delays are recorded, not slept) and then given up; `onEvent` mode.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, claim, directClaimMechanism, openMarket, uid, type Principal } from "../http-api/support/harness.js";
import { freePort } from "../../scripts/free-port.js";
import { MarketServiceError, subscribeMarketEvents, type MarketStreamEvent, type StreamEndFrameData } from "@market-service/client";

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

  it("tells each reconnect's code, an end frame's included; every end frame resumes, and a refusal on reconnecting ends it", async () => {
    const end = (event: string, data: StreamEndFrameData | { code: string; message: string; resumeAfter: number }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    // One stream per connection, each ended by the service with a reason; then the market is gone (404).
    // A code no end frame carries (a later service's, or a refusal's) is a reason to resume too.
    const streams = [
      end("end", { code: "shutting_down", message: "stopping", resumeAfter: 0 }),
      end("overflow", { code: "subscriber_too_slow", message: "slow", resumeAfter: 0 }),
      end("end", { code: "some_later_code", message: "?", resumeAfter: 0 }),
      end("end", { code: "market_not_found", message: "gone", resumeAfter: 0 }),
    ];
    let served = 0;
    const codes: string[] = [];
    const reasons: string[] = [];
    const subscription = subscribeMarketEvents({
      baseUrl: "http://service.invalid",
      marketId: "m",
      headers: () => ({}),
      fetch: async () => {
        const stream = streams[served++];
        if (stream === undefined) return new Response(JSON.stringify({ error: { code: "market_not_found", message: "no such market" } }), { status: 404, headers: { "content-type": "application/json" } });
        return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
      },
      sleep: async () => undefined,
      onReconnect: (info) => {
        codes.push(info.code);
        reasons.push(info.reason);
      },
    });
    await expect(subscription.next()).rejects.toMatchObject({ name: "MarketServiceError", code: "market_not_found", status: 404, commandId: undefined });
    expect(codes).toEqual(["shutting_down", "subscriber_too_slow", "unexpected_reply", "unexpected_reply"]);
    expect(reasons).toEqual(["shutting_down: stopping", "subscriber_too_slow: slow", "some_later_code: ?", "market_not_found: gone"]);
    expect(served).toBe(5);
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
