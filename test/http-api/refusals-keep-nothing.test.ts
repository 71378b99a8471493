/**
 * Refused requests leave nothing behind (issue 25 §5; bench:soak measures the same over minutes): a
 * flood of distinct bogus bearer tokens, unknown HMAC actors, challenges for actors nobody
 * provisioned, token requests for challenges nobody issued, unknown routes, bodies with unknown
 * members and conflicting retries changes none of what the service keeps per token, challenge,
 * command or metric label series. Read over HTTP, from the service's own gauges.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, directClaimMechanism, expectError, expectUnauthenticated, uid, type Principal } from "./support/harness.js";

let h: Harness;
let alice: Principal;
let bob: Principal;
let marketId: string;
let claim: { commandId: string; principalId: string };

beforeAll(async () => {
  h = await Harness.start();
  [alice, bob] = await h.principals("alice", "bob");
  marketId = uid("m");
  const create = { commandId: uid("c"), marketId, principalId: alice.id, subject: { schema: "s.v1", data: {} }, mechanism: directClaimMechanism({ capacity: 5 }) };
  expect((await h.post("/v1/markets", create, alice.auth)).status).toBe(201);
  expect((await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("c"), principalId: alice.id, expectedVersion: 1 }, alice.auth)).status).toBe(200);
  claim = { commandId: uid("c"), principalId: bob.id };
  expect((await h.post(`/v1/markets/${marketId}/direct-claims`, claim, bob.auth)).status).toBe(200);
});

afterAll(async () => {
  await h?.close();
});

const bogus = () => randomBytes(12).toString("base64url");

/** The gauges of what is kept, and the number of label series, from GET /metrics. */
async function kept(): Promise<{ challenges: number; tokens: number; idempotencyEntries: number; series: number }> {
  // /metrics is not public (decision T10): read with the operator's credential.
  const text = (await h.get("/metrics", h.operator())).text;
  const gauge = (name: string) => {
    const match = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
    if (match === null) throw new Error(`no ${name} in /metrics`);
    return Number(match[1]);
  };
  return {
    challenges: gauge("market_auth_challenges_outstanding"),
    tokens: gauge("market_auth_tokens_kept"),
    idempotencyEntries: gauge("market_idempotency_entries"),
    series: text.split("\n").filter((line) => line.startsWith("market_http_requests_total{")).length,
  };
}

async function flood(rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    expectUnauthenticated(await h.get(`/v1/markets/${marketId}`, { kind: "bearer", token: randomBytes(32).toString("base64url") }));
    expectUnauthenticated(await h.get(`/v1/markets/${marketId}`, h.hmac(`nobody-${bogus()}`, bogus())));
    expectUnauthenticated(await h.client.request("POST", "/v1/auth/challenges", { body: { actorId: `nobody-${bogus()}`, keyId: bogus() } }));
    expectUnauthenticated(await h.client.request("POST", "/v1/auth/tokens", { body: { challengeId: bogus(), nonce: bogus(), signature: randomBytes(64).toString("base64url") } }));
    expectError(await h.get(`/v1/${bogus()}/${bogus()}`, bob.auth), 404, "not_found");
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { ...claim, [`x${bogus()}`]: 1 }, bob.auth), 400, "invalid_request");
    // Same actor and commandId, other content.
    expectError(await h.post(`/v1/markets/${bogus()}/direct-claims`, claim, bob.auth), 409, "idempotency_conflict");
  }
}

describe("refused requests keep nothing", () => {
  it("leaves challenges, tokens, idempotency entries and metric series as they were", async () => {
    const before = await kept();
    await flood(60);
    const afterFirst = await kept();
    // The first flood may add one series per new (route, method, status); nothing else.
    expect({ ...afterFirst, series: 0 }).toEqual({ ...before, series: 0 });
    await flood(60);
    expect(await kept()).toEqual(afterFirst);
  });
});
