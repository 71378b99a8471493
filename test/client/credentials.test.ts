/**
 * Credentials of the client SDK against the real service (harness on a ManualClock that the client
 * shares, so time moves without waiting): an Ed25519 session gets a token on first use, reuses it,
 * renews it before it expires (and the service takes the new one), gets another once when the
 * service refuses a token it held; HMAC signs with the client's clock; a plain bearer token is sent
 * as is; a static MCP token is accepted on /mcp only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ed25519Session, errorGuards, MarketClient } from "@market-service/client";
import { Harness, OPERATOR_SECRET, STATIC_MCP_TOKEN, type Principal } from "../http-api/support/harness.js";

const TTL_SECONDS = 600;
let h: Harness;
let alice: Principal;

/** Counts the token grants the service gave this client: each one is a sign-in. */
function counting(): { fetch: typeof fetch; grants: () => number } {
  let grants = 0;
  return {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith("/v1/auth/tokens") && response.status === 201) grants += 1;
      return response;
    },
    grants: () => grants,
  };
}

beforeAll(async () => {
  h = await Harness.start({ env: { AUTH_TOKEN_TTL: String(TTL_SECONDS) } });
  [alice] = await h.principals("alice");
});
afterAll(() => h.close());

describe("Ed25519 session", () => {
  it("signs in on first use, reuses the token, and renews it before it expires", async () => {
    const observed = counting();
    const session = new Ed25519Session(alice.identity, { refreshBeforeMs: 60_000 });
    const client = new MarketClient({ baseUrl: h.url, fetch: observed.fetch, clock: h.clock, credentials: session });
    await client.createMarket({ marketId: "cred-m1", principalId: "alice", subject: { schema: "s.v1", data: {} }, mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } } });
    expect(observed.grants()).toBe(1);
    const firstExpiry = session.expiresAtMs;
    expect(firstExpiry).toBe(h.clock.nowMs() + TTL_SECONDS * 1000);
    await client.getMarket("cred-m1");
    expect(observed.grants()).toBe(1);

    // 8 minutes on: 2 minutes left, more than the 1-minute margin: the same token.
    h.advance(8 * 60_000);
    await client.getMarket("cred-m1");
    expect(observed.grants()).toBe(1);

    // 9.5 minutes on: 30 s left, inside the margin: a new token before the old one lapses.
    h.advance(90_000);
    const market = await client.getMarket("cred-m1");
    expect(market.id).toBe("cred-m1");
    expect(observed.grants()).toBe(2);
    expect(session.expiresAtMs).toBe(h.clock.nowMs() + TTL_SECONDS * 1000);

    // Long after the first token's expiry the renewed one is still taken.
    h.advance(5 * 60_000);
    expect((await client.getMarket("cred-m1")).id).toBe("cred-m1");
    expect(observed.grants()).toBe(2);
  });

  it("without the margin the token would have lapsed: the service refuses it, and the session gets another once", async () => {
    const observed = counting();
    const session = new Ed25519Session(alice.identity, { refreshBeforeMs: 0 });
    // The client's clock runs behind the service's: it believes its token is still good.
    let lagMs = 0;
    const client = new MarketClient({ baseUrl: h.url, fetch: observed.fetch, clock: { nowMs: () => h.clock.nowMs() - lagMs }, credentials: session });
    await client.getMarket("cred-m1");
    expect(observed.grants()).toBe(1);
    lagMs = 60_000;
    h.advance(TTL_SECONDS * 1000 + 1_000);
    // The typed call meets the 401 with the old token, drops it, signs in again and succeeds.
    expect((await client.getMarket("cred-m1")).id).toBe("cred-m1");
    expect(observed.grants()).toBe(2);
  });

  it("concurrent requests share one sign-in", async () => {
    const observed = counting();
    const client = new MarketClient({ baseUrl: h.url, fetch: observed.fetch, clock: h.clock, credentials: new Ed25519Session(alice.identity) });
    const markets = await Promise.all(Array.from({ length: 8 }, () => client.getMarket("cred-m1")));
    expect(markets.every((market) => market.id === "cred-m1")).toBe(true);
    expect(observed.grants()).toBe(1);
  });

  it("a session of an unknown key fails with the service's unauthenticated", async () => {
    const client = new MarketClient({ baseUrl: h.url, clock: h.clock, credentials: new Ed25519Session({ ...alice.identity, keyId: "no-such-key" }) });
    const error = await client.getMarket("cred-m1").catch((thrown: unknown) => thrown);
    expect(errorGuards.unauthenticated(error)).toBe(true);
  });
});

describe("HMAC, bearer and static MCP tokens", () => {
  it("signs service-hmac-v1 with the client's clock; a stale clock is refused", async () => {
    const operator = new MarketClient({ baseUrl: h.url, clock: h.clock, credentials: { kind: "hmac", actorId: "operator", secret: OPERATOR_SECRET } });
    const identity = await operator.provisionNewIdentity({ principalId: "hmac-made" });
    expect(identity.principalId).toBe("hmac-made");
    const stale = new MarketClient({ baseUrl: h.url, clock: { nowMs: () => h.clock.nowMs() - 3_600_000 }, credentials: { kind: "hmac", actorId: "operator", secret: OPERATOR_SECRET } });
    const error = await stale.provisionNewIdentity({ principalId: "hmac-stale" }).catch((thrown: unknown) => thrown);
    expect(errorGuards.unauthenticated(error)).toBe(true);
  });

  it("sends a bearer token as is; a static MCP token is taken on /mcp only", async () => {
    const bearer = new MarketClient({ baseUrl: h.url, credentials: await h.freshToken(alice) });
    expect((await bearer.getMarket("cred-m1")).id).toBe("cred-m1");
    const mcp = new MarketClient({ baseUrl: h.url, credentials: { kind: "bearer", token: STATIC_MCP_TOKEN } });
    const refused = await mcp.getMarket("cred-m1").catch((thrown: unknown) => thrown);
    expect(errorGuards.unauthenticated(refused)).toBe(true);
    const initialize = await mcp.request("POST", "/mcp", { body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sdk-test", version: "0" } } }, credentials: { kind: "bearer", token: STATIC_MCP_TOKEN }, headers: { accept: "application/json, text/event-stream" } });
    expect(initialize.status).toBe(200);
  });
});
