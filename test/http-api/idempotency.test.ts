/**
 * Spec §4 "Commands carry commandId" and docs/decisions.md T9: an identical retry returns the
 * original reply byte for byte with the success status; other content under the same (actor,
 * commandId) is 409 idempotency_conflict, across endpoints and markets; a rejected command's retry
 * returns the same rejection. (Retries across a restart: restart.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair, type ServiceResponse } from "@market-service/client";
import {
  Harness,
  SUBJECT,
  auctionMechanism,
  claim,
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

/** Sends twice (the clock moves in between, so a re-execution would differ); both must be identical. */
async function twice(send: () => Promise<ServiceResponse>, status: number): Promise<ServiceResponse> {
  const first = await send();
  expectStatus(first, status);
  h.clock.advance(7_000);
  const second = await send();
  expectStatus(second, status);
  expect(second.text).toBe(first.text);
  return first;
}

describe("identical retries", () => {
  it("replay every command endpoint's reply byte for byte with its success status", async () => {
    const marketId = uid("m");
    const create = { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({ capacity: 2, confirmation: "participant" }) };
    await twice(() => h.post("/v1/markets", create, alice.auth), 201);
    const publish = { commandId: uid("p"), principalId: "alice", expectedVersion: 1 };
    await twice(() => h.post(`/v1/markets/${marketId}/publish`, publish, alice.auth), 200);
    const claimBody = { commandId: uid("c"), principalId: "bob" };
    const claimed = await twice(() => h.post(`/v1/markets/${marketId}/direct-claims`, claimBody, bob.auth), 200);
    const carolClaim = { commandId: uid("c"), principalId: "carol" };
    const carols = await twice(() => h.post(`/v1/markets/${marketId}/direct-claims`, carolClaim, carol.auth), 200);
    const confirm = { commandId: uid("x"), principalId: "bob" };
    await twice(() => h.post(`/v1/commitments/${claimed.body.commitments[0].id}/confirm`, confirm, bob.auth), 200);
    const decline = { commandId: uid("x"), principalId: "carol" };
    await twice(() => h.post(`/v1/commitments/${carols.body.commitments[0].id}/decline`, decline, carol.auth), 200);

    // The retries changed nothing: two claims, one committed, one declined.
    const market = await h.get(`/v1/markets/${marketId}`, alice.auth);
    expect(market.body).toMatchObject({ version: 5, mechanismState: { allocated: 1 } });
    const record = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(record.body.commands).toHaveLength(6);

    const auctionId = uid("m");
    await openMarket(h, alice, auctionId, auctionMechanism({ closesAt: h.isoIn(3_600_000) }));
    const bid = { commandId: uid("b"), principalId: "bob", amountMinor: 77, currency: "EUR" };
    await twice(() => h.post(`/v1/markets/${auctionId}/sealed-bids`, bid, bob.auth), 200);
    expect((await h.get(`/v1/markets/${auctionId}`, bob.auth)).body.mechanismState).toEqual({ bidCount: 1 });
  });

  it("replay identity commands (admin, delegation, revoke) the same way", async () => {
    const provision = { commandId: uid("prov"), principalId: "gina", actorId: "gina", keyId: "gina-k", publicKey: generateKeyPair().publicKey };
    await twice(() => h.post("/v1/admin/identities", provision, h.operator()), 201);
    const delegationId = uid("del");
    const issue = { commandId: uid("d"), delegationId, principalId: "alice", delegateActorId: "gina", scopes: ["market:claim"] };
    await twice(() => h.post("/v1/delegations", issue, alice.auth), 201);
    const revoke = { commandId: uid("r"), principalId: "alice" };
    await twice(() => h.post(`/v1/delegations/${delegationId}/revoke`, revoke, alice.auth), 200);
  });

  it("treat reordered members and whitespace as the same content (T9)", async () => {
    const marketId = uid("m");
    const body = { commandId: uid("c"), marketId, principalId: "alice", subject: { schema: "s.v1", data: { a: 1, b: [1, 2] } }, mechanism: directClaimMechanism({ capacity: 4 }) };
    const first = await h.post("/v1/markets", body, alice.auth);
    expectStatus(first, 201);
    const reordered = `{ "mechanism": ${JSON.stringify(body.mechanism, null, 1)},\n "subject": {"data": {"b": [1, 2], "a": 1}, "schema": "s.v1"}, "principalId": "alice", "marketId": "${marketId}", "commandId": "${body.commandId}" }`;
    const again = await h.post("/v1/markets", reordered, alice.auth);
    expectStatus(again, 201);
    expect(again.text).toBe(first.text);
  });
});

