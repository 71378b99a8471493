/**
 * One command, start to finish, inside the engine: decide, fold the events, account the record,
 * and shape the reply of spec §2.8. This is what a shard calls for every command, and what replay
 * calls for every logged command, so live state and replayed state cannot differ.
 */
import { assert, assertNever } from "./common/assert.js";
import { decide } from "./decide.js";
import { publicEvent, type Decision, type DomainEvent } from "./decision/decision.js";
import { deadlinesFromEvents, type Deadline } from "./deadlines.js";
import { checkInvariants, evolve } from "./evolve.js";
import { type Commitment, type Event, type MarketActionResult, type MarketResult, parseCommitmentId, type Rejection, type SealedAuctionResolution, type SealedBidReceipt } from "@market-service/client/wire";
import { findCommitment, snapshotMarket, type MarketAggregate } from "./state/state.js";
import type { MarketStorage } from "./state/store.js";
import { isoFromMs } from "./common/time.js";
import type { Command } from "./types/command.js";
import { commandBody } from "./types/command-layout.js";

export type CommandReply =
  | { ok: true; result: MarketResult | MarketActionResult }
  | { ok: false; rejection: Rejection };

export interface CommandOutcome {
  /** The market after the command; a new object only when the command created it. */
  aggregate: MarketAggregate | undefined;
  status: "accepted" | "rejected";
  /** The command's sequence in its market's record; undefined when no market record holds it. */
  recordSequence: number | undefined;
  /** Public events of the command, in record order. */
  events: Event[];
  reply: CommandReply;
  /** Deadlines the command created (auction close, commitment expiry). */
  deadlines: Deadline[];
}

/**
 * The market a command targets: its `marketId`, or the market a commitment id names. Undefined for a
 * commitment id this service cannot have produced.
 */
export function marketIdOfCommand(command: Command): string | undefined {
  return "marketId" in command ? command.marketId : parseCommitmentId(command.commitmentId)?.marketId;
}

/** Whether the command's target exists, which decides whether the market record holds the command. */
function targetExists(agg: MarketAggregate | undefined, command: Command): agg is MarketAggregate {
  if (agg === undefined) return false;
  if ("marketId" in command) return true;
  return findCommitment(agg, command.commitmentId) !== undefined;
}

function changedCommitments(agg: MarketAggregate, events: readonly DomainEvent[]): Commitment[] {
  const ids: string[] = [];
  for (const event of events) {
    if (event.type.startsWith("commitment.") && "commitmentId" in event.data && !ids.includes(event.data.commitmentId)) {
      ids.push(event.data.commitmentId);
    }
  }
  return ids.map((id) => {
    const commitment = findCommitment(agg, id);
    assert(commitment !== undefined, "changed commitments exist");
    return commitment;
  });
}

function resultOf(agg: MarketAggregate, command: Command, events: DomainEvent[], publicEvents: Event[]): MarketResult | MarketActionResult {
  switch (command.type) {
    case "market.create_draft":
    case "market.publish":
      return { market: snapshotMarket(agg.market), events: publicEvents };
    case "direct_claim.submit":
    case "sealed_auction.submit_bid":
    case "sealed_auction.resolve":
    case "commitment.confirm":
    case "commitment.decline":
    case "commitment.expire": {
      const result: MarketActionResult = {
        market: snapshotMarket(agg.market),
        commitments: changedCommitments(agg, events),
        events: publicEvents,
      };
      const receipts: SealedBidReceipt[] = [];
      let resolution: SealedAuctionResolution | undefined;
      for (const event of publicEvents) {
        if (event.type === "sealed_auction.bid_submitted") {
          receipts.push({
            bidId: event.data.bidId,
            marketId: event.marketId,
            marketVersion: event.marketVersion,
            state: "active",
            submittedAt: event.occurredAt,
          });
        } else if (event.type === "sealed_auction.resolved") {
          resolution = event.data;
        }
      }
      if (receipts.length > 0) result.bidReceipts = receipts;
      if (resolution !== undefined) result.auctionResolution = resolution;
      return result;
    }
    default:
      return assertNever(command, "command type");
  }
}

export interface AppliedCommand {
  /** The market after the command; a new object only when the command created it. */
  aggregate: MarketAggregate | undefined;
  /** The command's sequence in its market's record; undefined when no market record holds it. */
  recordSequence: number | undefined;
  decision: Decision;
}

/**
 * Decide and fold one command, and account for it in the market record: everything that changes
 * state, nothing that only shapes a reply. Recovery replays the log through this alone.
 */
export function applyCommand(agg: MarketAggregate | undefined, command: Command, storage: MarketStorage): AppliedCommand {
  const recordable = targetExists(agg, command);
  const decision: Decision =
    command.authorityRejection !== undefined
      ? { accepted: false, rejection: command.authorityRejection }
      : decide(agg, command);
  if (!decision.accepted) {
    if (!recordable) return { aggregate: agg, recordSequence: undefined, decision };
    agg.commandCount += 1;
    return { aggregate: agg, recordSequence: agg.commandCount, decision };
  }
  let next = agg;
  for (const event of decision.events) next = evolve(next, event, storage);
  assert(next !== undefined && decision.events.length > 0, "an accepted command emits events");
  checkInvariants(next);
  next.commandCount += 1;
  return { aggregate: next, recordSequence: next.commandCount, decision };
}

/**
 * The reply of spec §2.8 to a command just applied (`publicEvents`: its decision's events made
 * public, when the caller has them already). `handleCommand` shapes every reply with this, and a
 * recovery the replies of the last commands it replays, for the retries a takeover brings.
 */
export function replyOf(command: Command, applied: AppliedCommand, publicEvents?: Event[]): CommandReply {
  const { aggregate, decision } = applied;
  if (!decision.accepted) return { ok: false, rejection: decision.rejection };
  assert(aggregate !== undefined, "an accepted command leaves a market");
  return { ok: true, result: resultOf(aggregate, command, decision.events, publicEvents ?? decision.events.map(publicEvent)) };
}

/**
 * Handle one command against the market it targets (undefined when that market does not exist):
 * apply it, then shape the public events, the reply of spec §2.8 and the deadlines it created.
 */
export function handleCommand(agg: MarketAggregate | undefined, command: Command, storage: MarketStorage): CommandOutcome {
  const applied = applyCommand(agg, command, storage);
  const { aggregate, recordSequence, decision } = applied;
  if (!decision.accepted) {
    return { aggregate, status: "rejected", recordSequence, events: [], reply: replyOf(command, applied), deadlines: [] };
  }
  assert(aggregate !== undefined, "an accepted command leaves a market");
  const publicEvents = decision.events.map(publicEvent);
  return {
    aggregate,
    status: "accepted",
    recordSequence,
    events: publicEvents,
    reply: replyOf(command, applied, publicEvents),
    deadlines: deadlinesFromEvents(aggregate, publicEvents),
  };
}

/** The command as the record shows it: the application command with server identity and time. */
export function recordedRequestOf(command: Command): Record<string, unknown> {
  const request = commandBody(command);
  const { principalId, actorId, authorityRef } = command.identity;
  request["principalId"] = principalId;
  request["actorId"] = actorId;
  if (authorityRef !== undefined) request["authorityRef"] = authorityRef;
  request["occurredAt"] = isoFromMs(command.occurredAtMs);
  return request;
}
