/** JetStream streams on the NATS client (../streams.ts). */
import { DeliverPolicy, RetentionPolicy, StorageType, type JetStreamClient, type JetStreamManager, type StreamInfo as NatsStreamInfo } from "@nats-io/jetstream";
import type { NewStream, OrderedConsumer, PublishAck, PublishOptions, StoredMessage, StreamInfo, Streams } from "../streams.js";
import { MessagingError } from "../messaging-error.js";
import { viaNats } from "./nats-errors.js";
import { ORDERED_CONSUME_SETTINGS, closeWhenStuck, type StuckWatch } from "./ordered-consumer.js";

export const MSG_ID_HEADER = "Nats-Msg-Id";
/** Messages an ordered consumer asks for at a time (its client refills the request below a threshold). */
const PULL_MESSAGES = 256;

function infoOf(info: NatsStreamInfo): StreamInfo {
  const { config, state } = info;
  return {
    config: { name: config.name, subjects: config.subjects ?? [], replicas: config.num_replicas, storage: config.storage === StorageType.Memory ? "memory" : "file" },
    state: { messages: state.messages, firstSequence: state.first_seq, lastSequence: state.last_seq, bytes: state.bytes },
  };
}

export class NatsStreams implements Streams {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: Promise<JetStreamManager>,
  ) {}

  /**
   * The stream's state as its leader knows it. A replicated stream that has had no leader for a
   * while has its followers answer with their own state and no leader named (nats-server 2.10;
   * docs/auth.md); a follower may not have every acknowledged message, so that answer is refused
   * as a stream without a leader is: retried.
   */
  info(name: string): Promise<StreamInfo> {
    return viaNats(async () => {
      const info = await (await this.jsm).streams.info(name);
      if (info.cluster !== undefined && !info.cluster.leader) {
        throw new MessagingError("unavailable", `stream ${name} has no leader: its state came from a follower`);
      }
      return infoOf(info);
    });
  }

  add(stream: NewStream): Promise<StreamInfo> {
    return viaNats(async () =>
      infoOf(
        await (await this.jsm).streams.add({
          name: stream.name,
          subjects: [...stream.subjects],
          storage: stream.storage === "memory" ? StorageType.Memory : StorageType.File,
          num_replicas: stream.replicas,
          retention: RetentionPolicy.Limits,
          deny_delete: stream.denyDelete,
          deny_purge: stream.denyPurge,
          // Reads go to the stream leader, which holds every acknowledged message; a direct get may
          // be answered by a follower that has not stored the latest one yet.
          allow_direct: false,
        }),
      ),
    );
  }

  getMessage(name: string, sequence: number): Promise<StoredMessage | null> {
    return viaNats(async () => {
      const message = await (await this.jsm).streams.getMessage(name, { seq: sequence });
      return message === null ? null : { streamSequence: message.seq, data: message.data, msgId: message.header.get(MSG_ID_HEADER) };
    });
  }

  publish(subject: string, data: Uint8Array, options: PublishOptions): Promise<PublishAck> {
    return viaNats(async () => {
      const ack = await this.js.publish(subject, data, {
        msgID: options.msgId,
        ...(options.expectedLastSequence === undefined ? {} : { expect: { lastSequence: options.expectedLastSequence } }),
        timeout: options.timeoutMs,
      });
      return { stream: ack.stream, sequence: ack.seq, duplicate: ack.duplicate };
    });
  }

  consume(name: string, fromSequence: number, onMessage: (message: StoredMessage) => void): Promise<OrderedConsumer> {
    return viaNats(async () => {
      const consumer = await this.js.consumers.get(name, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSequence });
      let closedHere = false;
      let stuck: Error | undefined;
      let watch: StuckWatch | undefined;
      const messages = await consumer.consume({
        max_messages: PULL_MESSAGES,
        ...ORDERED_CONSUME_SETTINGS,
        callback: (message) => {
          watch?.delivered();
          onMessage({ streamSequence: message.seq, data: message.data, msgId: message.headers?.get(MSG_ID_HEADER) ?? "" });
        },
      });
      watch = closeWhenStuck(messages, name, (reason) => (stuck ??= reason));
      const ended = messages.closed().then((result): Error | undefined => {
        if (stuck !== undefined) return stuck;
        if (result instanceof Error) return result;
        return closedHere ? undefined : new Error(`stream ${name}: the consumer ended`);
      });
      return {
        ended,
        close: async () => {
          closedHere = true;
          await messages.close();
        },
      };
    });
  }
}
