/**
 * Durability across a restart (close + startService on the same DATA_DIR): identical retries of
 * accepted and rejected commands (market and identity) return the original bodies byte for byte,
 * tokens still authenticate, records hash the same, and pending deadlines (hold expiry, auction
 * close) still fire by the clock afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Credentials, generateKeyPair, type ServiceResponse } from "@market-service/client";
import {
  Harness,
  SUBJECT,
  auctionMechanism,
  commitmentIdOf,
  directClaimMechanism,
  expectStatus,
  recordHashOf,
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

interface Sent {
  path: string;
  body: unknown;
  credentials: () => Credentials;
  response: ServiceResponse;
}

describe("a restart", () => {
  it("keeps replies, tokens, records and deadlines", async () => {
    const sent: Sent[] = [];
    const send = async (path: string, body: unknown, credentials: () => Credentials): Promise<ServiceResponse> => {
      const response = await h.post(path, body, credentials());
      sent.push({ path, body, credentials, response });
      return response;
    };
    const as = (p: Principal) => () => p.auth;

    const direct = uid("direct");
    const auction = uid("auction");
    const closesAt = h.isoIn(600_000);
    expectStatus(await send("/v1/markets", { commandId: uid("c"), marketId: direct, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({ capacity: 1, confirmation: "participant", holdDurationSeconds: 300 }) }, as(alice)), 201);
    expectStatus(await send(`/v1/markets/${direct}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, as(alice)), 200);
    const claimed = await send(`/v1/markets/${direct}/direct-claims`, { commandId: uid("c"), principalId: "bob" }, as(bob));
    expectStatus(claimed, 200);
    expect((await send(`/v1/markets/${direct}/direct-claims`, { commandId: uid("c"), principalId: "carol" }, as(carol))).status).toBe(409);
    expect((await send(`/v1/markets/${direct}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, as(alice))).status).toBe(409);
    expect((await send("/v1/markets/nowhere/direct-claims", { commandId: uid("c"), principalId: "bob" }, as(bob))).status).toBe(404);
    expectStatus(await send("/v1/markets", { commandId: uid("c"), marketId: auction, principalId: "alice", subject: SUBJECT, mechanism: auctionMechanism({ closesAt, holdDurationSeconds: 60 }) }, as(alice)), 201);
    expectStatus(await send(`/v1/markets/${auction}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, as(alice)), 200);
    expectStatus(await send(`/v1/markets/${auction}/sealed-bids`, { commandId: uid("b"), principalId: "bob", amountMinor: 420, currency: "EUR" }, as(bob)), 200);
    expectStatus(await send(`/v1/markets/${auction}/sealed-bids`, { commandId: uid("b"), principalId: "carol", amountMinor: 300, currency: "EUR" }, as(carol)), 200);
    const delegationId = uid("del");
    expectStatus(await send("/v1/delegations", { commandId: uid("d"), delegationId, principalId: "alice", delegateActorId: "bob", scopes: ["market:create"] }, as(alice)), 201);
    expect((await send("/v1/delegations", { commandId: uid("d"), delegationId, principalId: "alice", delegateActorId: "carol", scopes: ["market:create"] }, as(alice))).status).toBe(409);
    expectStatus(await send("/v1/admin/identities", { commandId: uid("prov"), principalId: "hank", actorId: "hank", keyId: "hank-k", publicKey: generateKeyPair().publicKey }, () => h.operator()), 201);

    const recordBefore = await h.get(`/v1/markets/${direct}/record`, alice.auth);
    expectStatus(recordBefore, 200);
    h.clock.advance(3_000);

    await h.restart();

    expectStatus(await h.client.request("GET", "/healthz"), 200);
    for (const { path, body, credentials, response } of sent) {
      const retry = await h.post(path, body, credentials());
      expect({ path, status: retry.status, text: retry.text }).toEqual({ path, status: response.status, text: response.text });
    }
    const recordAfter = await h.get(`/v1/markets/${direct}/record`, alice.auth);
    expect(recordAfter.text).toBe(recordBefore.text);
    expect(recordAfter.body.integrity).toEqual({ algorithm: "sha256-canonical-json-v1", recordHash: recordHashOf(recordAfter.body), stateReconstructed: true });

    // The delegation issued before the restart is in force.
    expectStatus(await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "alice", authorityRef: delegationId, subject: SUBJECT, mechanism: directClaimMechanism({}) }, bob.auth), 201);

    // The hold (300 s from the claim) expires after the restart; capacity returns.
    h.advance(300_000);
    const expired = await h.get(`/v1/markets/${direct}`, alice.auth);
    expect(expired.body).toMatchObject({ state: "open", mechanismState: { allocated: 0 } });
    const carolClaim = await h.post(`/v1/markets/${direct}/direct-claims`, { commandId: uid("c"), principalId: "carol" }, carol.auth);
    expectStatus(carolClaim, 200);
    expect(carolClaim.body.commitments[0].id).toBe(commitmentIdOf(direct, 2));

    // The auction closes at closesAt after the restart.
    h.clock.set(Date.parse(closesAt));
    h.service.publishTime();
    const resolved = await h.get(`/v1/markets/${auction}/my-outcome`, bob.auth);
    expect(resolved.body.commitments).toEqual([expect.objectContaining({ state: "awaiting_confirmations", terms: expect.objectContaining({ pricing: { rule: "second_price", amountMinor: 300, currency: "EUR" } }) })]);
    expect(claimed.body.commitments[0].id).toBe(commitmentIdOf(direct, 1));
  });
  it("keeps free-form subject member names exactly, including \"__proto__\" (spec §2.1: data is any JSON object)", async () => {
    // A JSON member named "__proto__" is ordinary data (JSON.parse makes it an own property).
    const marketId = uid("proto");
    const text = `{"commandId":"${uid("c")}","marketId":"${marketId}","principalId":"alice","subject":{"schema":"s.v1","data":{"__proto__":{"polluted":true},"constructor":{"prototype":1}}},"mechanism":${JSON.stringify(directClaimMechanism({}))}}`;
    const created = await h.post("/v1/markets", text, alice.auth);
    expectStatus(created, 201);
    const sentData = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1}}');
    expect(Object.keys(created.body.market.subject.data)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();

    expectStatus(await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth), 200);
    const claimBody = { commandId: uid("c"), principalId: "bob" };
    const claimed = await h.post(`/v1/markets/${marketId}/direct-claims`, claimBody, bob.auth);
    expectStatus(claimed, 200);
    expect(Object.keys(claimed.body.commitments[0].terms.subject.data)).toEqual(["__proto__", "constructor"]);

    const before = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(before.body.market.subject.data).toEqual(sentData);
    expect(Object.keys(before.body.market.subject.data)).toEqual(["__proto__", "constructor"]);
    expect(before.body.integrity.stateReconstructed).toBe(true);

    await h.restart();
    const market = await h.get(`/v1/markets/${marketId}`, alice.auth);
    expect(Object.keys(market.body.subject.data)).toEqual(["__proto__", "constructor"]);
    const retry = await h.post("/v1/markets", text, alice.auth);
    expectStatus(retry, 201);
    expect(retry.text).toBe(created.text);
    const claimRetry = await h.post(`/v1/markets/${marketId}/direct-claims`, claimBody, bob.auth);
    expect(claimRetry.text).toBe(claimed.text);
    const outcome = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expect(Object.keys(outcome.body.commitments[0].terms.subject.data)).toEqual(["__proto__", "constructor"]);
    const after = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(after.text).toBe(before.text);
  });
});
