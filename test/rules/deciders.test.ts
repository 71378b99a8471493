/**
 * Each mechanism's rules, read as given / when / then beside the spec (§3: states and transitions).
 * The detailed cases live in test/engine/ (the same rules through a small shard); these show each
 * decider's main transitions and refusals in the form a newcomer reads first.
 */
import { describe, it } from "vitest";
import type { Command } from "../../engine/rules/types/command.js";
import type { CommandIdentity, UncheckedMechanismSelection } from "@market-service/client/wire";
import type { AnyIdentityCommand } from "../../engine/rules/identity/types.js";
import { isoFromMs } from "../../engine/rules/common/time.js";
import { SYSTEM_IDENTITY } from "../../engine/rules/types/command.js";
import { generateKeyPair } from "@market-service/client";
import { givenIdentities, givenMarket } from "./decider-specification.js";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const as = (principalId: string): CommandIdentity => ({ principalId, actorId: principalId });
let ids = 0;
const id = (prefix: string) => `${prefix}-${++ids}`;

const create = (creator: string, marketId: string, mechanism: UncheckedMechanismSelection, atMs = T0): Command => ({
  type: "market.create_draft", commandId: id("create"), identity: as(creator), occurredAtMs: atMs, marketId,
  subject: { schema: "table.v1", data: { seats: 4 } }, mechanism,
});
const publish = (creator: string, marketId: string, atMs = T0): Command => ({
  type: "market.publish", commandId: id("publish"), identity: as(creator), occurredAtMs: atMs, marketId, expectedVersion: 1,
});
const claim = (who: string, marketId: string, atMs = T0 + 1_000): Command => ({
  type: "direct_claim.submit", commandId: id("claim"), identity: as(who), occurredAtMs: atMs, marketId,
});
const bid = (who: string, marketId: string, amountMinor: number, atMs = T0 + 1_000): Command => ({
  type: "sealed_auction.submit_bid", commandId: id("bid"), identity: as(who), occurredAtMs: atMs, marketId, amountMinor, currency: "EUR",
});
const resolve = (marketId: string, atMs: number): Command => ({
  type: "sealed_auction.resolve", commandId: id("resolve"), identity: SYSTEM_IDENTITY, occurredAtMs: atMs, marketId,
});
const confirm = (who: string, commitmentId: string, atMs = T0 + 2_000): Command => ({
  type: "commitment.confirm", commandId: id("confirm"), identity: as(who), occurredAtMs: atMs, commitmentId,
});
const decline = (who: string, commitmentId: string, atMs = T0 + 2_000): Command => ({
  type: "commitment.decline", commandId: id("decline"), identity: as(who), occurredAtMs: atMs, commitmentId,
});
const expire = (commitmentId: string, atMs: number): Command => ({
  type: "commitment.expire", commandId: id("expire"), identity: SYSTEM_IDENTITY, occurredAtMs: atMs, commitmentId,
});

const directClaim = (capacity: number, confirmation: "none" | "participant" = "none"): UncheckedMechanismSelection => ({
  presetId: "direct-claim.v1",
  config: { capacity, pricing: { mode: "free" }, confirmation, ...(confirmation === "none" ? {} : { holdDurationSeconds: 60 }) },
});
const CLOSES_AT_MS = T0 + 60_000;
const auction: UncheckedMechanismSelection = {
  presetId: "sealed-forward-auction.v1",
  config: { currency: "EUR", closesAt: isoFromMs(CLOSES_AT_MS), holdDurationSeconds: 60, reserveAmountMinor: 100 },
};
/** The first commitment of market `m1` (commitment ids name their market: decision D1). */
const FIRST = "c.bTE.1";

describe("market lifecycle (spec §3.1)", () => {
  it("given nothing, when a draft is created, then market.draft_created", () => {
    givenMarket([]).when(create("alice", "m1", directClaim(1))).then([{ type: "market.draft_created" }]);
  });
  it("given a draft, when another principal publishes it, then principal_not_authorized", () => {
    givenMarket([create("alice", "m1", directClaim(1))]).when(publish("bob", "m1")).thenRejects("principal_not_authorized");
  });
  it("given a draft, when its creator publishes it, then market.published", () => {
    givenMarket([create("alice", "m1", directClaim(1))]).when(publish("alice", "m1")).then([{ type: "market.published" }]);
  });
});

describe("direct claim (spec §3.1, §3.2)", () => {
  const open = [create("alice", "m1", directClaim(1)), publish("alice", "m1")];
  it("given an open market with capacity, when a principal claims, then the unit is allocated and the commitment committed", () => {
    givenMarket(open)
      .when(claim("bob", "m1"))
      .then([{ type: "direct_claim.accepted", data: { allocated: 1, capacity: 1 } }, { type: "commitment.committed", data: { commitmentId: FIRST } }]);
  });
  it("given its only unit claimed, when another principal claims, then capacity_exhausted", () => {
    givenMarket([...open, claim("bob", "m1")]).when(claim("carol", "m1")).thenRejects("capacity_exhausted");
  });
  it("given an open market, when its creator claims, then principal_not_authorized", () => {
    givenMarket(open).when(claim("alice", "m1")).thenRejects("principal_not_authorized");
  });
  it("given a draft, when a principal claims, then invalid_market_transition", () => {
    givenMarket([create("alice", "m1", directClaim(1))]).when(claim("bob", "m1")).thenRejects("invalid_market_transition");
  });
});