describe("idempotency_conflict", () => {
  it("the same commandId with other content on the same endpoint", async () => {
    const marketId = uid("m");
    const body = { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) };
    expectStatus(await h.post("/v1/markets", body, alice.auth), 201);
    expectError(await h.post("/v1/markets", { ...body, mechanism: directClaimMechanism({ capacity: 2 }) }, alice.auth), 409, "idempotency_conflict");
    expectError(await h.post("/v1/markets", { ...body, marketId: uid("m") }, alice.auth), 409, "idempotency_conflict");
    // The original is intact.
    expect((await h.get(`/v1/markets/${marketId}`, alice.auth)).body.mechanism.config.capacity).toBe(1);
  });

  it("an omitted expectedVersion and an explicit 0 are different content (T9)", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 3 }));
    const commandId = uid("c");
    expectStatus(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId, principalId: "bob" }, bob.auth), 200);
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId, principalId: "bob", expectedVersion: 0 }, bob.auth), 409, "idempotency_conflict");
  });

  it("the same (actor, commandId) on another endpoint or another market", async () => {
    const m1 = uid("m");
    const m2 = uid("m");
    await openMarket(h, alice, m2, directClaimMechanism({ capacity: 3 }));
    const shared = uid("shared");
    expectStatus(await h.post("/v1/markets", { commandId: shared, marketId: m1, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth), 201);
    expectError(await h.post(`/v1/markets/${m1}/publish`, { commandId: shared, principalId: "alice", expectedVersion: 1 }, alice.auth), 409, "idempotency_conflict");
    expectError(await h.post(`/v1/markets/${m2}/publish`, { commandId: shared, principalId: "alice", expectedVersion: 1 }, alice.auth), 409, "idempotency_conflict");
    expectError(await h.post("/v1/delegations", { commandId: shared, delegationId: uid("del"), principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, alice.auth), 409, "idempotency_conflict");

    // bob: a claim's commandId reused for a claim in another market, and a delegation's for a claim.
    const claimId = uid("c");
    expectStatus(await h.post(`/v1/markets/${m2}/direct-claims`, { commandId: claimId, principalId: "bob" }, bob.auth), 200);
    const m3 = uid("m");
    await openMarket(h, alice, m3, directClaimMechanism({ capacity: 3 }));
    expectError(await h.post(`/v1/markets/${m3}/direct-claims`, { commandId: claimId, principalId: "bob" }, bob.auth), 409, "idempotency_conflict");
    const delegationCommand = uid("d");
    expectStatus(await h.post("/v1/delegations", { commandId: delegationCommand, delegationId: uid("del"), principalId: "bob", delegateActorId: "carol", scopes: ["market:claim"] }, bob.auth), 201);
    expectError(await h.post(`/v1/markets/${m3}/direct-claims`, { commandId: delegationCommand, principalId: "bob" }, bob.auth), 409, "idempotency_conflict");
    // Nothing happened in m3.
    expect((await h.get(`/v1/markets/${m3}`, bob.auth)).body.mechanismState).toEqual({ allocated: 0 });
  });

  it("is scoped per actor: another actor may use the same commandId", async () => {
    const commandId = uid("same");
    const a = await h.post("/v1/markets", { commandId, marketId: uid("m"), principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth);
    const b = await h.post("/v1/markets", { commandId, marketId: uid("m"), principalId: "bob", subject: SUBJECT, mechanism: directClaimMechanism({}) }, bob.auth);
    expectStatus(a, 201);
    expectStatus(b, 201);
    expect(b.body.market.id).not.toBe(a.body.market.id);
  });
});

describe("rejected commands", () => {
  it("a retry returns the same rejection, even after the state that caused it changed", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "participant" }));
    const bobs = await claim(h, bob, marketId);
    const rejected = { commandId: uid("c"), principalId: "carol" };
    const first = await h.post(`/v1/markets/${marketId}/direct-claims`, rejected, carol.auth);
    expectError(first, 409, "capacity_exhausted");
    // Capacity returns...
    expectStatus(await h.post(`/v1/commitments/${bobs.commitments[0].id}/decline`, { commandId: uid("x"), principalId: "bob" }, bob.auth), 200);
    // ...but the retry is the recorded decision, not a new one.
    const retry = await h.post(`/v1/markets/${marketId}/direct-claims`, rejected, carol.auth);
    expectError(retry, 409, "capacity_exhausted");
    expect(retry.text).toBe(first.text);
    expect((await h.get(`/v1/markets/${marketId}`, carol.auth)).body.mechanismState).toEqual({ allocated: 0 });
    // A new commandId is a new decision.
    await claim(h, carol, marketId);
  });

  it("authority rejections and rejections outside any market are replayed too", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 3 }));
    const cite = { commandId: uid("c"), principalId: "carol", authorityRef: "later-delegation" };
    const first = await h.post(`/v1/markets/${marketId}/direct-claims`, cite, bob.auth);
    expectError(first, 403, "delegation_not_found");
    // The delegation now exists, the retry still gets the recorded refusal.
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: "later-delegation", principalId: "carol", delegateActorId: "bob", scopes: ["market:claim"] }, carol.auth), 201);
    const retry = await h.post(`/v1/markets/${marketId}/direct-claims`, cite, bob.auth);
    expect(retry.status).toBe(403);
    expect(retry.text).toBe(first.text);

    const ghost = { commandId: uid("c"), principalId: "bob" };
    const missing = await h.post("/v1/markets/ghost-market/direct-claims", ghost, bob.auth);
    expectError(missing, 404, "market_not_found");
    await openMarket(h, alice, "ghost-market", directClaimMechanism({}));
    const missingRetry = await h.post("/v1/markets/ghost-market/direct-claims", ghost, bob.auth);
    expect(missingRetry.status).toBe(404);
    expect(missingRetry.text).toBe(missing.text);

    const revokeMissing = { commandId: uid("r"), principalId: "alice" };
    const notFound = await h.post("/v1/delegations/not-yet/revoke", revokeMissing, alice.auth);
    expectError(notFound, 404, "delegation_not_found");
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: "not-yet", principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, alice.auth), 201);
    const notFoundRetry = await h.post("/v1/delegations/not-yet/revoke", revokeMissing, alice.auth);
    expect(notFoundRetry.status).toBe(404);
    expect(notFoundRetry.text).toBe(notFound.text);
  });

  it("a body refused by validation (400) does not consume the commandId", async () => {
    const commandId = uid("c");
    const marketId = uid("m");
    expectError(await h.post("/v1/markets", { commandId, marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}), extra: 1 }, alice.auth), 400, "invalid_request");
    expectStatus(await h.post("/v1/markets", { commandId, marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth), 201);
  });
});

