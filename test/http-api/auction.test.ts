/**
 * `sealed-forward-auction.v1` end to end over HTTP: sealed bids (one per principal, creator cannot
 * bid), close at `closesAt` by the ManualClock, the winner learning its commitment through
 * my-outcome, decline → promotion at the recomputed second price → confirmation, no_trade, expiry
 * promotion — and bid privacy: no bid amount in any response body while the auction is open; after
 * resolution only the creator's record shows them (E7).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceResponse } from "@market-service/client";
import {
  Harness,
  SUBJECT,
  auctionMechanism,
  bidIdOf,
  commitmentAction,
  commitmentIdOf,
  expectError,
  expectStatus,
  openMarket,
  uid,
  type Principal,
} from "./support/harness.js";

let h: Harness;
let alice: Principal; // creator
let bob: Principal;
let carol: Principal;
let dave: Principal;
let erin: Principal;

beforeAll(async () => {
  h = await Harness.start();
  [alice, bob, carol, dave, erin] = await h.principals("alice", "bob", "carol", "dave", "erin");
});

afterAll(async () => {
  await h?.close();
});

function bid(who: Principal, marketId: string, amountMinor: number, currency = "EUR", commandId = uid("bid")): Promise<ServiceResponse> {
  return h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId, principalId: who.id, amountMinor, currency }, who.auth);
}

describe("a full auction", () => {
  // Distinctive amounts, so a leak shows up as a substring anywhere in a body.
  const RESERVE = 100_003;
  const BOB = 700_013;
  const CAROL = 500_029;
  const DAVE = 300_007;
  const ERIN = 90_001; // below the reserve: accepted, never eligible (D7)
  const AMOUNTS = [BOB, CAROL, DAVE, ERIN];

  it("resolves at closesAt, promotes after a decline at the recomputed second price, and keeps bids sealed while open", async () => {
    const marketId = uid("auction");
    const closesAt = h.isoIn(600_000);
    const published = await openMarket(h, alice, marketId, auctionMechanism({ currency: "EUR", reserveAmountMinor: RESERVE, closesAt, holdDurationSeconds: 120 }));
    expect(published.market).toMatchObject({ state: "open", version: 2, mechanismState: { bidCount: 0 } });

    const openBodies: string[] = [];
    const seen = (response: ServiceResponse): ServiceResponse => {
      openBodies.push(response.text);
      return response;
    };

    // Bids: one per principal; the creator cannot bid; a currency mismatch is invalid_command.
    const receipts: Record<string, any> = {};
    for (const [who, amount] of [[bob, BOB], [carol, CAROL], [dave, DAVE], [erin, ERIN]] as const) {
      h.clock.advance(1_000);
      const response = seen(await bid(who, marketId, amount));
      expectStatus(response, 200);
      expect(response.body.bidReceipts).toHaveLength(1);
      expect(Object.keys(response.body.bidReceipts[0]).sort()).toEqual(["bidId", "marketId", "marketVersion", "state", "submittedAt"]);
      expect(response.body.bidReceipts[0]).toMatchObject({ marketId, state: "active", submittedAt: h.nowIso() });
      receipts[who.id] = response.body.bidReceipts[0];
    }
    expect(receipts["bob"].bidId).toBe(bidIdOf(marketId, 1));
    expect(receipts["erin"]).toMatchObject({ bidId: bidIdOf(marketId, 4), marketVersion: 6 });
    expectError(seen(await bid(alice, marketId, 999_999)), 403, "principal_not_authorized");
    expectError(seen(await bid(bob, marketId, BOB + 1)), 409, "invalid_market_transition");
    expectError(seen(await bid(carol, marketId, 123_457, "USD")), 400, "invalid_command");

    // Everything anyone can read while open.
    const market = seen(await h.get(`/v1/markets/${marketId}`, bob.auth));
    expect(market.body).toMatchObject({ state: "open", version: 6, mechanismState: { bidCount: 4 } });
    expect(market.body.mechanismState).not.toHaveProperty("resolution");
    for (const who of [alice, bob, carol, dave, erin]) {
      const outcome = seen(await h.get(`/v1/markets/${marketId}/my-outcome`, who.auth));
      expectStatus(outcome, 200);
      expect(outcome.body.commitments).toEqual([]);
      expect(outcome.body.bidReceipts).toEqual(who === alice ? [] : [receipts[who.id]]);
    }
    const openRecord = seen(await h.get(`/v1/markets/${marketId}/record`, alice.auth));
    expectStatus(openRecord, 200);
    const bidCommands = openRecord.body.commands.filter((c: { type: string }) => c.type === "sealed_auction.submit_bid");
    expect(bidCommands).toHaveLength(7); // 4 accepted, 3 rejected: every one redacted
    for (const command of bidCommands) expect(command.request).toEqual({ sealed: true });
    expect(bidCommands.map((c: { status: string; rejectionCode?: string }) => c.rejectionCode ?? c.status)).toEqual([
      "accepted",
      "accepted",
      "accepted",
      "accepted",
      "principal_not_authorized",
      "invalid_market_transition",
      "invalid_command",
    ]);
    for (const event of openRecord.body.events.filter((e: { type: string }) => e.type === "sealed_auction.bid_submitted")) {
      expect(Object.keys(event.data).sort()).toEqual(["bidCount", "bidId"]);
    }
    for (const text of openBodies) {
      for (const amount of [...AMOUNTS, BOB + 1, 999_999, 123_457]) expect(text).not.toContain(String(amount));
    }

    // Close: the shard resolves at closesAt once it sees the time.
    h.clock.set(Date.parse(closesAt));
    expectError(await bid(carol, marketId, CAROL), 409, "invalid_market_transition"); // at closesAt, even before resolution (E5)
    h.service.publishTime();
    const closed = await h.get(`/v1/markets/${marketId}`, carol.auth);
    expect(closed.body).toMatchObject({
      state: "closed",
      mechanismState: { bidCount: 4, resolution: "winner_selected", winningBidId: receipts["bob"].bidId },
    });
    expect(closed.text).not.toContain(String(BOB));

    // The winner learns its commitment through my-outcome; the price is carol's bid (second price).
    const winnerCommitmentId = commitmentIdOf(marketId, 1);
    const bobOutcome = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expect(bobOutcome.body.commitments).toEqual([
      expect.objectContaining({
        id: winnerCommitmentId,
        state: "awaiting_confirmations",
        participantPrincipalId: "bob",
        creatorPrincipalId: "alice",
        requiredConfirmationPrincipalIds: ["bob"],
        confirmedPrincipalIds: [],
        expiresAt: new Date(Date.parse(closesAt) + 120_000).toISOString(),
        terms: { subject: SUBJECT, winningBidId: receipts["bob"].bidId, pricing: { rule: "second_price", amountMinor: CAROL, currency: "EUR" } },
      }),
    ]);
    expect(bobOutcome.text).not.toContain(String(BOB));
    expect((await h.get(`/v1/markets/${marketId}/my-outcome`, carol.auth)).body.commitments).toEqual([]);

    // The record after resolution: the system resolve command, the resolution event, and the bids.
    const resolvedRecord = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    const resolveCommand = resolvedRecord.body.commands.find((c: { type: string }) => c.type === "sealed_auction.resolve");
    expect(resolveCommand).toMatchObject({
      id: `resolve:${marketId}`,
      type: "sealed_auction.resolve",
      identity: { principalId: "@system", actorId: "@system" },
      status: "accepted",
      occurredAt: closesAt,
    });
    // The late bid is recorded as rejected after the resolution (deadlines fire before a batch's commands).
    expect(resolvedRecord.body.commands.at(-1)).toMatchObject({ type: "sealed_auction.submit_bid", status: "rejected", rejectionCode: "invalid_market_transition", request: { amountMinor: CAROL } });
    expect(resolvedRecord.body.commands.at(-1).sequence).toBeGreaterThan(resolveCommand.sequence);
    const resolvedEvent = resolvedRecord.body.events.find((e: { type: string }) => e.type === "sealed_auction.resolved");
    expect(resolvedEvent.data).toEqual({
      outcome: "winner_selected",
      winningBidId: receipts["bob"].bidId,
      winnerPrincipalId: "bob",
      clearingPrice: { rule: "second_price", amountMinor: CAROL, currency: "EUR" },
    });
    const revealed = resolvedRecord.body.commands.filter((c: { type: string }) => c.type === "sealed_auction.submit_bid").map((c: { request: { amountMinor?: number } }) => c.request.amountMinor);
    expect(revealed).toEqual([BOB, CAROL, DAVE, ERIN, 999_999, BOB + 1, 123_457, CAROL]);

    // The winner declines: bob's bid is excluded, carol is promoted at dave's amount.
    h.clock.advance(5_000);
    const declined = await commitmentAction(h, bob, winnerCommitmentId, "decline");
    expectStatus(declined, 200);
    expect(declined.body.auctionResolution).toEqual({
      outcome: "winner_selected",
      winningBidId: receipts["carol"].bidId,
      winnerPrincipalId: "carol",
      clearingPrice: { rule: "second_price", amountMinor: DAVE, currency: "EUR" },
    });
    expect(declined.body.market).toMatchObject({
      state: "closed",
      mechanismState: { bidCount: 4, resolution: "winner_selected", winningBidId: receipts["carol"].bidId, excludedBidIds: [receipts["bob"].bidId] },
    });
    expect(declined.body.commitments).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: winnerCommitmentId, state: "declined" }), expect.objectContaining({ id: commitmentIdOf(marketId, 2), state: "awaiting_confirmations" })]),
    );
    expect(declined.body.events.map((e: { type: string }) => e.type)).toEqual(["commitment.declined", "sealed_auction.resolved", "commitment.awaiting_confirmations"]);
    // bob's own amount never appears; CAROL's does, as the price of bob's (declined) commitment.
    expect(declined.text).not.toContain(String(BOB));

    // The new winner finds and confirms its commitment.
    const carolOutcome = await h.get(`/v1/markets/${marketId}/my-outcome`, carol.auth);
    expect(carolOutcome.body.commitments).toEqual([
      expect.objectContaining({
        id: commitmentIdOf(marketId, 2),
        participantPrincipalId: "carol",
        state: "awaiting_confirmations",
        expiresAt: h.isoIn(120_000),
        terms: { subject: SUBJECT, winningBidId: receipts["carol"].bidId, pricing: { rule: "second_price", amountMinor: DAVE, currency: "EUR" } },
      }),
    ]);
    expectError(await commitmentAction(h, bob, commitmentIdOf(marketId, 2), "confirm"), 403, "principal_not_authorized");
    const confirmed = await commitmentAction(h, carol, commitmentIdOf(marketId, 2), "confirm");
    expectStatus(confirmed, 200);
    expect(confirmed.body.commitments).toEqual([expect.objectContaining({ id: commitmentIdOf(marketId, 2), state: "committed", confirmedPrincipalIds: ["carol"] })]);
    expect(confirmed.body.events.map((e: { type: string }) => e.type)).toEqual(["commitment.confirmation_recorded", "commitment.committed"]);

    const finalRecord = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(finalRecord.body.commitments.map((c: { id: string; state: string }) => [c.id, c.state])).toEqual([
      [winnerCommitmentId, "declined"],
      [commitmentIdOf(marketId, 2), "committed"],
    ]);
    expect(finalRecord.body.integrity.stateReconstructed).toBe(true);
  });
});

describe("auction rules", () => {
  it("no eligible bid gives no_trade: a bid below the reserve is accepted but cannot win", async () => {
    const marketId = uid("auction");
    const closesAt = h.isoIn(60_000);
    await openMarket(h, alice, marketId, auctionMechanism({ reserveAmountMinor: 10_000, closesAt }));
    const response = await bid(bob, marketId, 9_999);
    expectStatus(response, 200);
    expect(response.body.bidReceipts[0].state).toBe("active");
    h.advance(60_000);
    const market = await h.get(`/v1/markets/${marketId}`, alice.auth);
    expect(market.body).toMatchObject({ state: "closed", mechanismState: { bidCount: 1, resolution: "no_trade" } });
    expect(market.body.mechanismState).not.toHaveProperty("winningBidId");
    const record = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(record.body.events.at(-1)).toMatchObject({ type: "sealed_auction.resolved", data: { outcome: "no_trade" } });
    expect(record.body.commitments).toEqual([]);
    expect((await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth)).body.commitments).toEqual([]);
  });

  it("an auction without bids closes as no_trade", async () => {
    const marketId = uid("auction");
    await openMarket(h, alice, marketId, auctionMechanism({ closesAt: h.isoIn(1_000) }));
    h.advance(1_000);
    expect((await h.get(`/v1/markets/${marketId}`, alice.auth)).body).toMatchObject({ state: "closed", mechanismState: { bidCount: 0, resolution: "no_trade" } });
  });

  it("a sole bidder without reserve pays 0; with a reserve it pays the reserve", async () => {
    const free = uid("auction");
    const reserved = uid("auction");
    await openMarket(h, alice, free, auctionMechanism({ closesAt: h.isoIn(10_000) }));
    await openMarket(h, alice, reserved, auctionMechanism({ closesAt: h.isoIn(10_000), reserveAmountMinor: 4_321 }));
    expectStatus(await bid(bob, free, 5_555), 200);
    expectStatus(await bid(bob, reserved, 5_555), 200);
    h.advance(10_000);
    const [a, b] = await Promise.all([h.get(`/v1/markets/${free}/my-outcome`, bob.auth), h.get(`/v1/markets/${reserved}/my-outcome`, bob.auth)]);
    expect(a.body.commitments[0].terms.pricing).toEqual({ rule: "second_price", amountMinor: 0, currency: "EUR" });
    expect(b.body.commitments[0].terms.pricing).toEqual({ rule: "second_price", amountMinor: 4_321, currency: "EUR" });
  });

  it("ties go to the earlier bid; an expired winner is excluded and the next bid promoted; the last expiry gives no_trade", async () => {
    const marketId = uid("auction");
    const closesAt = h.isoIn(30_000);
    await openMarket(h, alice, marketId, auctionMechanism({ closesAt, holdDurationSeconds: 10 }));
    expectStatus(await bid(carol, marketId, 800), 200);
    expectStatus(await bid(bob, marketId, 800), 200);
    h.advance(30_000);
    const first = await h.get(`/v1/markets/${marketId}/my-outcome`, carol.auth);
    expect(first.body.commitments[0]).toMatchObject({ id: commitmentIdOf(marketId, 1), terms: { winningBidId: bidIdOf(marketId, 1), pricing: { amountMinor: 800 } } });

    h.advance(10_000); // carol does not confirm: her commitment expires, bob is promoted
    const second = await h.get(`/v1/markets/${marketId}/my-outcome`, bob.auth);
    expect(second.body.commitments).toEqual([
      expect.objectContaining({ id: commitmentIdOf(marketId, 2), state: "awaiting_confirmations", terms: expect.objectContaining({ winningBidId: bidIdOf(marketId, 2), pricing: { rule: "second_price", amountMinor: 0, currency: "EUR" } }) }),
    ]);
    const market = await h.get(`/v1/markets/${marketId}`, alice.auth);
    expect(market.body.mechanismState).toEqual({ bidCount: 2, resolution: "winner_selected", winningBidId: bidIdOf(marketId, 2), excludedBidIds: [bidIdOf(marketId, 1)] });
    expect((await h.get(`/v1/markets/${marketId}/my-outcome`, carol.auth)).body.commitments[0]).toMatchObject({ state: "expired" });

    h.advance(10_000);
    const last = await h.get(`/v1/markets/${marketId}`, alice.auth);
    expect(last.body.mechanismState).toEqual({ bidCount: 2, resolution: "no_trade", excludedBidIds: [bidIdOf(marketId, 1), bidIdOf(marketId, 2)] });
    expect(last.body.state).toBe("closed");
  });

  it("publishing at or after closesAt is invalid_market_transition; creating with a past closesAt is invalid_mechanism_config", async () => {
    const marketId = uid("auction");
    const created = await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: auctionMechanism({ closesAt: h.isoIn(5_000) }) }, alice.auth);
    expectStatus(created, 201);
    h.advance(5_000);
    expectError(await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth), 409, "invalid_market_transition");
    expect((await h.get(`/v1/markets/${marketId}`, alice.auth)).body).toMatchObject({ state: "draft", version: 1 });
    expectError(await bid(bob, marketId, 10), 409, "invalid_market_transition");
    expectError(
      await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("auction"), principalId: "alice", subject: SUBJECT, mechanism: auctionMechanism({ closesAt: h.isoIn(-1) }) }, alice.auth),
      422,
      "invalid_mechanism_config",
    );
  });
});
