/**
 * A stream's messages in order, from one stream sequence to another, through an ordered consumer.
 * If the consumer fails on the way (a leader election), or delivers nothing for `STALL_MS` (an
 * ordered consumer whose creation keeps failing retries inside the client and never ends its
 * iteration), reading resumes with a new consumer at the first message not yet handed over; it
 * gives up after `deadlineMs` without progress. The JetStream journal's `read`, the audit of a
 * stream and `export-stream` all read through this.
 */
import type { Streams, StoredMessage } from "../messaging/streams.js";
import { pauseFor, type TimerHandle, type Timers } from "../timers.js";
import { backoffMs, errorText, retryable } from "./jetstream-retry.js";

/** How long a consumer may deliver nothing, while messages are due, before it is replaced. */
const STALL_MS = 5_000;

export type StreamMessage = StoredMessage;

/**
 * Hands messages `from`…`last` of `stream` to `onMessage` in order, as they arrive. A throw from
 * `onMessage` stops the read and rejects with it. `onReplaced` hears why each consumer was replaced
 * (a read that resumed: a failover's recovery that took seconds may have waited out a stall here).
 */
export async function readStreamMessages(
  streams: Streams,
  timers: Timers,
  stream: string,
  from: number,
  last: number,
  deadlineMs: number,
  onMessage: (message: StreamMessage) => void,
  onReplaced?: (problem: string) => void,
): Promise<void> {
  let next = from;
  let progressDeadline = timers.nowMs() + deadlineMs;
  for (let attempt = 1; next <= last; attempt++) {
    let problem = "the consumer stopped early";
    try {
      let failure: { error: unknown } | undefined;
      let gap: string | undefined;
      let stalled = false;
      let timer: TimerHandle | undefined;
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finish = resolve));
      // A stall ends the wait below (the time between messages only: handing one over may take
      // long, and is not a stall).
      const watch = (): TimerHandle =>
        timers.after(STALL_MS, () => {
          stalled = true;
          finish();
        });
      const consumer = await streams.consume(stream, next, (message) => {
        if (failure !== undefined || gap !== undefined || message.streamSequence < next || next > last) return;
        timer?.cancel();
        if (message.streamSequence !== next) {
          // Another consumer starts at the first message not handed over.
          gap = `message ${message.streamSequence} arrived while ${next} was expected`;
          finish();
          return;
        }
        try {
          onMessage(message);
        } catch (error) {
          failure = { error };
          finish();
          return;
        }
        next = message.streamSequence + 1;
        progressDeadline = timers.nowMs() + deadlineMs;
        if (next > last) finish();
        else timer = watch();
      });
      // Messages may have come before the consumer was handed over: the wait starts now.
      timer?.cancel();
      timer = next > last ? undefined : watch();
      const ended = await Promise.race([done.then(() => undefined), consumer.ended]);
      timer?.cancel();
      await consumer.close();
      // What `onMessage` threw ends the read.
      if (failure !== undefined) throw failure.error;
      if (gap !== undefined) {
        problem = gap;
      } else if (stalled) {
        problem = `the consumer delivered nothing for ${STALL_MS} ms`;
      } else if (ended instanceof Error) {
        problem = ended.message;
      }
    } catch (error) {
      if (!retryable(error).retry) throw error;
      problem = errorText(error);
    }
    if (next > last) return;
    if (timers.nowMs() >= progressDeadline) throw new Error(`reading stream ${stream}: no progress within ${deadlineMs} ms at message ${next}; last: ${problem}`);
    onReplaced?.(`at message ${next}: ${problem}`);
    await pauseFor(timers, backoffMs(attempt));
  }
}
