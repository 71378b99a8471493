/**
 * Property-based tests: random command sequences over several markets of both mechanisms keep the
 * engine's invariants, and replaying the same sequence yields the same record hashes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildMarketRecord,
  commitmentsOf,
  isoFromMs,
  type CommandOutcome,
  type DirectClaimState,
  type MarketAggregate,
  type SealedAuctionState,
} from "../../engine/index.js";
import { Harness, auction, directClaim } from "./harness.js";

const PRINCIPALS = ["p0", "p1", "p2", "p3", "p4", "p5"] as const;
const MARKETS = ["m0", "m1", "m2", "m3"] as const;
/** Bid amounts are drawn from a distinctive range so a leak is findable in JSON text. */
const AMOUNT_BASE = 7_340_000;

interface MarketSetup {
  auction: boolean;
  capacity: number;
  confirmation: number;
  hold: number;
  reserve: number;
  publish: boolean;
}

type Action =
  | { kind: "publish"; market: number; asCreator: boolean; versionDelta: number }
  | { kind: "claim"; market: number; principal: number; versioned: boolean }
  | { kind: "bid"; market: number; principal: number; amount: number; wrongCurrency: boolean }
  | { kind: "resolve"; market: number }
  | { kind: "confirm" | "decline" | "expire"; market: number; commitment: number; who: number }
  | { kind: "recreate"; market: number }
  | { kind: "advance"; ms: number };

interface Script {
  setups: MarketSetup[];
  actions: Action[];
}

const idx = (n: number) => fc.integer({ min: 0, max: n - 1 });
const setupArb: fc.Arbitrary<MarketSetup> = fc.record({
  auction: fc.boolean(),
  capacity: fc.integer({ min: 1, max: 4 }),
  confirmation: idx(4),
  hold: fc.integer({ min: 1, max: 120 }),
  reserve: fc.integer({ min: 0, max: 50_000 }),
  publish: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
});
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("publish" as const), market: idx(MARKETS.length), asCreator: fc.boolean(), versionDelta: fc.constantFrom(0, 0, 0, 1) }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("claim" as const), market: idx(MARKETS.length), principal: idx(PRINCIPALS.length), versioned: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("bid" as const), market: idx(MARKETS.length), principal: idx(PRINCIPALS.length), amount: fc.integer({ min: 1, max: 99_999 }), wrongCurrency: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("resolve" as const), market: idx(MARKETS.length) }) },
  // who: 0 = participant, 1 = creator, 2.. = some principal
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom("confirm" as const, "confirm" as const, "decline" as const, "expire" as const), market: idx(MARKETS.length), commitment: idx(5), who: idx(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("recreate" as const), market: idx(MARKETS.length) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 40_000 }) }) },
);
const scriptArb = (maxActions: number): fc.Arbitrary<Script> =>
  fc.record({
    setups: fc.array(setupArb, { minLength: MARKETS.length, maxLength: MARKETS.length }),
    actions: fc.array(actionArb, { minLength: 1, maxLength: maxActions, size: "max" }),
  });

const CONFIRMATIONS = ["none", "creator", "participant", "both"] as const;
/** Market i is created by principal i (so principals also appear as participants elsewhere). */
const creatorOf = (market: number) => PRINCIPALS[market]!;

function mechanismOf(h: Harness, setup: MarketSetup) {
  return setup.auction
    ? auction({
        currency: "EUR",
        ...(setup.reserve > 0 ? { reserveAmountMinor: AMOUNT_BASE + setup.reserve } : {}),
        closesAt: isoFromMs(h.nowMs + 60_000),
        holdDurationSeconds: setup.hold,
      })
    : directClaim({
        capacity: setup.capacity,
        pricing: { mode: "free" },
        confirmation: CONFIRMATIONS[setup.confirmation]!,
        ...(setup.confirmation === 0 ? {} : { holdDurationSeconds: setup.hold }),
      });
}

function setUp(h: Harness, setups: readonly MarketSetup[]): void {
  setups.forEach((setup, i) => {
    h.create(creatorOf(i), MARKETS[i]!, mechanismOf(h, setup));
    if (setup.publish) h.publish(creatorOf(i), MARKETS[i]!, 1);
  });
}

function apply(h: Harness, setups: readonly MarketSetup[], action: Action): CommandOutcome | undefined {
  switch (action.kind) {
    case "advance":
      h.advance(action.ms);
      return undefined;
    case "recreate": // a duplicate create: always refused, always recorded
      return h.create(PRINCIPALS[5]!, MARKETS[action.market]!, mechanismOf(h, setups[action.market]!));
    case "publish": {
      const marketId = MARKETS[action.market]!;
      const version = h.markets.get(marketId)?.market.version ?? 1;
      return h.publish(action.asCreator ? creatorOf(action.market) : PRINCIPALS[5]!, marketId, version + action.versionDelta);
    }
    case "claim": {
      const marketId = MARKETS[action.market]!;
      const version = action.versioned ? h.markets.get(marketId)?.market.version : undefined;
      return h.claim(PRINCIPALS[action.principal]!, marketId, version);
    }
    case "bid":
      return h.bid(PRINCIPALS[action.principal]!, MARKETS[action.market]!, AMOUNT_BASE + action.amount, action.wrongCurrency ? "USD" : "EUR");
    case "resolve":
      return h.resolve(MARKETS[action.market]!);
    case "confirm":
    case "decline":
    case "expire": {
      const marketId = MARKETS[action.market]!;
      const agg = h.markets.get(marketId);
      // Index 4 stands for "the latest commitment": the current auction winner, the newest claim.
      const commitments = agg === undefined ? [] : commitmentsOf(agg);
      const commitment = action.commitment === 4 ? commitments.at(-1) : commitments[action.commitment];
      const commitmentId = commitment?.id ?? `c.bogus.${action.commitment + 1}`;
      if (action.kind === "expire") return h.expire(commitmentId);
      const principal =
        action.who === 0
          ? (commitment?.participantPrincipalId ?? "p5")
          : action.who === 1
            ? creatorOf(action.market)
            : PRINCIPALS[action.who + 2]!;
      return action.kind === "confirm" ? h.confirm(principal, commitmentId) : h.decline(principal, commitmentId);
    }
  }
}

