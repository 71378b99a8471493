/**
 * JetStream streams as the journals use them (engine/journal/jetstream-*.ts): create and inspect a
 * stream, publish with a message id (deduplicated by the server within its window) and an expected
 * last sequence (refused, storing nothing, when another message came after), read a message by its
 * sequence, and an ordered consumer from a sequence on.
 *
 * Every method rejects with a MessagingError for the failures the callers act on (messaging-error.ts).
 */

export interface StreamConfig {
  readonly name: string;
  readonly subjects: readonly string[];
  readonly replicas: number;
  readonly storage: "file" | "memory";
}

/** A journal's stream: limits retention, nothing deleted or purged, reads answered by the leader. */
export interface NewStream extends StreamConfig {
  readonly denyDelete: boolean;
  readonly denyPurge: boolean;
}

export interface StreamState {
  readonly messages: number;
  /** The first message's sequence (the next sequence after the last when empty). */
  readonly firstSequence: number;
  readonly lastSequence: number;
  readonly bytes: number;
}

export interface StreamInfo {
  readonly config: StreamConfig;
  readonly state: StreamState;
}

export interface StoredMessage {
  readonly streamSequence: number;
  readonly data: Uint8Array;
  /** The message's Nats-Msg-Id ("" if it has none). */
  readonly msgId: string;
}

export interface PublishOptions {
  /** Nats-Msg-Id: a retry with the same id within the duplicate window is answered, not stored again. */
  readonly msgId: string;
  /** Nats-Expected-Last-Sequence. */
  readonly expectedLastSequence?: number;
  readonly timeoutMs: number;
}

export interface PublishAck {
  readonly stream: string;
  /** 0 when a stream without quorum acknowledged nothing in particular. */
  readonly sequence: number;
  /** The message id was stored before: this is the original's sequence. */
  readonly duplicate: boolean;
}

/** An ordered consumer's delivery; messages are handed over in stream order. */
export interface OrderedConsumer {
  /** Resolves when the consumer stops: undefined once `close` was called, else why it stopped (it got stuck, its stream failed). */
  readonly ended: Promise<Error | undefined>;
  close(): Promise<void>;
}

export interface Streams {
  /**
   * The stream's state as its leader holds it. Rejects with "not-found" when there is no such
   * stream, and with a retryable failure when it has no leader (a follower's state may lack
   * acknowledged messages).
   */
  info(name: string): Promise<StreamInfo>;
  /** Creates the stream; the same configuration again is not an error. */
  add(stream: NewStream): Promise<StreamInfo>;
  getMessage(name: string, sequence: number): Promise<StoredMessage | null>;
  publish(subject: string, data: Uint8Array, options: PublishOptions): Promise<PublishAck>;
  /** Delivers the stream's messages from `fromSequence` on, as they come, until closed or stuck. */
  consume(name: string, fromSequence: number, onMessage: (message: StoredMessage) => void): Promise<OrderedConsumer>;
}
