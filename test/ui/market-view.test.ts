/**
 * The live page's pure parts, without a browser: the fold of a market and its events
 * (gateway/page/src/market-view.ts), the countdown text (countdown.ts) and amounts in minor units
 * as a person reads them (money.ts); and the page's module is
 * built from the current sources (build/build-page.ts), so the browser test and the server serve
 * what gateway/page/src/ says.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { PAGE_ASSETS_MODULE, pageAssetsModuleText } from "../../build/build-page.js";
import { remainingText } from "../../gateway/page/src/countdown.js";
import { MarketView, MAX_COMMITMENT_ROWS, type MarketEvent, parseMarketEvent } from "../../gateway/page/src/market-view.js";
import { currencyDigits, formatMinorUnits } from "../../gateway/page/src/money.js";

const T = "2026-05-01T10:00:00.000Z";

function directClaimMarket(version: number, allocated: number, capacity = 5): unknown {
  return {
    id: "m1",
    version,
    state: "open",
    creator: { principalId: "alice", actorId: "alice" },
    subject: { schema: "s.v1", data: {} },
    mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
    mechanismState: { allocated },
    createdAt: T,
    updatedAt: T,
  };
}

function event(sequence: number, type: string, marketVersion: number, data: Record<string, unknown>, extra: Partial<MarketEvent> = {}): MarketEvent {
  return { sequence, id: `e${sequence}`, type, marketId: "m1", marketVersion, occurredAt: T, data, ...extra };
}

describe("MarketView", () => {
  it("takes capacity and allocated from the market, then from direct_claim.accepted events, never going back to an older version", () => {
    const view = new MarketView();
    view.applyMarket(directClaimMarket(4, 2));
    expect({ kind: view.kind, allocated: view.allocated, capacity: view.capacity, version: view.version }).toEqual({ kind: "direct-claim", allocated: 2, capacity: 5, version: 4 });
    // Replayed from the first event: older accepted events do not lower the count read at version 4.
    expect(view.applyEvent(event(3, "direct_claim.accepted", 3, { commitmentId: "c1", allocated: 1, capacity: 5 }, { principalId: "bob" }))).toBe("applied");
    expect(view.allocated).toBe(2);
    view.applyEvent(event(4, "direct_claim.accepted", 4, { commitmentId: "c2", allocated: 2, capacity: 5 }));
    expect(view.applyEvent(event(5, "direct_claim.accepted", 5, { commitmentId: "c3", allocated: 3, capacity: 5 }))).toBe("applied");
    expect(view.allocated).toBe(3);
    expect(view.version).toBe(5);
    // A repeated event (a resume that overlaps) is not counted twice.
    view.applyEvent(event(5, "direct_claim.accepted", 5, { commitmentId: "c3", allocated: 3, capacity: 5 }));
    expect(view.eventCount).toBe(3);
    expect(view.lastSequence).toBe(5);
    expect(view.commitmentCount).toBe(3);
    expect(view.commitmentRows().map((row) => row.id)).toEqual(["c3", "c2", "c1"]);
    expect(view.commitmentRows()[2]).toEqual({ id: "c1", state: "provisional", updatedAt: T, claimant: "bob" });
    // An older snapshot changes nothing; a newer one does.
    view.applyMarket(directClaimMarket(4, 2));
    expect(view.allocated).toBe(3);
    view.applyMarket(directClaimMarket(7, 1));
    expect(view.allocated).toBe(1);
  });

  it("asks for the market again when a claim takes the last capacity (the market may close; no event says so)", () => {
    const view = new MarketView();
    view.applyMarket(directClaimMarket(2, 0, 2));
    expect(view.applyEvent(event(3, "direct_claim.accepted", 3, { allocated: 1, capacity: 2 }))).toBe("applied");
    expect(view.applyEvent(event(4, "direct_claim.accepted", 4, { allocated: 2, capacity: 2 }))).toBe("refetch-market");
    // A public view has no commitment id: no row, but the count of allocated follows.
    expect(view.commitmentCount).toBe(0);
    expect(view.allocated).toBe(2);
  });

  it("follows commitment states and asks for the market again when a decline or an expiry frees capacity", () => {
    const view = new MarketView();
    view.applyMarket(directClaimMarket(2, 0));
    view.applyEvent(event(3, "direct_claim.accepted", 3, { commitmentId: "c1", allocated: 1, capacity: 5 }));
    expect(view.applyEvent(event(4, "commitment.awaiting_confirmations", 3, { commitmentId: "c1", state: "awaiting_confirmations" }))).toBe("applied");
    expect(view.applyEvent(event(5, "commitment.declined", 4, { commitmentId: "c1", state: "declined" }))).toBe("refetch-market");
    expect(view.commitmentRows()).toEqual([{ id: "c1", state: "declined", updatedAt: T }]);
    expect(view.commitmentCount).toBe(1);
    expect(view.applyEvent(event(6, "commitment.expired", 5, { commitmentId: "c9", state: "expired" }))).toBe("refetch-market");
    expect(view.commitmentCount).toBe(2);
  });

  it("keeps at most MAX_COMMITMENT_ROWS rows but counts every commitment", () => {
    const view = new MarketView();
    view.applyMarket(directClaimMarket(2, 0, 1000));
    for (let i = 1; i <= MAX_COMMITMENT_ROWS + 5; i++) view.applyEvent(event(2 + i, "direct_claim.accepted", 2 + i, { commitmentId: `c${i}`, allocated: i, capacity: 1000 }));
    expect(view.commitmentCount).toBe(MAX_COMMITMENT_ROWS + 5);
    expect(view.commitmentRows()).toHaveLength(MAX_COMMITMENT_ROWS);
    expect(view.commitmentRows()[0]?.id).toBe(`c${MAX_COMMITMENT_ROWS + 5}`);
  });

  it("an auction: closesAt and bid count, then the resolution, also from a public view without identities or price", () => {
    const auction = {
      id: "m1",
      version: 2,
      state: "open",
      mechanism: { presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt: "2026-05-01T10:10:00.000Z", holdDurationSeconds: 60 } },
      mechanismState: { bidCount: 0 },
    };
    const view = new MarketView();
    view.applyMarket(auction);
    expect({ kind: view.kind, closesAt: view.closesAt, currency: view.currency, bidCount: view.bidCount, result: view.result }).toEqual({
      kind: "auction",
      closesAt: "2026-05-01T10:10:00.000Z",
      currency: "EUR",
      bidCount: 0,
      result: undefined,
    });
    view.applyEvent(event(3, "sealed_auction.bid_submitted", 3, { bidId: "b1", bidCount: 1 }));
    expect(view.bidCount).toBe(1);
    expect(view.applyEvent(event(4, "sealed_auction.resolved", 4, { outcome: "winner_selected", winningBidId: "b1", winnerPrincipalId: "bob", clearingPrice: { rule: "second_price", amountMinor: 0, currency: "EUR" } }))).toBe("refetch-market");
    expect(view.result).toEqual({ outcome: "winner_selected", winningBidId: "b1", winnerPrincipalId: "bob", clearingPrice: { amountMinor: 0, currency: "EUR" } });
    // The winner's commitment, created by the same command (the service's, so its envelope names no
    // participant), shows the winner as its claimant, and keeps it through later changes.
    view.applyEvent(event(5, "commitment.awaiting_confirmations", 4, { commitmentId: "c1", state: "awaiting_confirmations" }, { principalId: "@system" }));
    view.applyEvent(event(6, "commitment.committed", 5, { commitmentId: "c1", state: "committed" }, { principalId: "bob" }));
    expect(view.commitmentRows()).toEqual([{ id: "c1", state: "committed", updatedAt: T, claimant: "bob" }]);

    const publicView = new MarketView();
    publicView.applyMarket(auction);
    publicView.applyEvent(event(4, "sealed_auction.resolved", 4, { outcome: "winner_selected" }));
    expect(publicView.result).toEqual({ outcome: "winner_selected" });
    // A market already resolved when the page opens shows its resolution from the snapshot.
    const late = new MarketView();
    late.applyMarket({ ...auction, version: 5, state: "closed", mechanismState: { bidCount: 1, resolution: "no_trade" } });
    expect(late.result).toEqual({ outcome: "no_trade" });
  });

  it("refuses a reply that is not a market, or another market than the one watched", () => {
    expect(() => new MarketView().applyMarket([])).toThrow(/not a JSON object/);
    expect(() => new MarketView().applyMarket({ id: "m1" })).toThrow(/not a market/);
    const view = new MarketView();
    view.applyMarket(directClaimMarket(2, 0));
    expect(() => view.applyMarket({ ...(directClaimMarket(3, 0) as object), id: "m2" })).toThrow(/m2, not m1/);
  });
});

describe("parseMarketEvent", () => {
  it("reads an envelope and names what is missing", () => {
    expect(parseMarketEvent({ sequence: 1, id: "e", type: "market.published", marketId: "m", marketVersion: 2, occurredAt: T, data: { state: "open" }, commandId: "x" })).toEqual({
      sequence: 1,
      id: "e",
      type: "market.published",
      marketId: "m",
      marketVersion: 2,
      occurredAt: T,
      data: { state: "open" },
    });
    expect(parseMarketEvent({ sequence: 2, id: "e", type: "t", marketId: "m", marketVersion: 2, occurredAt: T, principalId: "p" }).principalId).toBe("p");
    expect(() => parseMarketEvent({ id: "e" })).toThrow(/without a sequence/);
    expect(() => parseMarketEvent({ sequence: 3, id: "e" })).toThrow(/event 3 lacks/);
    expect(() => parseMarketEvent("x")).toThrow(/not a JSON object/);
  });
});

describe("remainingText", () => {
  const closes = "2026-05-01T10:10:00.000Z";
  const at = (iso: string) => Date.parse(iso);
  it("counts down in whole seconds, rounded up, and is undefined once the deadline passed", () => {
    expect(remainingText(closes, at("2026-05-01T10:00:00.000Z"))).toBe("10:00");
    expect(remainingText(closes, at("2026-05-01T10:09:59.001Z"))).toBe("00:01");
    expect(remainingText(closes, at("2026-05-01T10:10:00.000Z"))).toBeUndefined();
    expect(remainingText(closes, at("2026-05-01T11:00:00.000Z"))).toBeUndefined();
    expect(remainingText(closes, at("2026-05-01T07:09:58.500Z"))).toBe("03:00:02");
    expect(remainingText(closes, at("2026-04-28T10:09:00.000Z"))).toBe("3 d 00:01:00");
    expect(remainingText("not a date", 0)).toBeUndefined();
  });
});

describe("the page's module", () => {
  it("is built from the current gateway/page/src/ (npm run build rebuilds it)", async () => {
    expect(fs.readFileSync(PAGE_ASSETS_MODULE, "utf8") === (await pageAssetsModuleText()), "gateway/page/generated/page-assets.ts is stale: run npm run build:page").toBe(true);
  });
});

describe("formatMinorUnits", () => {
  it("places the currency's own number of decimals: EUR 1800 is 18.00 EUR", () => {
    expect(formatMinorUnits(1800, "EUR")).toBe("18.00 EUR");
    expect(formatMinorUnits(5, "EUR")).toBe("0.05 EUR");
    expect(formatMinorUnits(0, "EUR")).toBe("0.00 EUR");
    expect(formatMinorUnits(1800, "JPY")).toBe("1800 JPY");
    expect(formatMinorUnits(1800, "BHD")).toBe("1.800 BHD");
    // No float on the way: the largest amount the service takes keeps every digit.
    expect(formatMinorUnits(9_007_199_254_740_991, "EUR")).toBe("90071992547409.91 EUR");
    expect(currencyDigits("XQQ")).toBe(2);
  });
});
