/**
 * A stream's messages in order, from one stream sequence to another, through an ordered consumer.
 * If the consumer fails on the way (a leader election), reading resumes at the first message not
 * yet handed over; it gives up after `deadlineMs` without progress. The JetStream journal's `read`,
 * the audit of a stream and `export-stream` all read through this.
 */
import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";
import { backoffMs, errorText, pause, retryable } from "./jetstream-retry.js";

export const MSG_ID_HEADER = "Nats-Msg-Id";

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
      const messages = await consumer.consume({ max_messages: 256 });
      try {
        for await (const message of messages) {
          onMessage({ streamSequence: message.seq, data: message.data, msgId: message.headers?.get(MSG_ID_HEADER) ?? "" });
          next = message.seq + 1;
          progressDeadline = Date.now() + deadlineMs;
          if (message.seq >= last) break;
        }
      } finally {
        await messages.close();
      }
    } catch (error) {
      if (!retryable(error).retry) throw error;
      problem = errorText(error);
    }
    if (next > last) return;
    if (Date.now() >= progressDeadline) throw new Error(`reading stream ${stream}: no progress within ${deadlineMs} ms at message ${next}; last: ${problem}`);
    await pause(backoffMs(attempt));
  }
}
