/**
 * The text/event-stream frames of the live market events (docs/events.md). Event data is one line
 * of JSON: JSON.stringify escapes line breaks inside strings, and the stream's only line breaks
 * (CR, LF) never occur in its output, so a frame's `data:` line cannot be split or forged.
 */

import type { StreamEndCode, StreamEndFrameData } from "@market-service/client/wire";

/** The event name of every market event frame. */
export const MARKET_EVENT = "market-event";

/** One market event: `id` is its sequence, the resume point a client sends back. */
export function eventFrame(sequence: number, json: string): string {
  return `id: ${sequence}\nevent: ${MARKET_EVENT}\ndata: ${json}\n\n`;
}

/**
 * The first frame of every stream: where it starts (the `after` it was asked for, or the market's
 * last sequence for a live-only stream). As an `id`, it is also the resume point of a client that
 * gets no event before it reconnects (an EventSource then sends it as Last-Event-ID).
 */
export function openFrame(after: number): string {
  return `id: ${after}
event: open
data: ${JSON.stringify({ after })}

`;
}

/** Why a stream ends: declared with the other wire shapes in @market-service/client (the client's errors carry it). */
export type { StreamEndCode };

export function overflowFrame(message: string, resumeAfter: number): string {
  return endingFrame("overflow", { code: "subscriber_too_slow", message, resumeAfter });
}

export function endFrame(code: StreamEndCode, message: string, resumeAfter: number): string {
  return endingFrame("end", { code, message, resumeAfter });
}

/** The last frame of a stream: its data is the wire's StreamEndFrameData, which the client reads. */
function endingFrame(event: "end" | "overflow", data: StreamEndFrameData): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: keeps an idle stream alive through proxies, and shows a client that left. */
export const KEEP_ALIVE_FRAME = ": keep-alive\n\n";
