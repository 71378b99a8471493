/**
 * The one fold of a log of market commands: each logged command decided and applied through the
 * rules into its market (kept in engine/store's storage), and its position appended to the record
 * of the market that holds it. Recovery, `replay`, `verify`, record rendering and the benches all
 * fold through this, so live, recovered and audited state cannot differ.
 */
import { applyCommand, marketIdOfCommand, type AppliedCommand } from "./rules/handle-command.js";
import type { MarketAggregate } from "./rules/state/state.js";
import type { Command } from "./rules/types/command.js";
import { tableStorage } from "./store/market-storage.js";

/** A market as a shard keeps it: its state and the journal positions of its record's commands, in order. */
export interface ShardMarket {
  agg: MarketAggregate;
  positions: number[];
}

export class LogFold {
  /** The markets in the order they were created. */
  readonly markets = new Map<string, ShardMarket>();
  /** The latest command time seen (a shard never stamps an earlier one after it). */
  lastStampMs = 0;

  /**
   * Applies one logged command at `position`. Returns what the rules decided, and the market whose
   * record now holds the command (undefined when no record does: a command for a missing market).
   */
  apply(command: Command, position: number): { applied: AppliedCommand; market: ShardMarket | undefined } {
    const marketId = marketIdOfCommand(command);
    const entry = marketId === undefined ? undefined : this.markets.get(marketId);
    const applied = applyCommand(entry?.agg, command, tableStorage);
    if (command.occurredAtMs > this.lastStampMs) this.lastStampMs = command.occurredAtMs;
    if (applied.recordSequence === undefined) return { applied, market: undefined };
    const market = entry ?? this.adopt(applied.aggregate);
    market.positions.push(position);
    if (market.positions.length !== applied.recordSequence) {
      throw new Error(`log replay diverged: market ${market.agg.market.id} record sequence ${applied.recordSequence} at position ${position}`);
    }
    return { applied, market };
  }

  /** Takes a market the rules just created into the fold. */
  adopt(agg: MarketAggregate | undefined): ShardMarket {
    if (agg === undefined) throw new Error("an accepted command leaves a market");
    const market: ShardMarket = { agg, positions: [] };
    this.markets.set(agg.market.id, market);
    return market;
  }
}
