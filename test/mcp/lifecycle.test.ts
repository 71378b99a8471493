/**
 * Full lifecycles driven only through MCP tools (the clock is the only other input): a direct-claim
 * market (claims, capacity exhausted and released, two-party confirmation, hold expiry) and a
 * sealed auction (bids, close at closesAt, the winner learns its commitment through
 * get_my_market_outcome, declines, the next bid is promoted, that hold expires, the next one is
 * promoted and confirms). Each runs once with static MCP tokens and once with Ed25519 bearer
 * tokens, in each response mode.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpHarness, MODES, SUBJECT, auctionMechanism, directClaimMechanism, recordHashOf, uid, waitFor, type Agent } from "./support/harness.js";

const ROLES = ["creator", "p1", "p2", "p3"] as const;
type Role = (typeof ROLES)[number];
type Cast = Record<Role, { id: string; agent: Agent }>;

function staticToken(actor: string): string {
  return `lifecycle-static-token-${actor}-0123456789abcdef`;
}

describe.each(MODES)("MCP_RESPONSE_MODE=%s", (mode) => {
  let h: McpHarness;
  const casts: Partial<Record<"static" | "bearer", Cast>> = {};

  beforeAll(async () => {
    h = await McpHarness.start({ mode, env: { MCP_STATIC_TOKENS: ROLES.map((role) => `${staticToken(`s-${role}`)}=s-${role}`).join(",") } });
    const staticCast: Partial<Cast> = {};
    const bearerCast: Partial<Cast> = {};
    for (const role of ROLES) {
      staticCast[role] = { id: `s-${role}`, agent: await h.connect(staticToken(`s-${role}`)) };
      bearerCast[role] = { id: `b-${role}`, agent: await h.connect((await h.provision(`b-${role}`)).token) };
    }
    casts.static = staticCast as Cast;
    casts.bearer = bearerCast as Cast;
  });

  afterAll(async () => {
    await h?.close();
  });

  describe.each(["static", "bearer"] as const)("with %s tokens", (kind) => {
    it("direct claim: claim, exhaust, decline releases, two-party confirm, hold expiry", async () => {
      const { creator, p1, p2, p3 } = casts[kind]!;
      const marketId = uid(`dc-${kind}`);
      const holdSeconds = 300;
      const created = await creator.agent.ok("create_market", {
        commandId: uid("create"),
        marketId,
        principalId: creator.id,
        subject: SUBJECT,
        mechanism: directClaimMechanism({ capacity: 2, confirmation: "both", holdDurationSeconds: holdSeconds, pricing: { mode: "free" } }),
      });
      expect(created.market).toMatchObject({ version: 1, state: "draft", creator: { principalId: creator.id, actorId: creator.id } });
      const published = await creator.agent.ok("publish_market", { commandId: uid("publish"), marketId, principalId: creator.id, expectedVersion: 1 });
      expect(published.market).toMatchObject({ version: 2, state: "open" });

      const first = await p1.agent.ok("submit_direct_claim", { commandId: uid("claim"), marketId, principalId: p1.id });
      const c1 = first.commitments[0];
      expect(c1).toMatchObject({ participantPrincipalId: p1.id, state: "awaiting_confirmations", requiredConfirmationPrincipalIds: [creator.id, p1.id], confirmedPrincipalIds: [] });
      expect(c1.expiresAt).toBe(h.isoIn(holdSeconds * 1000));
      const second = await p2.agent.ok("submit_direct_claim", { commandId: uid("claim"), marketId, principalId: p2.id, expectedVersion: first.market.version });
      const c2 = second.commitments[0];
      expect(second.market).toMatchObject({ state: "closed", mechanismState: { allocated: 2 } });
      await p3.agent.fails("submit_direct_claim", { commandId: uid("claim"), marketId, principalId: p3.id }, "capacity_exhausted");

      const declined = await p1.agent.ok("decline_commitment", { commandId: uid("decline"), commitmentId: c1.id, principalId: p1.id });
      expect(declined.commitments[0]).toMatchObject({ id: c1.id, state: "declined" });
      expect(declined.market).toMatchObject({ state: "open", mechanismState: { allocated: 1 } });
      const third = await p3.agent.ok("submit_direct_claim", { commandId: uid("claim"), marketId, principalId: p3.id });
      const c3 = third.commitments[0];

      const half = await creator.agent.ok("confirm_commitment", { commandId: uid("confirm"), commitmentId: c2.id, principalId: creator.id });
      expect(half.commitments[0]).toMatchObject({ state: "awaiting_confirmations", confirmedPrincipalIds: [creator.id] });
      expect(half.events.map((e: any) => e.type)).toEqual(["commitment.confirmation_recorded"]);
      const full = await p2.agent.ok("confirm_commitment", { commandId: uid("confirm"), commitmentId: c2.id, principalId: p2.id });
      expect(full.commitments[0]).toMatchObject({ state: "committed", confirmedPrincipalIds: [creator.id, p2.id] });
      expect(full.events.map((e: any) => e.type)).toEqual(["commitment.confirmation_recorded", "commitment.committed"]);

      // p3 never confirms: its hold expires (a `commitment.expire` command by @system).
      h.advance(holdSeconds * 1000);
      const expired = await waitFor(
        () => p3.agent.ok("get_my_market_outcome", { marketId }),
        (outcome) => outcome.commitments[0]?.state === "expired",
      );
      expect(expired.commitments.map((c: any) => c.id)).toEqual([c3.id]);
      await p3.agent.fails("confirm_commitment", { commandId: uid("confirm"), commitmentId: c3.id, principalId: p3.id }, "invalid_commitment_transition");
      const market = await p1.agent.ok("get_market", { marketId });
      expect(market).toMatchObject({ state: "open", mechanismState: { allocated: 1 } });

      const record = await creator.agent.ok("get_market_record", { marketId });
      expect(record.market).toEqual(market);
      expect(record.commands.map((c: any) => [c.type, c.status, c.identity.actorId])).toEqual([
        ["market.create_draft", "accepted", creator.id],
        ["market.publish", "accepted", creator.id],
        ["direct_claim.submit", "accepted", p1.id],
        ["direct_claim.submit", "accepted", p2.id],
        ["direct_claim.submit", "rejected", p3.id],
        ["commitment.decline", "accepted", p1.id],
        ["direct_claim.submit", "accepted", p3.id],
        ["commitment.confirm", "accepted", creator.id],
        ["commitment.confirm", "accepted", p2.id],
        ["commitment.expire", "accepted", "@system"],
        ["commitment.confirm", "rejected", p3.id],
      ]);
      expect(record.commitments.map((c: any) => [c.id, c.state])).toEqual([
        [c1.id, "declined"],
        [c2.id, "committed"],
        [c3.id, "expired"],
      ]);
      expect(record.integrity).toEqual({ algorithm: "sha256-canonical-json-v1", recordHash: recordHashOf(record), stateReconstructed: true });
    });

    it("sealed auction: bids, close, winner learns and declines, promotion, expiry, promotion, confirm", async () => {
      const { creator, p1, p2, p3 } = casts[kind]!;
      const marketId = uid(`auction-${kind}`);
      const holdSeconds = 600;
      await creator.agent.ok("create_market", {
        commandId: uid("create"),
        marketId,
        principalId: creator.id,
        subject: SUBJECT,
        mechanism: auctionMechanism(h.isoIn(3600_000), { reserveAmountMinor: 1000, holdDurationSeconds: holdSeconds }),
      });
      await creator.agent.ok("publish_market", { commandId: uid("publish"), marketId, principalId: creator.id, expectedVersion: 1 });
      const bids: Record<string, string> = {};
      for (const [who, amountMinor] of [[p1, 5000], [p2, 3000], [p3, 2000]] as const) {
        const placed = await who.agent.ok("submit_sealed_bid", { commandId: uid("bid"), marketId, principalId: who.id, amountMinor, currency: "EUR" });
        bids[who.id] = placed.bidReceipts[0].bidId;
      }
      const open = await p1.agent.ok("get_market", { marketId });
      expect(open).toMatchObject({ state: "open", mechanismState: { bidCount: 3 } });
      expect(open.mechanismState.resolution).toBeUndefined();
      // Nobody learns anything before the close.
      expect((await p1.agent.ok("get_my_market_outcome", { marketId })).commitments).toEqual([]);

      h.advance(3600_000);
      const closed = await waitFor(() => p2.agent.ok("get_market", { marketId }), (m) => m.mechanismState.resolution !== undefined);
      expect(closed).toMatchObject({ state: "closed", mechanismState: { resolution: "winner_selected", winningBidId: bids[p1.id] } });

      // The winner learns its commitment id from its own outcome; the others have none.
      const won = await p1.agent.ok("get_my_market_outcome", { marketId });
      expect(won.bidReceipts.map((r: any) => r.bidId)).toEqual([bids[p1.id]]);
      expect(won.commitments).toHaveLength(1);
      const c1 = won.commitments[0];
      expect(c1).toMatchObject({
        state: "awaiting_confirmations",
        creatorPrincipalId: creator.id,
        participantPrincipalId: p1.id,
        requiredConfirmationPrincipalIds: [p1.id],
        terms: { winningBidId: bids[p1.id], pricing: { rule: "second_price", amountMinor: 3000, currency: "EUR" } },
      });
      expect((await p2.agent.ok("get_my_market_outcome", { marketId })).commitments).toEqual([]);

      // The winner declines: the next eligible bid (p2) is promoted, price recomputed (max(reserve, 2000)).
      const declined = await p1.agent.ok("decline_commitment", { commandId: uid("decline"), commitmentId: c1.id, principalId: p1.id });
      expect(declined.auctionResolution).toEqual({ outcome: "winner_selected", winningBidId: bids[p2.id], winnerPrincipalId: p2.id, clearingPrice: { rule: "second_price", amountMinor: 2000, currency: "EUR" } });
      expect(declined.market.mechanismState).toMatchObject({ resolution: "winner_selected", winningBidId: bids[p2.id], excludedBidIds: [bids[p1.id]] });
      expect(declined.commitments.map((c: any) => [c.participantPrincipalId, c.state])).toEqual([
        [p1.id, "declined"],
        [p2.id, "awaiting_confirmations"],
      ]);
      const c2 = (await p2.agent.ok("get_my_market_outcome", { marketId })).commitments[0];
      expect(c2).toMatchObject({ participantPrincipalId: p2.id, terms: { pricing: { amountMinor: 2000 } } });

      // p2 lets its hold expire: p3 is promoted at the reserve (no other eligible bid left).
      h.advance(holdSeconds * 1000);
      const promoted = await waitFor(
        () => p3.agent.ok("get_my_market_outcome", { marketId }),
        (outcome) => outcome.commitments.length === 1,
      );
      const c3 = promoted.commitments[0];
      expect(c3).toMatchObject({ state: "awaiting_confirmations", terms: { winningBidId: bids[p3.id], pricing: { rule: "second_price", amountMinor: 1000, currency: "EUR" } } });
      expect((await p2.agent.ok("get_my_market_outcome", { marketId })).commitments[0]).toMatchObject({ id: c2.id, state: "expired" });
      const confirmed = await p3.agent.ok("confirm_commitment", { commandId: uid("confirm"), commitmentId: c3.id, principalId: p3.id });
      expect(confirmed.commitments[0]).toMatchObject({ id: c3.id, state: "committed" });

      const record = await creator.agent.ok("get_market_record", { marketId });
      expect(record.market.mechanismState).toMatchObject({ bidCount: 3, resolution: "winner_selected", winningBidId: bids[p3.id], excludedBidIds: [bids[p1.id], bids[p2.id]] });
      expect(record.commands.map((c: any) => c.type)).toEqual([
        "market.create_draft",
        "market.publish",
        "sealed_auction.submit_bid",
        "sealed_auction.submit_bid",
        "sealed_auction.submit_bid",
        "sealed_auction.resolve",
        "commitment.decline",
        "commitment.expire",
        "commitment.confirm",
      ]);
      expect(record.events.filter((e: any) => e.type === "sealed_auction.resolved").map((e: any) => e.data.winnerPrincipalId)).toEqual([p1.id, p2.id, p3.id]);
      expect(record.commitments.map((c: any) => c.state)).toEqual(["declined", "expired", "committed"]);
      expect(record.integrity).toEqual({ algorithm: "sha256-canonical-json-v1", recordHash: recordHashOf(record), stateReconstructed: true });
    });
  });
});
