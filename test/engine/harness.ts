/**
 * A tiny in-memory "shard" for engine tests: routes each command to its market exactly as the
 * runtime does, keeps each market's recorded commands, and advances a test clock. No mocks: it is
 * the real engine.
 */
import {
  buildMarketRecord,
  handleCommand,
  marketIdOfCommand,
  type Command,
  type CommandIdentity,
  type CommandOutcome,
  type MarketAggregate,
  type MarketRecord,
  type UncheckedMechanismSelection,
  type Subject,
} from "../../engine/index.js";
import { tableStorage } from "../../engine/store/market-storage.js";

export const T0 = Date.parse("2026-03-01T12:00:00.000Z");

export const self = (principalId: string): CommandIdentity => ({ principalId, actorId: principalId });

export const SUBJECT: Subject = { schema: "table-booking.v1", data: { venue: "Harbour", seats: 4 } };

export function directClaim(config: Record<string, unknown>): UncheckedMechanismSelection {
  return { presetId: "direct-claim.v1", config };
}

export function auction(config: Record<string, unknown>): UncheckedMechanismSelection {
  return { presetId: "sealed-forward-auction.v1", config };
}

export class Harness {
  readonly markets = new Map<string, MarketAggregate>();
  readonly recorded = new Map<string, Command[]>();
  readonly unrecorded: Command[] = [];
  nowMs = T0;
  private counter = 0;

  nextCommandId(): string {
    this.counter += 1;
    return `cmd-${this.counter}`;
  }

  advance(ms: number): void {
    this.nowMs += ms;
  }

  run(command: Command): CommandOutcome {
    const marketId = marketIdOfCommand(command);
    const before = marketId === undefined ? undefined : this.markets.get(marketId);
    const outcome = handleCommand(before, command, tableStorage);
    if (outcome.aggregate !== undefined && marketId !== undefined) this.markets.set(marketId, outcome.aggregate);
    if (outcome.recordSequence !== undefined && marketId !== undefined) {
      const list = this.recorded.get(marketId) ?? [];
      list.push(command);
      this.recorded.set(marketId, list);
    } else {
      this.unrecorded.push(command);
    }
    return outcome;
  }

  market(marketId: string): MarketAggregate {
    const agg = this.markets.get(marketId);
    if (agg === undefined) throw new Error(`no market ${marketId}`);
    return agg;
  }

  record(marketId: string): MarketRecord {
    return buildMarketRecord(this.recorded.get(marketId) ?? [], this.market(marketId));
  }

  // ---- command builders (time = the harness clock unless given) ----

  create(
    principalId: string,
    marketId: string,
    mechanism: UncheckedMechanismSelection,
    extra: { identity?: CommandIdentity; subject?: Subject } = {},
  ): CommandOutcome {
    return this.run({
      type: "market.create_draft",
      commandId: this.nextCommandId(),
      identity: extra.identity ?? self(principalId),
      occurredAtMs: this.nowMs,
      marketId,
      subject: extra.subject ?? SUBJECT,
      mechanism,
    });
  }

  publish(principalId: string, marketId: string, expectedVersion = 1): CommandOutcome {
    return this.run({
      type: "market.publish",
      commandId: this.nextCommandId(),
      identity: self(principalId),
      occurredAtMs: this.nowMs,
      marketId,
      expectedVersion,
    });
  }

  claim(principalId: string, marketId: string, expectedVersion?: number): CommandOutcome {
    return this.run({
      type: "direct_claim.submit",
      commandId: this.nextCommandId(),
      identity: self(principalId),
      occurredAtMs: this.nowMs,
      marketId,
      ...(expectedVersion === undefined ? {} : { expectedVersion }),
    });
  }

  bid(principalId: string, marketId: string, amountMinor: number, currency = "EUR"): CommandOutcome {
    return this.run({
      type: "sealed_auction.submit_bid",
      commandId: this.nextCommandId(),
      identity: self(principalId),
      occurredAtMs: this.nowMs,
      marketId,
      amountMinor,
      currency,
    });
  }

  resolve(marketId: string, identity: CommandIdentity = { principalId: "@system", actorId: "@system" }): CommandOutcome {
    return this.run({
      type: "sealed_auction.resolve",
      commandId: `resolve:${marketId}:${this.nextCommandId()}`,
      identity,
      occurredAtMs: this.nowMs,
      marketId,
    });
  }

  confirm(principalId: string, commitmentId: string): CommandOutcome {
    return this.run({
      type: "commitment.confirm",
      commandId: this.nextCommandId(),
      identity: self(principalId),
      occurredAtMs: this.nowMs,
      commitmentId,
    });
  }

  decline(principalId: string, commitmentId: string): CommandOutcome {
    return this.run({
      type: "commitment.decline",
      commandId: this.nextCommandId(),
      identity: self(principalId),
      occurredAtMs: this.nowMs,
      commitmentId,
    });
  }

  expire(commitmentId: string, identity: CommandIdentity = { principalId: "@system", actorId: "@system" }): CommandOutcome {
    return this.run({
      type: "commitment.expire",
      commandId: `expire:${commitmentId}:${this.nextCommandId()}`,
      identity,
      occurredAtMs: this.nowMs,
      commitmentId,
    });
  }
}

/** The rejection code of an outcome, or "accepted". */
export function codeOf(outcome: CommandOutcome): string {
  return outcome.reply.ok ? "accepted" : outcome.reply.rejection.code;
}

/** The result of an accepted outcome (fails the test otherwise). */
export function resultOf(outcome: CommandOutcome) {
  if (!outcome.reply.ok) throw new Error(`expected acceptance, got ${outcome.reply.rejection.code}: ${outcome.reply.rejection.message}`);
  return outcome.reply.result;
}

export function actionResultOf(outcome: CommandOutcome) {
  const result = resultOf(outcome);
  if (!("commitments" in result)) throw new Error("expected a MarketActionResult");
  return result;
}
