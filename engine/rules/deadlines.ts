/**
 * Deadlines the shard's timer wheel must act on: an open auction resolves at `closesAt`, an awaiting
 * commitment expires at `expiresAt`. The engine only names them; the shard submits the matching
 * system command when its clock passes `atMs`, through the same path as client commands.
 */
import { SYSTEM_IDENTITY, type ExpireCommitmentCommand, type ResolveAuctionCommand } from "./types/command.js";
import { buildCommand, buildIdentity } from "./types/command-layout.js";
import { type Event, generatedIdOf, SEALED_AUCTION_PRESET } from "@market-service/client/wire";
import type { MarketAggregate } from "./state/state.js";
import { commitmentIndexOf } from "./state/state.js";
import { msOfNormalized as msOf } from "./common/time.js";

export type Deadline =
  | { kind: "auction_close"; marketId: string; atMs: number }
  | { kind: "commitment_expiry"; marketId: string; commitmentId: string; atMs: number };

/** Deadlines created by the events of one accepted command. */
export function deadlinesFromEvents(agg: MarketAggregate, events: readonly Event[]): Deadline[] {
  const deadlines: Deadline[] = [];
  for (const event of events) {
    if (event.type === "market.published" && agg.market.mechanism.presetId === SEALED_AUCTION_PRESET) {
      deadlines.push({ kind: "auction_close", marketId: agg.market.id, atMs: msOf(agg.market.mechanism.config.closesAt) });
    } else if (event.type === "commitment.awaiting_confirmations" && event.data.expiresAt !== undefined) {
      deadlines.push({
        kind: "commitment_expiry",
        marketId: agg.market.id,
        commitmentId: event.data.commitmentId,
        atMs: msOf(event.data.expiresAt),
      });
    }
  }
  return deadlines;
}

/** Every pending deadline of a market, e.g. to rebuild the timer wheel after recovery. */
export function pendingDeadlines(agg: MarketAggregate): Deadline[] {
  const deadlines: Deadline[] = [];
  const market = agg.market;
  if (market.mechanism.presetId === SEALED_AUCTION_PRESET && market.state === "open") {
    deadlines.push({ kind: "auction_close", marketId: market.id, atMs: msOf(market.mechanism.config.closesAt) });
  }
  const table = agg.commitments;
  for (let index = 0; index < table.count; index += 1) {
    const atMs = table.expiresAtMs(index);
    if (atMs === undefined || table.state(index) !== "awaiting_confirmations") continue;
    deadlines.push({ kind: "commitment_expiry", marketId: market.id, commitmentId: generatedIdOf("c", agg.ref, index + 1), atMs });
  }
  return deadlines;
}

/** Whether a scheduled deadline still needs its system command (it may have been overtaken). */
export function isDeadlinePending(agg: MarketAggregate | undefined, deadline: Deadline): boolean {
  if (agg === undefined) return false;
  switch (deadline.kind) {
    case "auction_close":
      return agg.market.mechanism.presetId === SEALED_AUCTION_PRESET && agg.market.state === "open";
    case "commitment_expiry": {
      const index = commitmentIndexOf(agg, deadline.commitmentId);
      return index !== undefined && index < agg.commitments.count && agg.commitments.state(index) === "awaiting_confirmations";
    }
  }
}

/** The system command a deadline calls for, stamped with the shard's time and a deterministic command id. */
export function systemCommandFor(
  deadline: Deadline,
  occurredAtMs: number,
): ResolveAuctionCommand | ExpireCommitmentCommand {
  const identity = buildIdentity(SYSTEM_IDENTITY);
  switch (deadline.kind) {
    case "auction_close":
      return buildCommand("sealed_auction.resolve", { commandId: `resolve:${deadline.marketId}`, identity, occurredAtMs, marketId: deadline.marketId });
    case "commitment_expiry":
      return buildCommand("commitment.expire", { commandId: `expire:${deadline.commitmentId}`, identity, occurredAtMs, commitmentId: deadline.commitmentId });
  }
}