describe("concurrent and later retries", () => {
  it("identical commands in flight together get one decision and identical replies", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 5 }));
    const body = { commandId: uid("same"), principalId: "bob" };
    const replies = await Promise.all(Array.from({ length: 8 }, () => h.post(`/v1/markets/${marketId}/direct-claims`, body, bob.auth)));
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    // Different content under one commandId at once: one wins, the rest conflict.
    const commandId = uid("race");
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => h.post(`/v1/markets/${marketId}/direct-claims`, { commandId, principalId: "carol", ...(i === 0 ? {} : { expectedVersion: 0 }) }, carol.auth)),
    );
    expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
    expect(racing.filter((r) => r.status === 409 && r.body.error.code === "idempotency_conflict")).toHaveLength(5);
    expect((await h.get(`/v1/markets/${marketId}`, alice.auth)).body.mechanismState).toEqual({ allocated: 2 });

    const delegation = { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "bob", scopes: ["market:create"] };
    const issued = await Promise.all(Array.from({ length: 6 }, () => h.post("/v1/delegations", delegation, alice.auth)));
    expect(issued.map((r) => r.status)).toEqual(Array.from({ length: 6 }, () => 201));
    expect(new Set(issued.map((r) => r.text)).size).toBe(1);
  });

  it("a command accepted through a delegation replays its success after the delegation is revoked", async () => {
    const delegationId = uid("del");
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId, principalId: "alice", delegateActorId: "bob", scopes: ["market:create"] }, alice.auth), 201);
    const body = { commandId: uid("c"), marketId: uid("m"), principalId: "alice", authorityRef: delegationId, subject: SUBJECT, mechanism: directClaimMechanism({}) };
    const first = await h.post("/v1/markets", body, bob.auth);
    expectStatus(first, 201);
    expectStatus(await h.post(`/v1/delegations/${delegationId}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 200);
    const retry = await h.post("/v1/markets", body, bob.auth);
    expectStatus(retry, 201);
    expect(retry.text).toBe(first.text);
    // A new command with the revoked delegation is refused.
    expectError(await h.post("/v1/markets", { ...body, commandId: uid("c"), marketId: uid("m") }, bob.auth), 403, "delegation_inactive");
  });
});
