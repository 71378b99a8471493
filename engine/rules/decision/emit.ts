/**
 * Builds event envelopes (spec §6.1) for one command: sequence and id follow the market's event
 * count, every event carries the command's identity, time and the market version after the command.
 */
import type { DomainEvent } from "./decision.js";
import { type Event, type EventType, generatedIdOf, marketRef } from "@market-service/client/wire";
import type { MarketAggregate } from "../state/state.js";
import type { Command } from "../types/command.js";
import { isoFromMs } from "../common/time.js";

/** The event type whose `type` field admits `T` (commitment events share one envelope type). */
export type EventOf<T extends EventType> = Event extends infer E ? (E extends Event ? (T extends E["type"] ? E : never) : never) : never;

export type Emit = <T extends EventType>(type: T, data: EventOf<T>["data"]) => EventOf<T>;

export function eventEmitter(
  agg: MarketAggregate | undefined,
  command: Command,
  marketId: string,
  marketVersionAfter: number,
  sink: DomainEvent[],
): Emit {
  let sequence = agg?.eventCount ?? 0;
  const ref = agg?.ref ?? marketRef(marketId);
  const occurredAt = isoFromMs(command.occurredAtMs);
  const { principalId, actorId, authorityRef } = command.identity;
  return <T extends EventType>(type: T, data: EventOf<T>["data"]): EventOf<T> => {
    sequence += 1;
    // One literal per shape, no spread: events of one shape share a hidden class (see gateway/api/market-api.ts).
    const id = generatedIdOf("e", ref, sequence);
    const event = (
      authorityRef === undefined
        ? { sequence, id, type, marketId, marketVersion: marketVersionAfter, commandId: command.commandId, principalId, actorId, occurredAt, data }
        : { sequence, id, type, marketId, marketVersion: marketVersionAfter, commandId: command.commandId, principalId, actorId, authorityRef, occurredAt, data }
    ) as EventOf<T>;
    sink.push(event as DomainEvent);
    return event;
  };
}
