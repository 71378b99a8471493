/**
 * `MarketClient.subscribe` (issue 28, live events) against the real service: the client's own
 * credentials authorize the stream; the creator gets the record's events in order from `after: 0`,
 * another actor the public views; closing the subscription ends the iteration. A 401 on a
 * reconnection (a token the service's clock says has expired) is met as a command meets it: the
 * session signs in again and the subscription goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ed25519Session, generateKeyPair, MarketClient, MarketServiceError, type MarketStreamEvent, type MarketEventSubscription } from "@market-service/client";
import { Harness, START_MS } from "../http-api/support/harness.js";

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

describe("MarketClient.subscribe after a 401", () => {
  it("renews an Ed25519 session's token as commands do, and goes on without a gap", async () => {
    const short = await Harness.start({ env: { SHARDS: "1", AUTH_TOKEN_TTL: "600" } });
    try {
      const [creator, bob] = await short.principals("renew-creator", "renew-bob");
      // A fetch whose open streams the test can cut, so the subscription has to connect again.
      let cut = new AbortController();
      const cuttable: typeof fetch = (input, init) => {
        const signal = cut.signal;
        return fetch(input, { ...init, signal: init?.signal == null ? signal : AbortSignal.any([init.signal, signal]) });
      };
      // The client's clock stays at the start: by it the token never nears its expiry, so only the
      // service's 401 can tell the session to sign in again.
      const session = new Ed25519Session(creator.identity);
      const asCreator = new MarketClient({ baseUrl: short.url, credentials: session, clock: { nowMs: () => START_MS }, fetch: cuttable });
      await asCreator.createMarket({ marketId: "renew-1", principalId: "renew-creator", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT });
      await asCreator.publishMarket("renew-1", { principalId: "renew-creator", expectedVersion: 1 });
      const firstExpiry = session.expiresAtMs as number;

      const reconnects: string[] = [];
      const subscription = asCreator.subscribe("renew-1", { after: 0, sleep: async () => undefined, onReconnect: ({ reason }) => reconnects.push(reason) });
      const seen: string[] = [];
      const next = async (): Promise<void> => {
        const result = await subscription.next();
        if (result.done === true) throw new Error("the subscription ended");
        seen.push(`${result.value.sequence} ${result.value.event.type}`);
      };
      await next();
      await next();

      // The service's clock passes the token's expiry; the stream is cut; the reconnection meets a 401.
      short.advance(601_000);
      const old = cut;
      cut = new AbortController();
      old.abort();
      await new MarketClient({ baseUrl: short.url }).submitDirectClaim("renew-1", { principalId: "renew-bob" }, { credentials: await short.freshToken(bob) });
      await next();
      subscription.close();
      expect(seen).toEqual(["1 market.draft_created", "2 market.published", "3 direct_claim.accepted"]);
      expect(reconnects.filter((reason) => reason.startsWith("401 unauthenticated")), reconnects.join("\n")).toHaveLength(1);
      expect(session.expiresAtMs).toBeGreaterThan(firstExpiry);
    } finally {
      await short.close();
    }
  });
});

describe("MarketClient.subscribe when signing in fails", () => {
  it("ends with the sign-in's refusal (401 unauthenticated), not as a service out of reach retried", async () => {
    const [creator] = await h.principals("refused-creator");
    // The actor's own key id with another private key: the service refuses the challenge's signature.
    const stranger = { ...creator.identity, privateKey: generateKeyPair().privateKey };
    const client = new MarketClient({ baseUrl: h.url, credentials: new Ed25519Session(stranger) });
    const reconnects: string[] = [];
    const subscription = client.subscribe("sub-1", { after: 0, sleep: async () => undefined, onReconnect: ({ reason }) => reconnects.push(reason) });
    const error = await subscription.next().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(MarketServiceError);
    expect((error as MarketServiceError).code).toBe("unauthenticated");
    expect((error as MarketServiceError).status).toBe(401);
    expect(reconnects).toEqual([]);
  });

  it("rethrows what is not a MarketServiceError (a malformed private key is the caller's bug)", async () => {
    const [creator] = await h.principals("malformed-creator");
    const broken = { ...creator.identity, privateKey: "not a key" };
    const client = new MarketClient({ baseUrl: h.url, credentials: new Ed25519Session(broken) });
    const reconnects: string[] = [];
    const subscription = client.subscribe("sub-1", { after: 0, sleep: async () => undefined, onReconnect: ({ reason }) => reconnects.push(reason) });
    const error = await subscription.next().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(MarketServiceError);
    expect(reconnects).toEqual([]);
  });
});

describe("MarketClient.subscribe's options", () => {
  it("sends the call's headers with its credentials, as every other method does", async () => {
    const sent: Headers[] = [];
    const client = new MarketClient({
      baseUrl: "http://service.invalid",
      credentials: { kind: "bearer", token: "t-1" },
      fetch: async (_input, init) => {
        sent.push(new Headers(init?.headers));
        return new Response(JSON.stringify({ error: { code: "market_not_found", message: "no such market" } }), { status: 404, headers: { "content-type": "application/json" } });
      },
    });
    const subscription = client.subscribe("m-1", { headers: { "x-trace": "abc", authorization: "not this" } });
    await expect(subscription.next()).rejects.toMatchObject({ code: "market_not_found" });
    expect(sent.map((headers) => [headers.get("x-trace"), headers.get("authorization")])).toEqual([["abc", "Bearer t-1"]]);
  });

  it("the calls that never send credentials do not take them", () => {
    const client = new MarketClient({ baseUrl: "http://service.invalid" });
    const credentials = { kind: "bearer", token: "t" } as const;
    // Type checks only (nothing is called): each line fails to compile if the option comes back.
    const calls = [
      // @ts-expect-error health sends no credentials
      () => client.health({ credentials }),
      // @ts-expect-error auditKeys sends no credentials
      () => client.auditKeys({ credentials }),
      // @ts-expect-error createChallenge sends no credentials
      () => client.createChallenge({ actorId: "a", keyId: "k" }, { credentials }),
      // @ts-expect-error issueToken sends no credentials
      () => client.issueToken({ challengeId: "c", nonce: "n", signature: "s" }, { credentials }),
    ];
    expect(calls).toHaveLength(4);
  });
});
