/**
 * Tailing a journal's stream: every batch message from a stream sequence on, handed over as soon
 * as the stream delivers it, for as long as the follower runs (the JetStream journal's `follow`).
 *
 * An ordered consumer (ephemeral, no acks) delivering to a callback, so a batch is handed over in
 * the same turn its message arrives; one that is stuck (the messaging adapter tells) is replaced. A
 * journal's stream never loses a message (no deletes, no purges: jetstream-journal.ts), so the
 * batches come with consecutive stream sequences; anything else (a consumer that ended, a message
 * out of order, a body that is not a batch) restarts the consumer at the first message not yet
 * handed over, after a short pause, until the follower is stopped. Nothing is ever skipped: a
 * message that cannot be decoded is tried again and reported each time, never passed over.
 */
import type { OrderedConsumer, StoredMessage, Streams } from "../messaging/streams.js";
import { pauseFor, type Timers } from "../timers.js";
import { decodeBatch, type DecodedBatch } from "./jetstream-batch.js";
import { backoffMs } from "./jetstream-retry.js";

export interface FollowedBatch {
  readonly streamSequence: number;
  /** The message's Nats-Msg-Id (every journal batch has one). */
  readonly batchId: string;
  readonly batch: DecodedBatch;
}

export interface StreamFollowOptions {
  readonly streams: Streams;
  readonly timers: Timers;
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
  let current: OrderedConsumer | undefined;

  const receive = (message: StoredMessage): void => {
    if (stopped || message.streamSequence < next) return; // a consumer recreated after a reset may repeat messages
    if (message.streamSequence !== next) throw new OutOfOrderError(`stream ${options.stream}: message ${message.streamSequence} arrived while ${next} was expected`);
    const batch = decodeBatch(message.data, message.streamSequence);
    options.onBatch({ streamSequence: message.streamSequence, batchId: message.msgId, batch });
    next = message.streamSequence + 1;
  };

  const run = async (): Promise<void> => {
    for (let attempt = 1; !stopped; attempt++) {
      let failure: unknown;
      try {
        const startedAt = next;
        let stop: () => void = () => undefined;
        const failed = new Promise<void>((resolve) => (stop = resolve));
        const consumer = await options.streams.consume(options.stream, next, (message) => {
          if (failure !== undefined) return;
          try {
            receive(message);
          } catch (error) {
            // Stop this consumer; the loop starts another at the first message not handed over.
            failure = error;
            stop();
          }
        });
        current = consumer;
        if (stopped) {
          await consumer.close();
          return;
        }
        const ended = await Promise.race([consumer.ended, failed.then(() => undefined)]);
        await consumer.close();
        if (ended instanceof Error) failure ??= ended;
        if (next > startedAt) attempt = 0; // progress: the next restart pauses briefly again
      } catch (error) {
        failure = error;
      } finally {
        current = undefined;
      }
      if (stopped) return;
      options.onProblem?.(failure ?? new Error(`stream ${options.stream}: the follower's consumer ended`));
      await pauseFor(options.timers, backoffMs(attempt));
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
