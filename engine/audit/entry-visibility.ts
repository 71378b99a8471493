/**
 * Who may see a log entry's payload next to its inclusion proof (docs/decisions.md I34; the record's
 * rules, spec §2.10 and decision 6): the same people who may see the command in a market record,
 * and the command's own submitter.
 *
 * - A head entry: anyone (a signed head is public).
 * - A command: its actor or its principal (identity.actorId / identity.principalId: the reader is
 *   named by either); otherwise the creator of its market (the creating actor or principal), except
 *   a sealed bid of someone else while the market's auction is not resolved: no sealed amount is
 *   revealed while an auction is open, to its creator neither (the record redacts it too).
 * - Anything else (a system command, a command of a market that does not exist): nobody but its
 *   actor and principal.
 */
import { marketIdOfCommand } from "../rules/handle-command.js";
import { SEALED_AUCTION_PRESET, type Market, type SealedAuctionState } from "@market-service/client/wire";
import type { Command } from "../rules/types/command.js";
import type { LogEntry } from "../log/logged-head.js";

/** What the rule needs of the entry's market, as it is now. */
export interface MarketFacts {
  readonly creatorActorId: string;
  readonly creatorPrincipalId: string;
  /** A sealed auction whose resolution is not yet recorded. */
  readonly bidsSealed: boolean;
}

export function marketFactsOf(market: Market): MarketFacts {
  const sealed = market.mechanism.presetId === SEALED_AUCTION_PRESET && (market.mechanismState as SealedAuctionState).resolution === undefined;
  return { creatorActorId: market.creator.actorId, creatorPrincipalId: market.creator.principalId, bidsSealed: sealed };
}

/**
 * Whether `readerId` sees the entry without knowing its market ("visible"), may see it as the
 * market's creator (the market's id: ask `visibleToCreator` with its facts), or does not ("hidden").
 */
export function entryVisibility(entry: LogEntry, readerId: string): "visible" | "hidden" | { marketId: string } {
  if (entry.kind === "head") return "visible";
  const command = entry.logged.c;
  if (command.identity.actorId === readerId || command.identity.principalId === readerId) return "visible";
  const marketId = marketIdOfCommand(command);
  return marketId === undefined ? "hidden" : { marketId };
}

/** Whether the creator check lets `readerId` see `command`, given its market's facts (undefined: no such market). */
export function visibleToCreator(command: Command, readerId: string, market: MarketFacts | undefined): boolean {
  if (market === undefined) return false;
  if (readerId !== market.creatorActorId && readerId !== market.creatorPrincipalId) return false;
  return !(command.type === "sealed_auction.submit_bid" && market.bidsSealed);
}
