/**
 * `direct-claim.v1` end to end over HTTP, for each confirmation mode (none, creator, participant,
 * both): claims, confirmations (partial under `both`), decline releasing capacity and reopening a
 * closed market (D2), hold expiry by the ManualClock (publishTime, no sleeping), capacity_exhausted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Harness,
  SUBJECT,
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
let alice: Principal; // creator of every market here
let bob: Principal;
let carol: Principal;
let dave: Principal;

beforeAll(async () => {
  h = await Harness.start();
  alice = await h.principal("alice");
  bob = await h.principal("bob");
  carol = await h.principal("carol");
  dave = await h.principal("dave");
});

afterAll(async () => {
  await h?.close();
});

const types = (events: Array<{ type: string }>): string[] => events.map((e) => e.type);

async function market(marketId: string): Promise<any> {
  const response = await h.get(`/v1/markets/${marketId}`, alice.auth);
  expectStatus(response, 200);
  return response.body;
}

describe("confirmation none", () => {
  it("commits at once; the last capacity closes the market (any capacity); then capacity_exhausted", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2, confirmation: "none", pricing: { mode: "posted", amountMinor: 2500, currency: "USD" } }));
    const first = await claim(h, bob, marketId);
    expect(first.commitments).toEqual([
      expect.objectContaining({
        id: commitmentIdOf(marketId, 1),
        state: "committed",
        participantPrincipalId: "bob",
        creatorPrincipalId: "alice",
        requiredConfirmationPrincipalIds: [],
        confirmedPrincipalIds: [],
        terms: { subject: SUBJECT, pricing: { mode: "posted", amountMinor: 2500, currency: "USD" } },
      }),
    ]);
    expect(first.commitments[0]).not.toHaveProperty("expiresAt");
    expect(types(first.events)).toEqual(["direct_claim.accepted", "commitment.committed"]);
    expect(first.market).toMatchObject({ state: "open", version: 3, mechanismState: { allocated: 1 } });

    const second = await claim(h, carol, marketId);
    expect(second.commitments[0]).toMatchObject({ id: commitmentIdOf(marketId, 2), state: "committed" });
    expect(second.market).toMatchObject({ state: "closed", version: 4, mechanismState: { allocated: 2 } });
    expect(second.events[0].data).toEqual({ commitmentId: commitmentIdOf(marketId, 2), allocated: 2, capacity: 2 });

    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "dave" }, dave.auth), 409, "capacity_exhausted");
    expect(await market(marketId)).toMatchObject({ state: "closed", version: 4, mechanismState: { allocated: 2 } });
  });

  it("a committed commitment cannot be declined by either party (409 invalid_commitment_transition, D5)", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "none" }));
    const id = (await claim(h, bob, marketId)).commitments[0].id;
    expectError(await commitmentAction(h, bob, id, "decline"), 409, "invalid_commitment_transition");
    expectError(await commitmentAction(h, alice, id, "decline"), 409, "invalid_commitment_transition");
    expect(await market(marketId)).toMatchObject({ state: "closed", mechanismState: { allocated: 1 } });
  });

  it("a committed commitment cannot be confirmed (D5: 409 invalid_commitment_transition)", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "none" }));
    const id = (await claim(h, bob, marketId)).commitments[0].id;
    // docs/decisions.md D5: "It can be neither confirmed nor declined afterwards (409
    // invalid_commitment_transition)".
    expectError(await commitmentAction(h, bob, id, "confirm"), 409, "invalid_commitment_transition");
  });
});

describe("confirmation creator", () => {
  it("awaits the creator only; the participant cannot confirm; the creator's confirmation commits", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "creator", holdDurationSeconds: 120 }));
    const claimed = await claim(h, bob, marketId);
    const id = claimed.commitments[0].id;
    expect(claimed.commitments[0]).toMatchObject({
      state: "awaiting_confirmations",
      version: 1,
      requiredConfirmationPrincipalIds: ["alice"],
      confirmedPrincipalIds: [],
      expiresAt: h.isoIn(120_000),
    });
    expect(types(claimed.events)).toEqual(["direct_claim.accepted", "commitment.awaiting_confirmations"]);
    // Capacity 1 is allocated while awaiting: the market closes.
    expect(claimed.market).toMatchObject({ state: "closed", version: 3, mechanismState: { allocated: 1 } });

    expectError(await commitmentAction(h, bob, id, "confirm"), 403, "principal_not_authorized");
    expectError(await commitmentAction(h, carol, id, "confirm"), 403, "principal_not_authorized");
    h.clock.advance(10_000);
    const confirmed = await commitmentAction(h, alice, id, "confirm");
    expectStatus(confirmed, 200);
    expect(confirmed.body.commitments).toEqual([
      expect.objectContaining({ id, state: "committed", version: 3, confirmedPrincipalIds: ["alice"], expiresAt: claimed.commitments[0].expiresAt, updatedAt: h.nowIso() }),
    ]);
    expect(types(confirmed.body.events)).toEqual(["commitment.confirmation_recorded", "commitment.committed"]);
    expect(confirmed.body.events[0].data).toMatchObject({ state: "awaiting_confirmations", confirmedPrincipalIds: ["alice"] });
    expect(confirmed.body.events[1].data).toMatchObject({ state: "committed", confirmedPrincipalIds: ["alice"] });
    // Confirming changes only the commitment (E1).
    expect(confirmed.body.market).toMatchObject({ version: 3, state: "closed" });
    expect(confirmed.body.market.updatedAt).toBe(claimed.market.updatedAt);
  });
});

describe("confirmation participant", () => {
  it("awaits the participant only; the creator cannot confirm", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 3, confirmation: "participant", holdDurationSeconds: 60 }));
    const claimed = await claim(h, bob, marketId);
    const id = claimed.commitments[0].id;
    expect(claimed.commitments[0]).toMatchObject({ requiredConfirmationPrincipalIds: ["bob"], state: "awaiting_confirmations" });
    expect(claimed.market.state).toBe("open");
    expectError(await commitmentAction(h, alice, id, "confirm"), 403, "principal_not_authorized");
    const confirmed = await commitmentAction(h, bob, id, "confirm");
    expectStatus(confirmed, 200);
    expect(confirmed.body.commitments[0]).toMatchObject({ state: "committed", confirmedPrincipalIds: ["bob"] });
    const outcome = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expect(outcome.body.commitments).toEqual([confirmed.body.commitments[0]]);
  });
});

describe("confirmation both", () => {
  it("a partial confirmation keeps awaiting_confirmations (D6); the second commits", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2, confirmation: "both", holdDurationSeconds: 300 }));
    const claimed = await claim(h, bob, marketId);
    const id = claimed.commitments[0].id;
    expect(claimed.commitments[0]).toMatchObject({ requiredConfirmationPrincipalIds: ["alice", "bob"], confirmedPrincipalIds: [] });

    const partial = await commitmentAction(h, bob, id, "confirm");
    expectStatus(partial, 200);
    expect(partial.body.commitments).toEqual([expect.objectContaining({ id, state: "awaiting_confirmations", version: 2, confirmedPrincipalIds: ["bob"] })]);
    expect(types(partial.body.events)).toEqual(["commitment.confirmation_recorded"]);
    expect(partial.body.events[0].data).toEqual({
      commitmentId: id,
      state: "awaiting_confirmations",
      requiredConfirmationPrincipalIds: ["alice", "bob"],
      confirmedPrincipalIds: ["bob"],
      expiresAt: claimed.commitments[0].expiresAt,
    });
    expectError(await commitmentAction(h, bob, id, "confirm"), 409, "invalid_commitment_transition");
    expectError(await commitmentAction(h, carol, id, "confirm"), 403, "principal_not_authorized");

    const complete = await commitmentAction(h, alice, id, "confirm");
    expectStatus(complete, 200);
    expect(complete.body.commitments).toEqual([expect.objectContaining({ id, state: "committed", version: 4, confirmedPrincipalIds: ["bob", "alice"] })]);
    expect(types(complete.body.events)).toEqual(["commitment.confirmation_recorded", "commitment.committed"]);
    expect(complete.body.market).toMatchObject({ version: 3, mechanismState: { allocated: 1 } });
  });
});

describe("decline", () => {
  it("releases capacity and reopens a closed market; either party may decline, nobody else", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "participant", holdDurationSeconds: 600 }));
    const bobs = await claim(h, bob, marketId);
    expect(bobs.market).toMatchObject({ state: "closed", version: 3 });
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "carol" }, carol.auth), 409, "capacity_exhausted");

    expectError(await commitmentAction(h, dave, bobs.commitments[0].id, "decline"), 403, "principal_not_authorized");
    const declined = await commitmentAction(h, bob, bobs.commitments[0].id, "decline");
    expectStatus(declined, 200);
    expect(declined.body.commitments).toEqual([expect.objectContaining({ state: "declined", version: 2 })]);
    expect(types(declined.body.events)).toEqual(["commitment.declined"]);
    expect(declined.body.market).toMatchObject({ state: "open", version: 4, mechanismState: { allocated: 0 } });
    expect(await market(marketId)).toMatchObject({ state: "open", version: 4, mechanismState: { allocated: 0 } });

    // The capacity is available again; the creator declines this one.
    const carols = await claim(h, carol, marketId);
    expect(carols.commitments[0]).toMatchObject({ id: commitmentIdOf(marketId, 2), state: "awaiting_confirmations" });
    expect(carols.market).toMatchObject({ state: "closed", mechanismState: { allocated: 1 } });
    const byCreator = await commitmentAction(h, alice, carols.commitments[0].id, "decline");
    expectStatus(byCreator, 200);
    expect(byCreator.body.market).toMatchObject({ state: "open", mechanismState: { allocated: 0 } });
    // A declined commitment does not count as active: bob may claim again (E3).
    const again = await claim(h, bob, marketId);
    expect(again.commitments[0]).toMatchObject({ id: commitmentIdOf(marketId, 3), participantPrincipalId: "bob" });
    expectError(await commitmentAction(h, bob, bobs.commitments[0].id, "decline"), 409, "invalid_commitment_transition");
  });
});

describe("hold expiry", () => {
  it("expires at expiresAt by the server clock, releases capacity, reopens the market, and is recorded as a system command", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "both", holdDurationSeconds: 30 }));
    const claimed = await claim(h, bob, marketId);
    const id = claimed.commitments[0].id;
    const expiresAt = claimed.commitments[0].expiresAt;
    expect(expiresAt).toBe(h.isoIn(30_000));
    expectStatus(await commitmentAction(h, bob, id, "confirm"), 200);

    h.advance(29_999);
    expect(await market(marketId)).toMatchObject({ state: "closed", mechanismState: { allocated: 1 } });
    h.advance(1);
    const after = await market(marketId);
    expect(after).toMatchObject({ state: "open", version: 4, mechanismState: { allocated: 0 }, updatedAt: expiresAt });

    const outcome = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expect(outcome.body.commitments).toEqual([expect.objectContaining({ id, state: "expired", confirmedPrincipalIds: ["bob"], expiresAt, updatedAt: expiresAt })]);
    expectError(await commitmentAction(h, alice, id, "confirm"), 409, "invalid_commitment_transition");
    expectError(await commitmentAction(h, bob, id, "decline"), 409, "invalid_commitment_transition");

    const record = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    const expire = record.body.commands.find((c: { type: string }) => c.type === "commitment.expire");
    expect(expire).toMatchObject({
      id: `expire:${id}`,
      identity: { principalId: "@system", actorId: "@system" },
      status: "accepted",
      occurredAt: expiresAt,
    });
    expect(record.body.events.filter((e: { type: string }) => e.type === "commitment.expired")).toEqual([
      expect.objectContaining({ marketVersion: 4, data: expect.objectContaining({ commitmentId: id, state: "expired" }) }),
    ]);

    // Capacity is back: carol claims.
    const carols = await claim(h, carol, marketId);
    expect(carols.commitments[0]).toMatchObject({ id: commitmentIdOf(marketId, 2), expiresAt: h.isoIn(30_000) });
  });

  it("refuses confirm and decline at expiresAt even when the expiry has not been published yet (E5)", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "participant", holdDurationSeconds: 5 }));
    const id = (await claim(h, bob, marketId)).commitments[0].id;
    h.clock.advance(5_000); // no publishTime: the command itself carries the time
    expectError(await commitmentAction(h, bob, id, "confirm"), 409, "invalid_commitment_transition");
    expectError(await commitmentAction(h, alice, id, "decline"), 409, "invalid_commitment_transition");
    h.service.publishTime();
    expect(await market(marketId)).toMatchObject({ state: "open", mechanismState: { allocated: 0 } });
  });

  it("a confirmed (committed) commitment does not expire", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1, confirmation: "participant", holdDurationSeconds: 5 }));
    const id = (await claim(h, bob, marketId)).commitments[0].id;
    expectStatus(await commitmentAction(h, bob, id, "confirm"), 200);
    h.advance(60_000);
    expect(await market(marketId)).toMatchObject({ state: "closed", version: 3, mechanismState: { allocated: 1 } });
    const outcome = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expect(outcome.body.commitments[0]).toMatchObject({ id, state: "committed" });
    const record = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(record.body.commands.map((c: { type: string }) => c.type)).not.toContain("commitment.expire");
  });
});

describe("claim rules", () => {
  it("one active commitment per principal; creator cannot claim; claims need an open market", async () => {
    const marketId = uid("m");
    const draft = await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({ capacity: 5 }) }, alice.auth);
    expectStatus(draft, 201);
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "bob" }, bob.auth), 409, "invalid_market_transition");
    expectStatus(await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth), 200);
    await claim(h, bob, marketId);
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "bob" }, bob.auth), 409, "invalid_market_transition");
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "alice" }, alice.auth), 403, "principal_not_authorized");
    // expectedVersion: 0 means arrival order; the current version is accepted; a stale one is not.
    await claim(h, carol, marketId, { expectedVersion: 0 });
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "dave", expectedVersion: 3 }, dave.auth), 409, "version_conflict");
    const current = (await market(marketId)).version;
    await claim(h, dave, marketId, { expectedVersion: current });
    expect(await market(marketId)).toMatchObject({ version: current + 1, mechanismState: { allocated: 3 } });
  });
});

describe("concurrent claims", () => {
  it("never allocate more than the capacity: exactly `capacity` succeed, the rest are capacity_exhausted", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 3, confirmation: "participant" }));
    const claimants = await h.principals("p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8");
    const replies = await Promise.all(claimants.map((p) => h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: p.id }, p.auth)));
    const won = replies.filter((r) => r.status === 200);
    expect(won).toHaveLength(3);
    expect(replies.filter((r) => r.status === 409 && r.body.error.code === "capacity_exhausted")).toHaveLength(5);
    expect(won.map((r) => r.body.commitments[0].id).sort()).toEqual([1, 2, 3].map((n) => commitmentIdOf(marketId, n)));
    expect(await market(marketId)).toMatchObject({ state: "closed", version: 5, mechanismState: { allocated: 3 } });
  });
});
