/**
 * Spec §4.1/§4.2: every endpoint's success path with its exact status and the key fields of its
 * body, against a real service.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base64UrlDecode } from "@market-service/client/wire";
import { generateKeyPair, signSigningPayload } from "@market-service/client";
import {
  BASE64URL,
  Harness,
  ISO_MS,
  SUBJECT,
  auctionMechanism,
  bidIdOf,
  claim,
  commitmentAction,
  commitmentIdOf,
  directClaimMechanism,
  expectError,
  expectStatus,
  openMarket,
  uid,
  type Principal,
} from "./support/harness.js";

let h: Harness;
let alice: Principal;
let bob: Principal;
let carol: Principal;

beforeAll(async () => {
  h = await Harness.start();
  alice = await h.principal("alice");
  bob = await h.principal("bob");
  carol = await h.principal("carol");
});

afterAll(async () => {
  await h?.close();
});

describe("GET /healthz", () => {
  it("is 200 {status: ok} without authentication", async () => {
    const response = await h.client.request("GET", "/healthz");
    expectStatus(response, 200);
    expect(response.body).toEqual({ status: "ok" });
  });

  it("is 405 method_not_allowed for POST, with an allow header", async () => {
    const response = await h.client.request("POST", "/healthz", { body: {} });
    expectError(response, 405, "method_not_allowed");
    expect(response.headers.get("allow")).toContain("GET");
  });
});

describe("POST /v1/auth/challenges and /v1/auth/tokens", () => {
  it("creates a challenge (201) whose signing payload binds audience, challenge, actor, key, nonce and expiry", async () => {
    const response = await h.client.request("POST", "/v1/auth/challenges", { body: { actorId: "alice", keyId: "alice-key-1" } });
    expectStatus(response, 201);
    const challenge = response.body;
    expect(Object.keys(challenge).sort()).toEqual(["actorId", "audience", "expiresAt", "id", "keyId", "nonce", "signingPayload"]);
    expect(challenge).toMatchObject({ actorId: "alice", keyId: "alice-key-1", audience: "market-service", expiresAt: h.isoIn(120_000) });
    expect(challenge.id).toMatch(BASE64URL);
    expect(challenge.nonce).toMatch(BASE64URL);
    expect(challenge.signingPayload).toMatch(BASE64URL);
    const payload = new TextDecoder().decode(base64UrlDecode(challenge.signingPayload));
    expect(payload.split("\n")).toEqual(["market-service-auth-v1", "market-service", challenge.id, "alice", "alice-key-1", challenge.nonce, challenge.expiresAt]);
  });

  it("issues a bearer token (201) for a signed challenge; the token authenticates", async () => {
    const challenge = (await h.client.request("POST", "/v1/auth/challenges", { body: { actorId: "bob", keyId: "bob-key-1" } })).body;
    const signature = signSigningPayload(challenge.signingPayload, bob.identity.privateKey);
    const response = await h.client.request("POST", "/v1/auth/tokens", { body: { challengeId: challenge.id, nonce: challenge.nonce, signature } });
    expectStatus(response, 201);
    expect(Object.keys(response.body).sort()).toEqual(["accessToken", "actorId", "expiresAt", "tokenType"]);
    expect(response.body).toMatchObject({ tokenType: "Bearer", actorId: "bob", expiresAt: h.isoIn(86_400_000) });
    expect(response.body.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Authenticated: an unknown market is a 404, not a 401.
    const read = await h.get("/v1/markets/no-such-market", { kind: "bearer", token: response.body.accessToken });
    expectError(read, 404, "market_not_found");
  });
});

describe("POST /v1/admin/identities", () => {
  it("provisions principal, actor and key (201) and replays an identical command with 201 and the same body", async () => {
    const keys = generateKeyPair();
    const body = { commandId: uid("prov"), principalId: "dora", actorId: "dora-actor", keyId: "dora-key", publicKey: keys.publicKey };
    const first = await h.post("/v1/admin/identities", body, h.operator());
    expectStatus(first, 201);
    const createdAt = h.nowIso();
    expect(first.body).toEqual({
      principal: { id: "dora", createdAt },
      actor: { id: "dora-actor", createdAt },
      key: { id: "dora-key", actorId: "dora-actor", algorithm: "Ed25519", publicKey: keys.publicKey, createdAt },
    });
    h.clock.advance(5_000);
    const replay = await h.post("/v1/admin/identities", body, h.operator());
    expectStatus(replay, 201);
    expect(replay.text).toBe(first.text);
    // Same content under a new command id: accepted without change, original createdAt (docs/auth.md).
    const again = await h.post("/v1/admin/identities", { ...body, commandId: uid("prov") }, h.operator());
    expectStatus(again, 201);
    expect(again.body).toEqual(first.body);
    // The provisioned actor can authenticate with its key.
    const challenge = (await h.client.request("POST", "/v1/auth/challenges", { body: { actorId: "dora-actor", keyId: "dora-key" } })).body;
    const grant = await h.client.request("POST", "/v1/auth/tokens", { body: { challengeId: challenge.id, nonce: challenge.nonce, signature: signSigningPayload(challenge.signingPayload, keys.privateKey) } });
    expectStatus(grant, 201);
    expect(grant.body.actorId).toBe("dora-actor");
  });
});

describe("POST /v1/delegations and /revoke", () => {
  it("issues a delegation (201) with validFrom = server time and a normalized validUntil; revoke is 200 with revokedAt", async () => {
    const delegationId = uid("del");
    const issued = await h.post(
      "/v1/delegations",
      { commandId: uid("d"), delegationId, principalId: "alice", delegateActorId: "bob", scopes: ["market:create", "market:publish"], validUntil: "2026-05-02T12:00:00+02:00" },
      alice.auth,
    );
    expectStatus(issued, 201);
    expect(issued.body).toEqual({
      id: delegationId,
      principalId: "alice",
      actorId: "bob",
      scopes: ["market:create", "market:publish"],
      validFrom: h.nowIso(),
      validUntil: "2026-05-02T10:00:00.000Z",
    });
    h.clock.advance(1_000);
    const revoked = await h.post(`/v1/delegations/${delegationId}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth);
    expectStatus(revoked, 200);
    expect(revoked.body).toEqual({ ...issued.body, revokedAt: h.nowIso() });
  });
});

describe("market endpoints", () => {
  it("POST /v1/markets creates a draft (201): version 1, creator, normalized config, market.draft_created", async () => {
    const marketId = uid("m");
    const response = await h.post(
      "/v1/markets",
      { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({ capacity: 3, confirmation: "none", holdDurationSeconds: 0 }) },
      alice.auth,
    );
    expectStatus(response, 201);
    const { market, events } = response.body;
    expect(Object.keys(response.body).sort()).toEqual(["events", "market"]);
    expect(market).toEqual({
      id: marketId,
      version: 1,
      state: "draft",
      creator: { principalId: "alice", actorId: "alice" },
      subject: SUBJECT,
      // holdDurationSeconds: 0 with confirmation none is removed by normalization (§2.4)
      mechanism: { presetId: "direct-claim.v1", config: { capacity: 3, pricing: { mode: "free" }, confirmation: "none" } },
      mechanismState: { allocated: 0 },
      createdAt: h.nowIso(),
      updatedAt: h.nowIso(),
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "market.draft_created",
      marketId,
      marketVersion: 1,
      principalId: "alice",
      actorId: "alice",
      occurredAt: h.nowIso(),
      data: { creator: { principalId: "alice", actorId: "alice" }, subject: SUBJECT, mechanism: market.mechanism, mechanismState: { allocated: 0 } },
    });
    expect(events[0].id).toEqual(expect.any(String));
  });

  it("normalizes an auction's closesAt to UTC milliseconds", async () => {
    const marketId = uid("m");
    const response = await h.post(
      "/v1/markets",
      { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: auctionMechanism({ closesAt: "2026-05-01T14:00:00+02:00", reserveAmountMinor: 10, holdDurationSeconds: 30 }) },
      alice.auth,
    );
    expectStatus(response, 201);
    expect(response.body.market.mechanism).toEqual({
      presetId: "sealed-forward-auction.v1",
      config: { currency: "EUR", reserveAmountMinor: 10, closesAt: "2026-05-01T12:00:00.000Z", holdDurationSeconds: 30 },
    });
    expect(response.body.market.mechanismState).toEqual({ bidCount: 0 });
  });

  it("publish is 200: version 2, open, market.published {previousState: draft, state: open}", async () => {
    const marketId = uid("m");
    await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth);
    const response = await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth);
    expectStatus(response, 200);
    expect(response.body.market).toMatchObject({ id: marketId, version: 2, state: "open" });
    expect(response.body.events).toEqual([
      expect.objectContaining({ type: "market.published", marketId, marketVersion: 2, data: { previousState: "draft", state: "open" } }),
    ]);
  });

  it("direct-claims is 200 with a MarketActionResult holding the new commitment", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2, confirmation: "participant", holdDurationSeconds: 90, pricing: { mode: "posted", amountMinor: 1500, currency: "EUR" } }));
    const result = await claim(h, bob, marketId);
    expect(Object.keys(result).sort()).toEqual(["commitments", "events", "market"]);
    expect(result.market).toMatchObject({ id: marketId, version: 3, state: "open", mechanismState: { allocated: 1 } });
    expect(result.commitments).toEqual([
      {
        id: commitmentIdOf(marketId, 1),
        version: 1,
        marketId,
        marketVersion: 3,
        creatorPrincipalId: "alice",
        participantPrincipalId: "bob",
        state: "awaiting_confirmations",
        terms: { subject: SUBJECT, pricing: { mode: "posted", amountMinor: 1500, currency: "EUR" } },
        requiredConfirmationPrincipalIds: ["bob"],
        confirmedPrincipalIds: [],
        expiresAt: h.isoIn(90_000),
        createdAt: h.nowIso(),
        updatedAt: h.nowIso(),
      },
    ]);
    expect(result.events.map((e: { type: string }) => e.type)).toEqual(["direct_claim.accepted", "commitment.awaiting_confirmations"]);
    expect(result.events[0].data).toEqual({ commitmentId: commitmentIdOf(marketId, 1), allocated: 1, capacity: 2 });
  });

  it("confirm is 200 and decline is 200", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2, confirmation: "participant" }));
    const first = (await claim(h, bob, marketId)).commitments[0].id;
    const second = (await claim(h, carol, marketId)).commitments[0].id;
    const confirmed = await commitmentAction(h, bob, first, "confirm");
    expectStatus(confirmed, 200);
    expect(confirmed.body.commitments).toEqual([expect.objectContaining({ id: first, state: "committed", confirmedPrincipalIds: ["bob"] })]);
    const declined = await commitmentAction(h, carol, second, "decline");
    expectStatus(declined, 200);
    expect(declined.body.commitments).toEqual([expect.objectContaining({ id: second, state: "declined" })]);
    expect(declined.body.market.mechanismState).toEqual({ allocated: 1 });
  });

  it("sealed-bids is 200 with an amount-free bid receipt", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, auctionMechanism({ closesAt: h.isoIn(3_600_000) }));
    const response = await h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId: uid("b"), principalId: "bob", amountMinor: 987_654_321, currency: "EUR" }, bob.auth);
    expectStatus(response, 200);
    expect(response.body.bidReceipts).toEqual([{ bidId: bidIdOf(marketId, 1), marketId, marketVersion: 3, state: "active", submittedAt: h.nowIso() }]);
    expect(response.body.commitments).toEqual([]);
    expect(response.body.market.mechanismState).toEqual({ bidCount: 1 });
    expect(response.body.events).toEqual([expect.objectContaining({ type: "sealed_auction.bid_submitted", data: { bidId: bidIdOf(marketId, 1), bidCount: 1 } })]);
    expect(response.text).not.toContain("987654321");
    expect(response.text).not.toContain("amountMinor");
  });

  it("GET /v1/markets/{id} is 200 for any authenticated actor", async () => {
    const marketId = uid("m");
    const published = await openMarket(h, alice, marketId, directClaimMechanism({}));
    for (const who of [alice, bob, carol]) {
      const response = await h.get(`/v1/markets/${marketId}`, who.auth);
      expectStatus(response, 200);
      expect(response.body).toEqual(published.market);
    }
    const viaHmac = await h.get(`/v1/markets/${marketId}`, h.operator());
    expectStatus(viaHmac, 200);
    expect(viaHmac.body.id).toBe(marketId);
  });

  it("GET /v1/markets/{id}/record is 200 for the creator only", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({}));
    const response = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expectStatus(response, 200);
    expect(Object.keys(response.body).sort()).toEqual(["commands", "commitments", "events", "integrity", "market"]);
    expect(response.body.commands.map((c: { type: string }) => c.type)).toEqual(["market.create_draft", "market.publish"]);
    expect(response.body.integrity).toMatchObject({ algorithm: "sha256-canonical-json-v1", stateReconstructed: true });
    expect(response.body.integrity.recordHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expectError(await h.get(`/v1/markets/${marketId}/record`, bob.auth), 403, "forbidden");
  });

  it("GET /v1/markets/{id}/my-outcome shows the caller's own commitments and receipts, nobody else's", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2 }));
    const bobs = (await claim(h, bob, marketId)).commitments[0];
    const carols = (await claim(h, carol, marketId)).commitments[0];
    const mine = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expectStatus(mine, 200);
    expect(mine.body).toEqual({ marketId, principalId: "bob", bidReceipts: [], commitments: [bobs] });
    // The creator is a party of both.
    const creators = await h.get(`/v1/markets/${marketId}/my-outcome`, alice.auth);
    expect(creators.body.commitments.map((c: { id: string }) => c.id)).toEqual([bobs.id, carols.id]);
    expectError(await h.get(`/v1/markets/no-such-market/my-outcome`, bob.auth), 404, "market_not_found");
  });

  it("ISO timestamps in replies are RFC 3339 UTC with milliseconds", async () => {
    const marketId = uid("m");
    const published = await openMarket(h, alice, marketId, directClaimMechanism({}));
    expect(published.market.createdAt).toMatch(ISO_MS);
    expect(published.events[0].occurredAt).toMatch(ISO_MS);
  });
});
