/**
 * The live events of one market that arrived in one event-loop turn, rendered once for all of its
 * subscribers on this node: the frames of every event (for the creator, who sees the record's
 * events) and the frames of those with a public view (for everyone else).
 */
import type { EmittedEvent } from "../../engine/shard-protocol/shard-protocol.js";
import { eventFrame } from "./sse-frames.js";

export interface FeedBatch {
  /** In commit order, each with a sequence above the previous batch's. */
  readonly events: readonly EmittedEvent[];
  readonly creatorText: string;
  readonly publicText: string;
  /** The sequence of the batch's last event: a subscriber has seen everything up to it once the batch is written. */
  readonly lastSequence: number;
}

/** The frame of one event as a subscriber sees it ("" when it may see nothing of it). */
export function frameFor(event: EmittedEvent, creator: boolean): string {
  if (creator) return eventFrame(event.sequence, event.json);
  return event.publicJson === "" ? "" : eventFrame(event.sequence, event.publicJson);
}

export function feedBatch(events: readonly EmittedEvent[]): FeedBatch {
  let creatorText = "";
  let publicText = "";
  for (const event of events) {
    creatorText += frameFor(event, true);
    publicText += frameFor(event, false);
  }
  const last = events[events.length - 1];
  return { events, creatorText, publicText, lastSequence: last === undefined ? 0 : last.sequence };
}
