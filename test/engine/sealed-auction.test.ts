import { describe, expect, it } from "vitest";
import { commitmentsOf, isoFromMs, type SealedAuctionState } from "../../engine/index.js";
import { Harness, SUBJECT, T0, actionResultOf, auction, codeOf } from "./harness.js";

const CLOSES_MS = T0 + 3_600_000;

function openAuction(config: Record<string, unknown> = {}): Harness {
  const h = new Harness();
  h.create("alice", "a1", auction({ currency: "EUR", closesAt: isoFromMs(CLOSES_MS), holdDurationSeconds: 120, ...config }));
  h.publish("alice", "a1");
  return h;
}

const stateOf = (h: Harness) => h.market("a1").market.mechanismState as SealedAuctionState;

function closeAuction(h: Harness) {
  h.nowMs = CLOSES_MS;
  return actionResultOf(h.resolve("a1"));
}

describe("sealed bids", () => {
  it("accepts one private bid per principal with an amount-free receipt and event", () => {
    const h = openAuction();
    h.advance(1_000);
    const outcome = h.bid("bob", "a1", 5_000);
    const result = actionResultOf(outcome);
    expect(result.bidReceipts).toEqual([
      { bidId: "b.YTE.1", marketId: "a1", marketVersion: 3, state: "active", submittedAt: isoFromMs(T0 + 1_000) },
    ]);
    expect(result.events).toHaveLength(1);
    expect(result.events[0]).toMatchObject({ type: "sealed_auction.bid_submitted", data: { bidId: "b.YTE.1", bidCount: 1 } });
    expect(result.market.mechanismState).toEqual({ bidCount: 1 });
    expect(result.commitments).toEqual([]);
    expect(JSON.stringify(result)).not.toContain("5000");
    expect(JSON.stringify(outcome.events)).not.toContain("5000");
  });

  it("refuses a second bid by the same principal (no replacement)", () => {
    const h = openAuction();
    h.bid("bob", "a1", 100);
    expect(codeOf(h.bid("bob", "a1", 900))).toBe("invalid_market_transition");
    expect(stateOf(h).bidCount).toBe(1);
  });

  it("refuses the creator, a draft, a missing market, a currency mismatch and a bid at closesAt", () => {
    const h = openAuction();
    expect(codeOf(h.bid("alice", "a1", 100))).toBe("principal_not_authorized");
    expect(codeOf(h.bid("bob", "ghost", 100))).toBe("market_not_found");
    expect(codeOf(h.bid("bob", "a1", 100, "USD"))).toBe("invalid_command");
    h.create("alice", "a2", auction({ currency: "EUR", closesAt: isoFromMs(CLOSES_MS), holdDurationSeconds: 1 }));
    expect(codeOf(h.bid("bob", "a2", 100))).toBe("invalid_market_transition");
    h.nowMs = CLOSES_MS;
    expect(codeOf(h.bid("bob", "a1", 100))).toBe("invalid_market_transition");
    expect(stateOf(h).bidCount).toBe(0);
  });

  it("accepts a bid below the reserve but never lets it win", () => {
    const h = openAuction({ reserveAmountMinor: 1_000 });
    expect(codeOf(h.bid("bob", "a1", 999))).toBe("accepted");
    const resolved = closeAuction(h);
    expect(resolved.auctionResolution).toEqual({ outcome: "no_trade" });
    expect(resolved.market).toMatchObject({ state: "closed", mechanismState: { bidCount: 1, resolution: "no_trade" } });
    expect(resolved.commitments).toEqual([]);
  });
});

describe("resolution at closesAt (§3.1 row 4, decision 4)", () => {
  it("selects the highest bid at the second price and creates the winner's commitment", () => {
    const h = openAuction();
    h.bid("bob", "a1", 700);
    h.bid("carol", "a1", 900);
    h.bid("dave", "a1", 800);
    const resolved = closeAuction(h);
    expect(resolved.auctionResolution).toEqual({
      outcome: "winner_selected",
      winningBidId: "b.YTE.2",
      winnerPrincipalId: "carol",
      clearingPrice: { rule: "second_price", amountMinor: 800, currency: "EUR" },
    });
    expect(resolved.events.map((e) => e.type)).toEqual(["sealed_auction.resolved", "commitment.awaiting_confirmations"]);
    expect(resolved.market).toMatchObject({
      state: "closed",
      mechanismState: { bidCount: 3, resolution: "winner_selected", winningBidId: "b.YTE.2" },
    });
    expect(resolved.commitments[0]).toMatchObject({
      participantPrincipalId: "carol",
      creatorPrincipalId: "alice",
      state: "awaiting_confirmations",
      requiredConfirmationPrincipalIds: ["carol"],
      expiresAt: isoFromMs(CLOSES_MS + 120_000),
      terms: { subject: SUBJECT, winningBidId: "b.YTE.2", pricing: { rule: "second_price", amountMinor: 800, currency: "EUR" } },
    });
  });

  it("breaks ties by earlier acceptance", () => {
    const h = openAuction();
    h.bid("bob", "a1", 500);
    h.bid("carol", "a1", 500);
    expect(closeAuction(h).auctionResolution).toMatchObject({ winnerPrincipalId: "bob", clearingPrice: { amountMinor: 500 } });
  });

  it("charges the reserve when it is above the second bid, and for a sole bidder", () => {
    const withSecond = openAuction({ reserveAmountMinor: 600 });
    withSecond.bid("bob", "a1", 1_000);
    withSecond.bid("carol", "a1", 650);
    expect(closeAuction(withSecond).auctionResolution).toMatchObject({ clearingPrice: { amountMinor: 650 } });

    const sole = openAuction({ reserveAmountMinor: 600 });
    sole.bid("bob", "a1", 1_000);
    sole.bid("carol", "a1", 10); // below reserve: ineligible
    expect(closeAuction(sole).auctionResolution).toMatchObject({ winnerPrincipalId: "bob", clearingPrice: { amountMinor: 600 } });
  });

  it("charges zero for a sole bidder without a reserve", () => {
    const h = openAuction();
    h.bid("bob", "a1", 1_000);
    expect(closeAuction(h).auctionResolution).toMatchObject({ clearingPrice: { rule: "second_price", amountMinor: 0, currency: "EUR" } });
  });

  it("records no_trade without bids", () => {
    const h = openAuction();
    expect(closeAuction(h).auctionResolution).toEqual({ outcome: "no_trade" });
  });

  it("refuses to resolve early, twice, or for a client", () => {
    const h = openAuction();
    h.nowMs = CLOSES_MS - 1;
    expect(codeOf(h.resolve("a1"))).toBe("invalid_market_transition");
    h.nowMs = CLOSES_MS;
    expect(codeOf(h.resolve("a1", { principalId: "alice", actorId: "alice" }))).toBe("actor_not_authorized");
    expect(codeOf(h.resolve("a1"))).toBe("accepted");
    expect(codeOf(h.resolve("a1"))).toBe("invalid_market_transition");
  });
});

