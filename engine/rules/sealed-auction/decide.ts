/** Spec §2.7, §3.1 and decision 4: sealed bids, resolution at close, winner promotion. */
import { accept, reject, type Decision, type DomainEvent } from "../decision/decision.js";
import { eventEmitter, type Emit } from "../decision/emit.js";
import { type Commitment, generatedIdOf, SEALED_AUCTION_PRESET, type SealedAuctionConfig, type SealedAuctionState } from "@market-service/client/wire";
import { addSeconds, isoFromMs, parseDateTimeMs } from "../common/time.js";
import { assert } from "../common/assert.js";
import { hasPrincipal, type MarketAggregate } from "../state/state.js";
import type { Command, ResolveAuctionCommand, SubmitBidCommand } from "../types/command.js";
import { SYSTEM_IDENTITY } from "../types/command.js";
import { resolveSecondPrice } from "./second-price.js";
import { NO_PRINCIPALS } from "../state/confirmations.js";

function closesAtMsOf(config: SealedAuctionConfig): number {
  const closesAtMs = parseDateTimeMs(config.closesAt);
  assert(closesAtMs !== undefined, "a stored closesAt is normalized");
  return closesAtMs;
}

export function decideSubmitBid(agg: MarketAggregate | undefined, command: SubmitBidCommand): Decision {
  if (agg === undefined) return reject("market_not_found", `market ${JSON.stringify(command.marketId)} was not found`);
  const market = agg.market;
  if (market.mechanism.presetId !== SEALED_AUCTION_PRESET) {
    return reject("invalid_market_transition", `market uses ${market.mechanism.presetId}; it does not accept sealed bids`);
  }
  const principalId = command.identity.principalId;
  if (principalId === market.creator.principalId) {
    return reject("principal_not_authorized", "the creator principal cannot bid in its own auction");
  }
  if (market.state !== "open") {
    return reject("invalid_market_transition", `market is ${market.state}; bids are accepted while it is open`);
  }
  const config = market.mechanism.config;
  if (command.occurredAtMs >= closesAtMsOf(config)) {
    return reject("invalid_market_transition", `the auction closed at ${config.closesAt}`);
  }
  if (command.currency !== config.currency) {
    return reject("invalid_command", `bid currency must be the auction currency ${config.currency}`);
  }
  if (hasPrincipal(agg, principalId)) {
    return reject("invalid_market_transition", "principal already has an active bid; bids cannot be replaced");
  }
  const events: DomainEvent[] = [];
  const emit = eventEmitter(agg, command, market.id, market.version + 1, events);
  const state = market.mechanismState as SealedAuctionState;
  const bidEvent = emit("sealed_auction.bid_submitted", {
    bidId: generatedIdOf("b", agg.ref, agg.bids.length + 1),
    bidCount: state.bidCount + 1,
  });
  // The amount rides privately on the domain event; publicEvent() strips it from every view.
  events[events.length - 1] = { ...bidEvent, sealedBid: { amountMinor: command.amountMinor, currency: command.currency } };
  return accept(events);
}

/** Emits the resolution and, when there is a winner, the winner's commitment awaiting confirmation. */
function emitResolution(agg: MarketAggregate, command: Command, emit: Emit, excludedBidIds: readonly string[]): void {
  const market = agg.market;
  assert(market.mechanism.presetId === SEALED_AUCTION_PRESET, "resolution only in auctions");
  const config = market.mechanism.config;
  const resolution = resolveSecondPrice(agg.bids, excludedBidIds, config);
  emit("sealed_auction.resolved", resolution);
  if (resolution.outcome === "winner_selected") {
    emit("commitment.awaiting_confirmations", {
      commitmentId: generatedIdOf("c", agg.ref, agg.commitments.count + 1),
      state: "awaiting_confirmations",
      requiredConfirmationPrincipalIds: [resolution.winnerPrincipalId],
      confirmedPrincipalIds: NO_PRINCIPALS,
      expiresAt: isoFromMs(addSeconds(command.occurredAtMs, config.holdDurationSeconds)),
    });
  }
}

export function decideResolve(agg: MarketAggregate | undefined, command: ResolveAuctionCommand): Decision {
  if (command.identity.actorId !== SYSTEM_IDENTITY.actorId) {
    return reject("actor_not_authorized", "auctions are resolved by the service at closesAt");
  }
  if (agg === undefined) return reject("market_not_found", `market ${JSON.stringify(command.marketId)} was not found`);
  const market = agg.market;
  if (market.mechanism.presetId !== SEALED_AUCTION_PRESET) {
    return reject("invalid_market_transition", `market uses ${market.mechanism.presetId}; it has no auction to resolve`);
  }
  if (market.state !== "open") {
    return reject("invalid_market_transition", `market is ${market.state}; only an open auction is resolved`);
  }
  if (command.occurredAtMs < closesAtMsOf(market.mechanism.config)) {
    return reject("invalid_market_transition", `the auction closes at ${market.mechanism.config.closesAt}`);
  }
  const events: DomainEvent[] = [];
  const emit = eventEmitter(agg, command, market.id, market.version + 1, events);
  emitResolution(agg, command, emit, []);
  return accept(events);
}

/**
 * After the winner's commitment is declined or expires: its bid is excluded and the next eligible
 * bid is promoted (a new `sealed_auction.resolved` and a new commitment), or `no_trade`.
 */
export function emitWinnerReleased(agg: MarketAggregate, command: Command, emit: Emit, released: Commitment): void {
  assert("winningBidId" in released.terms, "an auction commitment names its winning bid");
  const state = agg.market.mechanismState as SealedAuctionState;
  emitResolution(agg, command, emit, [...(state.excludedBidIds ?? []), released.terms.winningBidId]);
}
