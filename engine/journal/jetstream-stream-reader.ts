/**
 * A stream's messages in order, from one stream sequence to another, through an ordered consumer.
 * If the consumer fails on the way (a leader election), or delivers nothing for `STALL_MS` (an
 * ordered consumer whose creation keeps failing retries inside the client and never ends its
 * iteration), reading resumes with a new consumer at the first message not yet handed over; it
 * gives up after `deadlineMs` without progress. The JetStream journal's `read`, the audit of a
 * stream and `export-stream` all read through this.
 */
import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";
import { backoffMs, errorText, pause, retryable } from "./jetstream-retry.js";
import { ORDERED_CONSUME_SETTINGS, closeWhenStuck } from "./jetstream-consumer.js";

export const MSG_ID_HEADER = "Nats-Msg-Id";
/** How long a consumer may deliver nothing, while messages are due, before it is replaced. */
const STALL_MS = 5_000;

export interface StreamMessage {
  readonly streamSequence: number;
  readonly data: Uint8Array;
  /** The message's Nats-Msg-Id ("" if it has none). */
  readonly msgId: string;
}

/**
 * Hands messages `from`…`last` of `stream` to `onMessage` in order, as they arrive. A throw from
 * `onMessage` stops the read and rejects with it.
 */
export async function readStreamMessages(
  js: JetStreamClient,
  stream: string,
  from: number,
  last: number,
  deadlineMs: number,
  onMessage: (message: StreamMessage) => void,
): Promise<void> {
  let next = from;
  let progressDeadline = Date.now() + deadlineMs;
  for (let attempt = 1; next <= last; attempt++) {
    let problem = "the consumer stopped early";
    try {
      const consumer = await js.consumers.get(stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: next });
      const messages = await consumer.consume({ max_messages: 256, ...ORDERED_CONSUME_SETTINGS });
      closeWhenStuck(messages, stream, (reason) => (problem = reason.message));
      // Closing the messages ends the iteration below (the time between messages only: handing one
      // over may take long, and is not a stall).
      let stalled = false;
      const watch = (): NodeJS.Timeout =>
        setTimeout(() => {
          stalled = true;
          void messages.close();
        }, STALL_MS);
      let timer = watch();
      try {
        for await (const message of messages) {
          clearTimeout(timer);
          onMessage({ streamSequence: message.seq, data: message.data, msgId: message.headers?.get(MSG_ID_HEADER) ?? "" });
          next = message.seq + 1;
          progressDeadline = Date.now() + deadlineMs;
          if (message.seq >= last) break;
          timer = watch();
        }
      } finally {
        clearTimeout(timer);
        await messages.close();
      }
      if (stalled) problem = `the consumer delivered nothing for ${STALL_MS} ms`;
    } catch (error) {
      if (!retryable(error).retry) throw error;
      problem = errorText(error);
    }
    if (next > last) return;
    if (Date.now() >= progressDeadline) throw new Error(`reading stream ${stream}: no progress within ${deadlineMs} ms at message ${next}; last: ${problem}`);
    await pause(backoffMs(attempt));
  }
}
