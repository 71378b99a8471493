/**
 * Spec §5.5 and docs/auth.md "Authority": an actor acting for another principal through a
 * persisted, scoped delegation; scope checks per operation; revocation and expiry; the record's
 * identity {principalId, actorId, authorityRef}; reading a principal's outcome as its delegate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Harness,
  SUBJECT,
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

async function delegate(principal: Principal, delegateActorId: string, scopes: string[], validUntil?: string): Promise<string> {
  const delegationId = uid(`del-${principal.id}-${delegateActorId}`);
  const response = await h.post(
    "/v1/delegations",
    { commandId: uid("d"), delegationId, principalId: principal.id, delegateActorId, scopes, ...(validUntil === undefined ? {} : { validUntil }) },
    principal.auth,
  );
  expectStatus(response, 201);
  return delegationId;
}

describe("acting through a delegation", () => {
  it("a delegate with the right scopes creates and publishes for the principal; market, events and record carry the identity", async () => {
    const ref = await delegate(alice, "bob", ["market:create", "market:publish"]);
    const marketId = uid("m");
    const created = await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", authorityRef: ref, subject: SUBJECT, mechanism: directClaimMechanism({}) }, bob.auth);
    expectStatus(created, 201);
    const identity = { principalId: "alice", actorId: "bob", authorityRef: ref };
    expect(created.body.market.creator).toEqual(identity);
    expect(created.body.events[0]).toMatchObject(identity);
    const published = await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", authorityRef: ref, expectedVersion: 1 }, bob.auth);
    expectStatus(published, 200);
    expect(published.body.events[0]).toMatchObject({ type: "market.published", ...identity });

    // The principal and the creating actor may both read the record; a third actor may not.
    for (const reader of [alice, bob]) {
      const record = await h.get(`/v1/markets/${marketId}/record`, reader.auth);
      expectStatus(record, 200);
      expect(record.body.commands.map((c: { identity: unknown }) => c.identity)).toEqual([identity, identity]);
      expect(record.body.commands[0].request).toMatchObject({ principalId: "alice", actorId: "bob", authorityRef: ref });
    }
    expectError(await h.get(`/v1/markets/${marketId}/record`, carol.auth), 403, "forbidden");
  });

  it("a scope the delegation lacks is actor_not_authorized, and the refusal is recorded in the market's record", async () => {
    const ref = await delegate(alice, "bob", ["market:create"]);
    const marketId = uid("m");
    expectStatus(await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", authorityRef: ref, subject: SUBJECT, mechanism: directClaimMechanism({}) }, bob.auth), 201);
    const commandId = uid("p");
    expectError(await h.post(`/v1/markets/${marketId}/publish`, { commandId, principalId: "alice", authorityRef: ref, expectedVersion: 1 }, bob.auth), 403, "actor_not_authorized");
    const record = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(record.body.market).toMatchObject({ state: "draft", version: 1 });
    expect(record.body.commands[1]).toMatchObject({
      id: commandId,
      type: "market.publish",
      status: "rejected",
      rejectionCode: "actor_not_authorized",
      identity: { principalId: "alice", actorId: "bob", authorityRef: ref },
    });
    // credential:issue grants nothing in v1.
    const onlyCredential = await delegate(alice, "bob", ["credential:issue"]);
    expectError(await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "alice", authorityRef: onlyCredential, subject: SUBJECT, mechanism: directClaimMechanism({}) }, bob.auth), 403, "actor_not_authorized");
  });

  it("a revoked delegation is delegation_inactive from the revocation on", async () => {
    const ref = await delegate(alice, "bob", ["market:create"]);
    const body = () => ({ commandId: uid("c"), marketId: uid("m"), principalId: "alice", authorityRef: ref, subject: SUBJECT, mechanism: directClaimMechanism({}) });
    expectStatus(await h.post("/v1/markets", body(), bob.auth), 201);
    expectStatus(await h.post(`/v1/delegations/${ref}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 200);
    expectError(await h.post("/v1/markets", body(), bob.auth), 403, "delegation_inactive");
  });

  it("a delegation with validUntil stops at that instant of the server clock", async () => {
    const ref = await delegate(alice, "bob", ["market:create"], h.isoIn(3_600_000));
    const body = () => ({ commandId: uid("c"), marketId: uid("m"), principalId: "alice", authorityRef: ref, subject: SUBJECT, mechanism: directClaimMechanism({}) });
    h.advance(3_599_999);
    expectStatus(await h.post("/v1/markets", body(), bob.auth), 201);
    h.advance(1);
    expectError(await h.post("/v1/markets", body(), bob.auth), 403, "delegation_inactive");
  });

  it("a participant's delegate claims, confirms only with commitment:confirm, and reads the participant's outcome", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2, confirmation: "participant", holdDurationSeconds: 600 }));
    const claimRef = await delegate(carol, "bob", ["market:claim"]);
    const claimed = await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "carol", authorityRef: claimRef }, bob.auth);
    expectStatus(claimed, 200);
    const commitment = claimed.body.commitments[0];
    expect(commitment).toMatchObject({ participantPrincipalId: "carol", requiredConfirmationPrincipalIds: ["carol"] });

    expectError(await h.post(`/v1/commitments/${commitment.id}/confirm`, { commandId: uid("x"), principalId: "carol", authorityRef: claimRef }, bob.auth), 403, "actor_not_authorized");
    const confirmRef = await delegate(carol, "bob", ["commitment:confirm"]);
    const confirmed = await h.post(`/v1/commitments/${commitment.id}/confirm`, { commandId: uid("x"), principalId: "carol", authorityRef: confirmRef }, bob.auth);
    expectStatus(confirmed, 200);
    expect(confirmed.body.commitments[0]).toMatchObject({ state: "committed", confirmedPrincipalIds: ["carol"] });

    // bob reads carol's outcome through any market-scoped delegation, not his own view.
    const outcome = await h.get(`/v1/markets/${marketId}/my-outcome?principalId=carol&authorityRef=${claimRef}`, bob.auth);
    expectStatus(outcome, 200);
    expect(outcome.body).toMatchObject({ marketId, principalId: "carol", bidReceipts: [] });
    expect(outcome.body.commitments).toEqual([expect.objectContaining({ id: commitment.id, state: "committed" })]);
    const own = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expect(own.body).toEqual({ marketId, principalId: "bob", bidReceipts: [], commitments: [] });
  });

  it("reading another principal's outcome needs a valid delegation", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({}));
    const base = `/v1/markets/${marketId}/my-outcome`;
    expectError(await h.get(`${base}?principalId=carol`, bob.auth), 403, "authority_reference_required");
    const credentialOnly = await delegate(carol, "bob", ["credential:issue"]);
    expectError(await h.get(`${base}?principalId=carol&authorityRef=${credentialOnly}`, bob.auth), 403, "actor_not_authorized");
    const ref = await delegate(carol, "bob", ["market:bid"]);
    expectError(await h.get(`${base}?principalId=carol&authorityRef=${ref}`, alice.auth), 403, "actor_not_authorized");
    expectError(await h.get(`${base}?principalId=alice&authorityRef=${ref}`, bob.auth), 403, "principal_not_authorized");
    expectStatus(await h.get(`${base}?principalId=carol&authorityRef=${ref}`, bob.auth), 200);
    expectStatus(await h.post(`/v1/delegations/${ref}/revoke`, { commandId: uid("r"), principalId: "carol" }, carol.auth), 200);
    expectError(await h.get(`${base}?principalId=carol&authorityRef=${ref}`, bob.auth), 403, "delegation_inactive");
    expectError(await h.get(`${base}?principalId=carol&principalId=bob`, bob.auth), 400, "invalid_request");
    expectError(await h.get(`${base}?principalId=`, bob.auth), 400, "invalid_request");
  });
});

describe("delegation management", () => {
  it("cannot be delegated: a delegate holding every scope still cannot issue or revoke for the principal", async () => {
    const all = ["market:create", "market:publish", "market:claim", "market:bid", "commitment:confirm", "commitment:decline", "credential:issue"];
    const ref = await delegate(alice, "bob", all);
    expectError(
      await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", authorityRef: ref, delegateActorId: "carol", scopes: ["market:claim"] }, bob.auth),
      400,
      "invalid_request",
    );
    expectError(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "carol", scopes: ["market:claim"] }, bob.auth), 403, "forbidden");
    expectError(await h.post(`/v1/delegations/${ref}/revoke`, { commandId: uid("r"), principalId: "alice" }, bob.auth), 403, "forbidden");
  });

  it("an actor whose id differs from its principal's has no authority for that principal without a delegation", async () => {
    const bot = await h.principal("acme", "acme-bot");
    const response = await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "acme", subject: SUBJECT, mechanism: directClaimMechanism({}) }, bot.auth);
    expectError(response, 403, "authority_reference_required");
    expectError(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "acme", delegateActorId: "acme-bot", scopes: ["market:create"] }, bot.auth), 403, "forbidden");
    // As itself (principal = actor id) it acts without any identity record for that principal.
    expectStatus(await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "acme-bot", subject: SUBJECT, mechanism: directClaimMechanism({}) }, bot.auth), 201);
  });

  it("returns scopes in the canonical AUTHORITY_SCOPES order; a retry with reordered scopes is the same command", async () => {
    const delegationId = uid("del");
    const body = { commandId: uid("d"), delegationId, principalId: "bob", delegateActorId: "carol", scopes: ["commitment:decline", "market:bid"] };
    const response = await h.post("/v1/delegations", body, bob.auth);
    expectStatus(response, 201);
    expect(response.body.scopes).toEqual(["market:bid", "commitment:decline"]);
    expect(response.body).not.toHaveProperty("validUntil");
    expect(response.body).not.toHaveProperty("revokedAt");
    const retry = await h.post("/v1/delegations", { ...body, scopes: ["market:bid", "commitment:decline"] }, bob.auth);
    expectStatus(retry, 201);
    expect(retry.text).toBe(response.text);
  });

  it("refuses a delegation to the principal itself (400 invalid_command)", async () => {
    expectError(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "bob", delegateActorId: "bob", scopes: ["market:bid"] }, bob.auth), 400, "invalid_command");
  });
});
