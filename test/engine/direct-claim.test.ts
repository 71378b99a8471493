import { describe, expect, it } from "vitest";
import { isoFromMs, type DirectClaimState } from "../../engine/index.js";
import { Harness, SUBJECT, T0, actionResultOf, codeOf, directClaim } from "./harness.js";

function openMarket(config: Record<string, unknown>, marketId = "m1"): Harness {
  const h = new Harness();
  h.create("alice", marketId, directClaim(config));
  h.publish("alice", marketId, 1);
  return h;
}

const allocatedOf = (h: Harness, id = "m1") => (h.market(id).market.mechanismState as DirectClaimState).allocated;

describe("direct claim with confirmation none", () => {
  it("creates the commitment committed, with events direct_claim.accepted and commitment.committed", () => {
    const h = openMarket({ capacity: 2, pricing: { mode: "posted", amountMinor: 1500, currency: "EUR" }, confirmation: "none" });
    h.advance(5);
    const outcome = h.claim("bob", "m1");
    const result = actionResultOf(outcome);
    expect(result.events.map((e) => e.type)).toEqual(["direct_claim.accepted", "commitment.committed"]);
    expect(result.events[0]?.data).toEqual({ commitmentId: "c.bTE.1", allocated: 1, capacity: 2 });
    expect(result.commitments).toEqual([
      {
        id: "c.bTE.1",
        version: 1,
        marketId: "m1",
        marketVersion: 3,
        creatorPrincipalId: "alice",
        participantPrincipalId: "bob",
        state: "committed",
        terms: { subject: SUBJECT, pricing: { mode: "posted", amountMinor: 1500, currency: "EUR" } },
        requiredConfirmationPrincipalIds: [],
        confirmedPrincipalIds: [],
        createdAt: isoFromMs(T0 + 5),
        updatedAt: isoFromMs(T0 + 5),
      },
    ]);
    expect(result.market).toMatchObject({ version: 3, state: "open", mechanismState: { allocated: 1 } });
    expect(outcome.deadlines).toEqual([]);
  });

  it("closes the market when the last capacity is allocated, for capacity above one too", () => {
    const h = openMarket({ capacity: 3, pricing: { mode: "free" }, confirmation: "none" });
    h.claim("p1", "m1");
    h.claim("p2", "m1");
    expect(h.market("m1").market.state).toBe("open");
    h.claim("p3", "m1");
    expect(h.market("m1").market.state).toBe("closed");
    const refused = h.claim("p4", "m1");
    expect(codeOf(refused)).toBe("capacity_exhausted");
    expect(refused.recordSequence).toBe(6);
    expect(allocatedOf(h)).toBe(3);
  });

  it("closes a one-capacity market on its only claim (§3.1 row 3)", () => {
    const h = openMarket({ capacity: 1, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: 30 });
    const result = actionResultOf(h.claim("bob", "m1"));
    expect(result.market.state).toBe("closed");
    expect(result.commitments[0]?.state).toBe("awaiting_confirmations");
  });
});

describe("direct claim refusals", () => {
  it("refuses a missing market", () => {
    const h = new Harness();
    expect(codeOf(h.claim("bob", "ghost"))).toBe("market_not_found");
  });

  it("refuses a claim on a draft with invalid_market_transition", () => {
    const h = new Harness();
    h.create("alice", "m1", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" }));
    expect(codeOf(h.claim("bob", "m1"))).toBe("invalid_market_transition");
  });

  it("refuses the creator principal with principal_not_authorized", () => {
    const h = openMarket({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" });
    expect(codeOf(h.claim("alice", "m1"))).toBe("principal_not_authorized");
  });

  it("refuses a second active claim by the same principal", () => {
    const h = openMarket({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" });
    h.claim("bob", "m1");
    expect(codeOf(h.claim("bob", "m1"))).toBe("invalid_market_transition");
    expect(allocatedOf(h)).toBe(1);
  });

  it("refuses a claim in an auction market", () => {
    const h = new Harness();
    h.create("alice", "a1", { presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt: isoFromMs(T0 + 60_000), holdDurationSeconds: 5 } });
    h.publish("alice", "a1");
    expect(codeOf(h.claim("bob", "a1"))).toBe("invalid_market_transition");
  });

  it("orders by arrival for expectedVersion omitted or 0, checks any other value", () => {
    const h = openMarket({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" });
    expect(codeOf(h.claim("p1", "m1", 0))).toBe("accepted");
    expect(codeOf(h.claim("p2", "m1"))).toBe("accepted");
    expect(codeOf(h.claim("p3", "m1", 3))).toBe("version_conflict");
    expect(codeOf(h.claim("p3", "m1", 4))).toBe("accepted");
    expect(h.market("m1").market.version).toBe(5);
  });
});

describe("capacity returns after decline or expiry", () => {
  it("reopens a closed market when a commitment is declined and lets the principal claim again", () => {
    const h = openMarket({ capacity: 1, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: 60 });
    const commitmentId = actionResultOf(h.claim("bob", "m1")).commitments[0]!.id;
    expect(codeOf(h.claim("carol", "m1"))).toBe("capacity_exhausted");
    const declined = actionResultOf(h.decline("bob", commitmentId));
    expect(declined.events.map((e) => e.type)).toEqual(["commitment.declined"]);
    expect(declined.market).toMatchObject({ state: "open", mechanismState: { allocated: 0 }, version: 4 });
    expect(declined.commitments[0]).toMatchObject({ state: "declined", version: 2 });
    expect(codeOf(h.claim("bob", "m1"))).toBe("accepted");
  });

  it("expires an unconfirmed hold at expiresAt and returns capacity to the open market", () => {
    const h = openMarket({ capacity: 1, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: 60 });
    const claim = h.claim("bob", "m1");
    const commitment = actionResultOf(claim).commitments[0]!;
    expect(commitment.expiresAt).toBe(isoFromMs(T0 + 60_000));
    expect(claim.deadlines).toEqual([{ kind: "commitment_expiry", marketId: "m1", commitmentId: commitment.id, atMs: T0 + 60_000 }]);
    h.advance(59_999);
    expect(codeOf(h.expire(commitment.id))).toBe("invalid_commitment_transition");
    h.advance(1);
    const expired = actionResultOf(h.expire(commitment.id));
    expect(expired.events.map((e) => e.type)).toEqual(["commitment.expired"]);
    expect(expired.events[0]).toMatchObject({ principalId: "@system", actorId: "@system" });
    expect(expired.market).toMatchObject({ state: "open", mechanismState: { allocated: 0 } });
    expect(expired.commitments[0]).toMatchObject({ state: "expired", expiresAt: isoFromMs(T0 + 60_000) });
    expect(h.record("m1").commands.at(-1)).toMatchObject({ type: "commitment.expire", status: "accepted" });
  });
});
