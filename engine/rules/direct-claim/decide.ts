/** Spec §3.2 and decision 2: first-come direct claims against a capacity. */
import { accept, reject, type Decision, type DomainEvent } from "../decision/decision.js";
import { eventEmitter } from "../decision/emit.js";
import { NO_PRINCIPALS, requiredConfirmations } from "../state/confirmations.js";
import { DIRECT_CLAIM_PRESET, type DirectClaimState, generatedIdOf } from "@market-service/client/wire";
import { addSeconds, isoFromMs } from "../common/time.js";
import { hasPrincipal, type MarketAggregate } from "../state/state.js";
import type { DirectClaimCommand } from "../types/command.js";
import { assert } from "../common/assert.js";

export function decideDirectClaim(agg: MarketAggregate | undefined, command: DirectClaimCommand): Decision {
  if (agg === undefined) return reject("market_not_found", `market ${JSON.stringify(command.marketId)} was not found`);
  const market = agg.market;
  if (market.mechanism.presetId !== DIRECT_CLAIM_PRESET) {
    return reject("invalid_market_transition", `market uses ${market.mechanism.presetId}; it does not accept direct claims`);
  }
  const principalId = command.identity.principalId;
  if (principalId === market.creator.principalId) {
    return reject("principal_not_authorized", "the creator principal cannot claim in its own market");
  }
  if (market.state === "draft") {
    return reject("invalid_market_transition", "market is a draft; it accepts claims once published");
  }
  const expectedVersion = command.expectedVersion ?? 0;
  if (expectedVersion !== 0 && expectedVersion !== market.version) {
    return reject(
      "version_conflict",
      `expectedVersion ${expectedVersion} does not match the current market version ${market.version}`,
    );
  }
  if (hasPrincipal(agg, principalId)) {
    return reject("invalid_market_transition", "principal already holds an active commitment in this market");
  }
  const config = market.mechanism.config;
  const allocated = (market.mechanismState as DirectClaimState).allocated;
  assert(allocated <= config.capacity, "allocated never exceeds capacity");
  if (allocated === config.capacity) {
    assert(market.state === "closed", "a market at capacity is closed");
    return reject("capacity_exhausted", `all ${config.capacity} units of capacity are allocated`);
  }
  assert(market.state === "open", "a direct-claim market below capacity is open");

  const events: DomainEvent[] = [];
  const emit = eventEmitter(agg, command, market.id, market.version + 1, events);
  const commitmentId = generatedIdOf("c", agg.ref, agg.commitments.count + 1);
  emit("direct_claim.accepted", { commitmentId, allocated: allocated + 1, capacity: config.capacity });
  const required = requiredConfirmations(config.confirmation, market.creator.principalId, principalId);
  if (config.confirmation === "none") {
    emit("commitment.committed", {
      commitmentId,
      state: "committed",
      requiredConfirmationPrincipalIds: required,
      confirmedPrincipalIds: NO_PRINCIPALS,
    });
  } else {
    emit("commitment.awaiting_confirmations", {
      commitmentId,
      state: "awaiting_confirmations",
      requiredConfirmationPrincipalIds: required,
      confirmedPrincipalIds: NO_PRINCIPALS,
      expiresAt: isoFromMs(addSeconds(command.occurredAtMs, config.holdDurationSeconds)),
    });
  }
  return accept(events);
}