describe("commitments (spec §3.2)", () => {
  const awaiting = [create("alice", "m1", directClaim(1, "participant")), publish("alice", "m1"), claim("bob", "m1")];
  it("given a claim awaiting its participant, when the participant confirms, then it is committed", () => {
    givenMarket(awaiting).when(confirm("bob", FIRST)).then([{ type: "commitment.confirmation_recorded" }, { type: "commitment.committed" }]);
  });
  it("given a claim awaiting its participant, when the participant declines, then it is declined and the unit returns", () => {
    givenMarket(awaiting).when(decline("bob", FIRST)).then([{ type: "commitment.declined", data: { state: "declined" } }]);
  });
  it("given a claim awaiting its participant, when the hold has not passed, then the service cannot expire it yet", () => {
    givenMarket(awaiting).when(expire(FIRST, T0 + 30_000)).thenRejects("invalid_commitment_transition");
  });
  it("given a claim awaiting its participant, when the hold has passed, then the service expires it", () => {
    givenMarket(awaiting).when(expire(FIRST, T0 + 1_000 + 60_000)).then([{ type: "commitment.expired" }]);
  });
  it("given a commitment already committed, when it is confirmed again, then invalid_commitment_transition", () => {
    givenMarket([...awaiting, confirm("bob", FIRST)]).when(confirm("bob", FIRST, T0 + 3_000)).thenRejects("invalid_commitment_transition");
  });
});

describe("sealed second-price auction (spec §2.7, §3.1)", () => {
  const open = [create("alice", "m1", auction), publish("alice", "m1")];
  it("given an open auction, when a principal bids, then a bid is recorded (its amount stays private)", () => {
    givenMarket(open).when(bid("bob", "m1", 300)).then([{ type: "sealed_auction.bid_submitted", data: { bidCount: 1 } }]);
  });
  it("given a bid, when the same principal bids again, then invalid_market_transition (no replacing a bid)", () => {
    givenMarket([...open, bid("bob", "m1", 300)]).when(bid("bob", "m1", 400)).thenRejects("invalid_market_transition");
  });
  it("given two bids, when the auction closes, then the highest bidder wins at the second price and must confirm", () => {
    givenMarket([...open, bid("bob", "m1", 300), bid("carol", "m1", 200)])
      .when(resolve("m1", CLOSES_AT_MS))
      .then([
        { type: "sealed_auction.resolved", data: { outcome: "winner_selected", winnerPrincipalId: "bob", clearingPrice: { amountMinor: 200, currency: "EUR" } } },
        { type: "commitment.awaiting_confirmations", data: { commitmentId: FIRST, requiredConfirmationPrincipalIds: ["bob"] } },
      ]);
  });
  it("given no bid, when the auction closes, then no trade", () => {
    givenMarket(open).when(resolve("m1", CLOSES_AT_MS)).then([{ type: "sealed_auction.resolved", data: { outcome: "no_trade" } }]);
  });
  it("given an open auction, when anyone but the service resolves it, then actor_not_authorized", () => {
    givenMarket(open).when({ ...resolve("m1", CLOSES_AT_MS), identity: as("alice") }).thenRejects("actor_not_authorized");
  });
  it("given a winner, when the winner declines, then the next bid is promoted", () => {
    givenMarket([...open, bid("bob", "m1", 300), bid("carol", "m1", 200), resolve("m1", CLOSES_AT_MS)])
      .when(decline("bob", FIRST, CLOSES_AT_MS + 1_000))
      .then([
        { type: "commitment.declined" },
        { type: "sealed_auction.resolved", data: { outcome: "winner_selected", winnerPrincipalId: "carol" } },
        { type: "commitment.awaiting_confirmations", data: { commitmentId: "c.bTE.2" } },
      ]);
  });
});

describe("identities and delegations (spec §5)", () => {
  const meta = (actorId: string, atMs = T0) => ({ commandId: id("identity"), actorId, atMs });
  const provision = (principalId: string): AnyIdentityCommand => ({
    type: "identity.provision",
    meta: meta("operator"),
    args: { principalId, actorId: principalId, keyId: `${principalId}-key-1`, publicKey: generateKeyPair().publicKey },
  });
  const delegate = (principalId: string, delegateActorId: string, delegationId = "d-1"): AnyIdentityCommand => ({
    type: "delegation.issue",
    meta: meta(principalId),
    args: { delegationId, principalId, delegateActorId, scopes: ["market:claim"] },
  });
  const revoke = (principalId: string, delegationId = "d-1"): AnyIdentityCommand => ({
    type: "delegation.revoke",
    meta: meta(principalId, T0 + 1_000),
    args: { delegationId, principalId },
  });
  it("given nothing, when an operator provisions a principal, then its principal, actor and key exist", () => {
    givenIdentities([]).when(provision("alice")).then([{ type: "identity.provisioned" }]);
  });
  it("given a provisioned principal, when its id is provisioned with other key material, then identity_conflict", () => {
    givenIdentities([provision("alice")]).when(provision("alice")).thenRejects("identity_conflict");
  });
  it("given two principals, when one delegates claims to the other's actor, then delegation.issued", () => {
    givenIdentities([provision("alice"), provision("erin")]).when(delegate("alice", "erin")).then([{ type: "delegation.issued" }]);
  });
  it("given a delegation, when its principal revokes it twice, then the second is delegation_conflict", () => {
    givenIdentities([provision("alice"), provision("erin"), delegate("alice", "erin"), revoke("alice")]).when(revoke("alice")).thenRejects("delegation_conflict");
  });
  it("given no such actor, when a delegation names it, then identity_not_found", () => {
    givenIdentities([provision("alice")]).when(delegate("alice", "ghost")).thenRejects("identity_not_found");
  });
});
