/** Spec §3.1 market lifecycle: create a draft, publish it. */
import { accept, reject, type Decision, type DomainEvent } from "../decision/decision.js";
import { eventEmitter } from "../decision/emit.js";
import { parseDateTimeMs, isoFromMs } from "../common/time.js";
import type { MarketAggregate } from "../state/state.js";
import type { CreateDraftCommand, PublishCommand } from "../types/command.js";
import { SEALED_AUCTION_PRESET } from "@market-service/client/wire";
import { normalizeMechanism } from "./mechanism-config.js";

export function decideCreateDraft(agg: MarketAggregate | undefined, command: CreateDraftCommand): Decision {
  if (agg !== undefined) {
    return reject("invalid_market_transition", `market ${JSON.stringify(command.marketId)} already exists`);
  }
  const normalized = normalizeMechanism(command.mechanism, command.occurredAtMs);
  if (!normalized.accepted) return normalized;
  const events: DomainEvent[] = [];
  const emit = eventEmitter(undefined, command, command.marketId, 1, events);
  const { principalId, actorId, authorityRef } = command.identity;
  emit("market.draft_created", {
    creator: { principalId, actorId, ...(authorityRef === undefined ? {} : { authorityRef }) },
    subject: command.subject,
    mechanism: normalized.mechanism,
    mechanismState: normalized.initialState,
  });
  return accept(events);
}

export function decidePublish(agg: MarketAggregate | undefined, command: PublishCommand): Decision {
  if (agg === undefined) return reject("market_not_found", `market ${JSON.stringify(command.marketId)} was not found`);
  const market = agg.market;
  if (command.identity.principalId !== market.creator.principalId) {
    return reject("principal_not_authorized", "only the creator principal can publish a market");
  }
  if (market.state !== "draft") {
    return reject("invalid_market_transition", `market is ${market.state}; only a draft can be published`);
  }
  if (command.expectedVersion !== market.version) {
    return reject(
      "version_conflict",
      `expectedVersion ${command.expectedVersion} does not match the current market version ${market.version}`,
    );
  }
  if (market.mechanism.presetId === SEALED_AUCTION_PRESET) {
    const closesAtMs = parseDateTimeMs(market.mechanism.config.closesAt);
    if (closesAtMs === undefined || closesAtMs <= command.occurredAtMs) {
      return reject(
        "invalid_market_transition",
        `the auction closes at ${market.mechanism.config.closesAt}, which is not after the command time ${isoFromMs(command.occurredAtMs)}`,
      );
    }
  }
  const events: DomainEvent[] = [];
  const emit = eventEmitter(agg, command, market.id, market.version + 1, events);
  emit("market.published", { previousState: "draft", state: "open" });
  return accept(events);
}
