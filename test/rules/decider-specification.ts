/**
 * Given / when / then for the deciders (Emmett's DeciderSpecification is the model): given the
 * commands a journal already holds, when one more command arrives, then these events are decided, or
 * this rejection. "Given" is commands, not events, because that is what the journal holds: the state
 * is their fold, exactly as the shard's.
 */
import { expect } from "vitest";
import { LogFold } from "../../engine/log-fold.js";
import { decide as decideMarket } from "../../engine/rules/decide.js";
import type { DomainEvent } from "../../engine/rules/decision/decision.js";
import { decide as decideIdentity } from "../../engine/rules/identity/decide.js";
import { evolve as evolveIdentity } from "../../engine/rules/identity/evolve.js";
import { emptyIdentityState } from "../../engine/rules/identity/state.js";
import type { AnyIdentityCommand, IdentityEvent } from "../../engine/rules/identity/types.js";
import { marketIdOfCommand } from "../../engine/rules/handle-command.js";
import type { Command } from "../../engine/rules/types/command.js";

/** An expected event: its type, and the members of its data that matter to the case. */
export type ExpectedEvent = { type: string; data?: Record<string, unknown> };

interface Then<Event> {
  then(expected: readonly ExpectedEvent[]): Event[];
  thenRejects(code: string, message?: RegExp): void;
}

function outcome<Event extends { type: string }>(decision: { accepted: true; events: Event[] } | { accepted: false; rejection: { code: string; message: string } }): Then<Event> {
  return {
    then(expected) {
      if (!decision.accepted) throw new Error(`expected events, got the rejection ${decision.rejection.code}: ${decision.rejection.message}`);
      expect(decision.events.map((event) => event.type)).toEqual(expected.map((event) => event.type));
      decision.events.forEach((event, i) => {
        const data = expected[i]?.data;
        if (data !== undefined) expect((event as unknown as { data?: unknown }).data ?? event).toMatchObject(data);
      });
      return decision.events;
    },
    thenRejects(code, message) {
      if (decision.accepted) throw new Error(`expected the rejection ${code}, got events ${decision.events.map((e) => e.type).join(", ")}`);
      expect(decision.rejection.code).toBe(code);
      if (message !== undefined) expect(decision.rejection.message).toMatch(message);
    },
  };
}

/** The market deciders: given accepted commands (in journal order), when a command, then… */
export function givenMarket(commands: readonly Command[]): { when(command: Command): Then<DomainEvent> } {
  const fold = new LogFold();
  commands.forEach((command, position) => {
    const { applied } = fold.apply(command, position);
    if (!applied.decision.accepted) throw new Error(`given command ${command.commandId} was rejected: ${applied.decision.rejection.code}`);
  });
  return {
    when(command) {
      const marketId = marketIdOfCommand(command);
      return outcome(decideMarket(marketId === undefined ? undefined : fold.markets.get(marketId)?.agg, command));
    },
  };
}

/** The identity decider: given accepted identity commands, when one more, then… */
export function givenIdentities(commands: readonly AnyIdentityCommand[]): { when(command: AnyIdentityCommand): Then<IdentityEvent> } {
  const state = emptyIdentityState();
  for (const command of commands) {
    const decision = decideIdentity(state, command);
    if (!decision.accepted) throw new Error(`given command ${command.type} was rejected: ${decision.rejection.code}`);
    for (const event of decision.events) evolveIdentity(state, event);
  }
  return { when: (command) => outcome(decideIdentity(state, command)) };
}
