/**
 * The market record (spec §2.10) is a pure function of the commands the market's record holds: replay
 * them through the same handler the shard uses, render each as a RecordedCommand, and hash the view.
 * A shard therefore keeps only the commands, not their events, and the record is always reproducible.
 */
import { assert } from "./rules/common/assert.js";
import { canonicalHash, RECORD_HASH_ALGORITHM } from "./canonical-hash.js";
import { plainDeepEqual } from "./plain-equal.js";
import { evolve, checkInvariants } from "./rules/evolve.js";
import { publicEvent } from "./rules/decision/decision.js";
import { LogFold } from "./log-fold.js";
import { marketIdOfCommand, recordedRequestOf } from "./rules/handle-command.js";
import { commitmentsOf, type MarketAggregate } from "./rules/state/state.js";
import { isoFromMs } from "./rules/common/time.js";
import type { Command } from "./rules/types/command.js";
import { type Commitment, type Event, type Market, type MarketRecord, type RecordedCommand, SEALED_AUCTION_PRESET, type SealedAuctionState } from "@market-service/client/wire";
import { tableStorage } from "./store/market-storage.js";

export interface ReplayedMarket {
  aggregate: MarketAggregate;
  commands: RecordedCommand[];
  events: Event[];
}

/**
 * Re-run a market's recorded commands from nothing. Throws if they do not form a market record.
 * Through `applyCommand`, the part of `handleCommand` that changes state: a record needs each
 * command's status, rejection code and public events, not the reply a client was sent (which
 * renders the market and the changed commitments for every command).
 */
export function replayMarket(commands: readonly Command[]): ReplayedMarket {
  const fold = new LogFold();
  let agg: MarketAggregate | undefined;
  const recorded: RecordedCommand[] = [];
  const events: Event[] = [];
  for (const command of commands) {
    // The record's own sequence stands in for a position: the fold checks each command lands there.
    const { applied, market } = fold.apply(command, recorded.length + 1);
    const { recordSequence, decision } = applied;
    agg = market?.agg;
    assert(agg !== undefined, "a market record starts with the command that created the market");
    assert(recordSequence === recorded.length + 1, "recorded commands replay into their own record");
    const occurredAt = isoFromMs(command.occurredAtMs);
    recorded.push({
      sequence: recordSequence,
      id: command.commandId,
      type: command.type,
      marketId: marketIdOfCommand(command) ?? "",
      identity: command.identity,
      request: recordedRequestOf(command),
      status: decision.accepted ? "accepted" : "rejected",
      ...(decision.accepted ? {} : { rejectionCode: decision.rejection.code }),
      occurredAt,
      // The shard stamps one time per command when it is decided and appended (docs/decisions.md).
      recordedAt: occurredAt,
    });
    if (decision.accepted) for (const event of decision.events) events.push(publicEvent(event));
  }
  assert(agg !== undefined, "a market record has at least one command");
  return { aggregate: agg, commands: recorded, events };
}

/** Bid amounts stay private until the auction is resolved (decision 6). */
function bidsAreSealed(agg: MarketAggregate): boolean {
  const market = agg.market;
  return market.mechanism.presetId === SEALED_AUCTION_PRESET && (market.mechanismState as SealedAuctionState).resolution === undefined;
}

function redactSealedBids(commands: RecordedCommand[]): RecordedCommand[] {
  return commands.map((command) =>
    command.type === "sealed_auction.submit_bid" ? { ...command, request: { sealed: true } } : command,
  );
}

interface PublicState {
  market: Market;
  commitments: Commitment[];
}

/** The public state a list of events folds to; undefined when the events do not fold. */
function foldPublicState(events: readonly Event[]): PublicState | undefined {
  let agg: MarketAggregate | undefined;
  try {
    for (const event of events) agg = evolve(agg, event, tableStorage);
    if (agg === undefined) return undefined;
    checkInvariants(agg);
  } catch {
    return undefined; // an event stream that does not fold is simply not a reconstruction
  }
  return { market: agg.market, commitments: commitmentsOf(agg) };
}

/**
 * Build the record view and its integrity block. `live` is the shard's in-memory market (possibly
 * restored from a snapshot): `stateReconstructed` is true only when folding the record's events
 * reproduces both the replayed state and the live state.
 */
export function buildMarketRecord(commands: readonly Command[], live?: MarketAggregate): MarketRecord {
  const replayed = replayMarket(commands);
  const agg = replayed.aggregate;
  const commitments = commitmentsOf(agg);
  const view = {
    market: agg.market,
    commands: bidsAreSealed(agg) ? redactSealedBids(replayed.commands) : replayed.commands,
    commitments,
    events: replayed.events,
  };
  // Structural comparison (key order irrelevant, -0 ≠ 0): the same verdict as comparing canonical
  // JSON, without rendering the whole state three times.
  const replayedState: PublicState = { market: agg.market, commitments };
  const foldedState = foldPublicState(replayed.events);
  const liveState: PublicState = live === undefined ? replayedState : { market: live.market, commitments: commitmentsOf(live) };
  return {
    ...view,
    integrity: {
      algorithm: RECORD_HASH_ALGORITHM,
      recordHash: canonicalHash(view),
      stateReconstructed: plainDeepEqual(foldedState, replayedState) && plainDeepEqual(liveState, replayedState),
    },
  };
}

/** Recompute a record's hash from its content, as an auditor would. */
export function recomputeRecordHash(record: Pick<MarketRecord, "market" | "commands" | "commitments" | "events">): string {
  return canonicalHash({
    market: record.market,
    commands: record.commands,
    commitments: record.commitments,
    events: record.events,
  });
}