function checkMarket(agg: MarketAggregate): void {
  const market = agg.market;
  const commitments = commitmentsOf(agg);
  if (market.mechanism.presetId === "direct-claim.v1") {
    const allocated = (market.mechanismState as DirectClaimState).allocated;
    const active = commitments.filter((c) => c.state === "awaiting_confirmations" || c.state === "committed").length;
    expect(allocated).toBeLessThanOrEqual(market.mechanism.config.capacity);
    expect(allocated).toBe(active);
    expect(market.state === "closed").toBe(allocated === market.mechanism.config.capacity && market.state !== "draft");
  } else {
    const state = market.mechanismState as SealedAuctionState;
    expect(commitments.filter((c) => c.state === "committed").length).toBeLessThanOrEqual(1);
    expect(commitments.filter((c) => c.state === "awaiting_confirmations").length).toBeLessThanOrEqual(1);
    const reserve = market.mechanism.config.reserveAmountMinor ?? 0;
    for (const commitment of commitments) {
      const terms = commitment.terms;
      if (!("winningBidId" in terms)) throw new Error("auction commitments carry a winning bid");
      const winningBid = agg.bids.find((b) => b.bidId === terms.winningBidId);
      expect(winningBid).toBeDefined();
      expect(terms.pricing.amountMinor).toBeLessThanOrEqual(winningBid!.amountMinor);
      expect(terms.pricing.amountMinor).toBeGreaterThanOrEqual(reserve);
    }
    expect(state.bidCount).toBe(agg.bids.length);
  }
}

/** No amount of any bid appears in public text while its auction is unresolved. */
function checkSealed(agg: MarketAggregate, publicText: string): void {
  if (agg.market.mechanism.presetId !== "sealed-forward-auction.v1") return;
  if ((agg.market.mechanismState as SealedAuctionState).resolution !== undefined) return;
  for (const bid of agg.bids) expect(publicText).not.toContain(String(bid.amountMinor));
}

function runScript(script: Script): Harness {
  const h = new Harness();
  setUp(h, script.setups);
  const versions = new Map<string, number>();
  for (const action of script.actions) {
    const outcome = apply(h, script.setups, action);
    if (outcome === undefined) continue;
    for (const [id, agg] of h.markets) {
      const before = versions.get(id) ?? 0;
      expect(agg.market.version).toBeGreaterThanOrEqual(before);
      versions.set(id, agg.market.version);
      checkMarket(agg);
    }
    if (outcome.aggregate !== undefined) {
      if (outcome.status === "rejected") expect(outcome.events).toEqual([]);
      checkSealed(outcome.aggregate, JSON.stringify(outcome.reply) + JSON.stringify(outcome.events));
    }
  }
  return h;
}

describe("engine properties", () => {
  it("keeps invariants, privacy and reproducible records over random command sequences", () => {
    fc.assert(
      fc.property(scriptArb(150), (script) => {
        const first = runScript(script);
        const second = runScript(script);
        for (const [marketId, agg] of first.markets) {
          const record = buildMarketRecord(first.recorded.get(marketId) ?? [], agg);
          expect(record.integrity.stateReconstructed).toBe(true);
          checkSealed(agg, JSON.stringify(record));
          const again = second.record(marketId);
          expect(again.integrity.recordHash).toBe(record.integrity.recordHash);
          // Every command the harness recorded for this market is in its record, in order.
          expect(record.commands.map((c) => c.id)).toEqual((first.recorded.get(marketId) ?? []).map((c) => c.commandId));
        }
      }),
      { numRuns: 120, seed: 20261122 },
    );
  });

  it("versions increase by exactly one per market-changing command and never on rejection", () => {
    fc.assert(
      fc.property(scriptArb(100), (script) => {
        const h = new Harness();
        setUp(h, script.setups);
        for (const action of script.actions) {
          const marketId = "market" in action ? MARKETS[action.market]! : undefined;
          const before = marketId === undefined ? undefined : h.markets.get(marketId)?.market.version;
          const outcome = apply(h, script.setups, action);
          if (outcome === undefined || outcome.aggregate === undefined || before === undefined) continue;
          const after = outcome.aggregate.market.version;
          if (outcome.status === "rejected") expect(after).toBe(before);
          else expect(after - before).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});