describe("winner decline or expiry promotes the next eligible bid", () => {
  function resolvedWithThree(reserveAmountMinor?: number) {
    const h = openAuction(reserveAmountMinor === undefined ? {} : { reserveAmountMinor });
    h.bid("bob", "a1", 700);
    h.bid("carol", "a1", 900);
    h.bid("dave", "a1", 800);
    const resolved = closeAuction(h);
    return { h, first: resolved.commitments[0]! };
  }

  it("excludes the declined winner, re-prices over the remaining bids and creates a new commitment", () => {
    const { h, first } = resolvedWithThree();
    h.advance(1_000);
    const declined = actionResultOf(h.decline("carol", first.id));
    expect(declined.events.map((e) => e.type)).toEqual([
      "commitment.declined",
      "sealed_auction.resolved",
      "commitment.awaiting_confirmations",
    ]);
    expect(declined.auctionResolution).toEqual({
      outcome: "winner_selected",
      winningBidId: "b.YTE.3",
      winnerPrincipalId: "dave",
      clearingPrice: { rule: "second_price", amountMinor: 700, currency: "EUR" },
    });
    expect(declined.market.mechanismState).toEqual({
      bidCount: 3,
      resolution: "winner_selected",
      winningBidId: "b.YTE.3",
      excludedBidIds: ["b.YTE.2"],
    });
    expect(declined.commitments.map((c) => [c.id, c.state, c.participantPrincipalId])).toEqual([
      ["c.YTE.1", "declined", "carol"],
      ["c.YTE.2", "awaiting_confirmations", "dave"],
    ]);
    expect(declined.commitments[1]?.expiresAt).toBe(isoFromMs(CLOSES_MS + 1_000 + 120_000));
  });

  it("lets the creator decline the winner too", () => {
    const { h, first } = resolvedWithThree();
    expect(actionResultOf(h.decline("alice", first.id)).auctionResolution).toMatchObject({ winnerPrincipalId: "dave" });
  });

  it("promotes after expiry and ends in no_trade when no eligible bid remains", () => {
    const { h, first } = resolvedWithThree(750);
    h.advance(120_000);
    const expired = actionResultOf(h.expire(first.id));
    expect(expired.auctionResolution).toMatchObject({ winnerPrincipalId: "dave", clearingPrice: { amountMinor: 750 } });
    const second = expired.commitments[1]!;
    const declined = actionResultOf(h.decline("dave", second.id));
    // bob's 700 is below the 750 reserve: nothing eligible remains.
    expect(declined.auctionResolution).toEqual({ outcome: "no_trade" });
    expect(declined.market.mechanismState).toEqual({
      bidCount: 3,
      resolution: "no_trade",
      excludedBidIds: ["b.YTE.2", "b.YTE.3"],
    });
    expect(declined.commitments.map((c) => c.state)).toEqual(["declined"]);
  });

  it("commits when the winner confirms, with at most one committed winner", () => {
    const { h, first } = resolvedWithThree();
    const confirmed = actionResultOf(h.confirm("carol", first.id));
    expect(confirmed.commitments[0]?.state).toBe("committed");
    expect(codeOf(h.decline("alice", first.id))).toBe("invalid_commitment_transition");
    expect(commitmentsOf(h.market("a1")).filter((c) => c.state === "committed")).toHaveLength(1);
  });
});

describe("sealed privacy (decision 6)", () => {
  it("redacts every bid request in the record while open and shows the amounts after resolution", () => {
    const h = openAuction();
    h.bid("bob", "a1", 4_321);
    h.bid("bob", "a1", 8_765); // rejected duplicate: still private
    const open = h.record("a1");
    const bids = open.commands.filter((c) => c.type === "sealed_auction.submit_bid");
    expect(bids.map((c) => c.request)).toEqual([{ sealed: true }, { sealed: true }]);
    const text = JSON.stringify(open);
    expect(text).not.toContain("4321");
    expect(text).not.toContain("8765");

    closeAuction(h);
    const closed = h.record("a1");
    const shown = closed.commands.filter((c) => c.type === "sealed_auction.submit_bid");
    expect(shown[0]?.request).toMatchObject({ amountMinor: 4_321, currency: "EUR", principalId: "bob", actorId: "bob" });
    expect(shown[1]?.request).toMatchObject({ amountMinor: 8_765 });
  });
});
