/**
 * Tailing a journal's stream: every batch message from a stream sequence on, handed over as soon
 * as the stream delivers it, for as long as the follower runs (the JetStream journal's `follow`).
 *
 * An ordered consumer (ephemeral, no acks, recreated by the client on a gap) with a callback, so a
 * batch is handed over in the same turn its message arrives; one that is stuck (jetstream-consumer.ts)
 * is replaced. A journal's
 * stream never loses a message (no deletes, no purges: jetstream-journal.ts), so the batches come
 * with consecutive stream sequences; anything else (a consumer that ended, a message out of order,
 * a body that is not a batch) restarts the consumer at the first message not yet handed over, after
 * a short pause, until the follower is stopped. Nothing is ever skipped: a message that cannot be
 * decoded is tried again and reported each time, never passed over.
 */
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JsMsg } from "@nats-io/jetstream";
import { decodeBatch, type DecodedBatch } from "./jetstream-batch.js";
import { ORDERED_CONSUME_SETTINGS, closeWhenStuck } from "./jetstream-consumer.js";
import { backoffMs, pause } from "./jetstream-retry.js";

const MSG_ID_HEADER = "Nats-Msg-Id";
/** Messages the consumer asks for at a time (its client refills the request below a threshold). */
const PULL_MESSAGES = 256;

export interface FollowedBatch {
  readonly streamSequence: number;
  /** The message's Nats-Msg-Id (every journal batch has one). */
  readonly batchId: string;
  readonly batch: DecodedBatch;
}

export interface StreamFollowOptions {
  readonly js: JetStreamClient;
  readonly stream: string;
  /** The first message to hand over (1 for the whole stream; the last message + 1 for what comes next). */
  readonly fromStreamSequence: number;
  /** Called in stream order, once per message. Must not throw (a throw is reported and the message tried again). */
  readonly onBatch: (followed: FollowedBatch) => void;
  readonly onProblem?: (error: unknown) => void;
}

export interface StreamFollower {
  /** The next message to hand over. */
  readonly nextStreamSequence: number;
  stop(): Promise<void>;
}

class OutOfOrderError extends Error {
  override name = "OutOfOrderError";
}

export function followStream(options: StreamFollowOptions): StreamFollower {
  let next = options.fromStreamSequence;
  let stopped = false;
  let current: ConsumerMessages | undefined;

  const receive = (message: JsMsg): void => {
    if (stopped || message.seq < next) return; // a consumer recreated after a reset may repeat messages
    if (message.seq !== next) throw new OutOfOrderError(`stream ${options.stream}: message ${message.seq} arrived while ${next} was expected`);
    const batch = decodeBatch(message.data, message.seq);
    const batchId = message.headers?.get(MSG_ID_HEADER) ?? "";
    options.onBatch({ streamSequence: message.seq, batchId, batch });
    next = message.seq + 1;
  };

  const run = async (): Promise<void> => {
    for (let attempt = 1; !stopped; attempt++) {
      let failure: unknown;
      try {
        const consumer = await options.js.consumers.get(options.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: next });
        if (stopped) return;
        const startedAt = next;
        const messages = await consumer.consume({
          max_messages: PULL_MESSAGES,
          ...ORDERED_CONSUME_SETTINGS,
          callback: (message) => {
            if (failure !== undefined) return;
            try {
              receive(message);
            } catch (error) {
              // Stop this consumer; the loop starts another at the first message not handed over.
              failure = error;
              void messages.close();
            }
          },
        });
        current = messages;
        if (stopped) {
          await messages.close();
          return;
        }
        closeWhenStuck(messages, options.stream, (reason) => (failure ??= reason));
        const ended = await messages.closed();
        if (ended instanceof Error) failure ??= ended;
        if (next > startedAt) attempt = 0; // progress: the next restart pauses briefly again
      } catch (error) {
        failure = error;
      } finally {
        current = undefined;
      }
      if (stopped) return;
      options.onProblem?.(failure ?? new Error(`stream ${options.stream}: the follower's consumer ended`));
      await pause(backoffMs(attempt));
    }
  };

  const running = run();
  return {
    get nextStreamSequence() {
      return next;
    },
    async stop() {
      stopped = true;
      await current?.close();
      await running;
    },
  };
}
