/**
 * A journal stream read as it stands, for an audit (`replay`/`verify --nats … --stream …`) or an
 * export (`export-stream`): it creates nothing (no stream, no bucket, no durable consumer) and
 * writes nothing, so auditing a live cluster cannot change it. The messages read are those up to
 * the stream's last message when it was opened; a running owner's later appends are not included.
 */
import type { Messaging } from "../messaging/messaging.js";
import { isMessagingFailure } from "../messaging/messaging-error.js";
import type { ObjectStores } from "../messaging/object-store.js";
import type { Streams } from "../messaging/streams.js";
import type { Timers } from "../timers.js";
import { DEFAULT_SNAPSHOT_BUCKET } from "./jetstream-journal.js";
import { withRetries } from "./jetstream-retry.js";
import { readStreamMessages, type StreamMessage } from "./jetstream-stream-reader.js";
import { JetStreamSnapshots, type StoredSnapshot, type UnreadableSnapshot } from "./jetstream-snapshots.js";

const REQUEST_TIMEOUT_MS = 5_000;
/** How long a read keeps retrying through a stream's leader election before it gives up. */
const RETRY_DEADLINE_MS = 15_000;

export class LiveStream {
  private constructor(
    private readonly streams: Streams,
    private readonly objects: ObjectStores,
    private readonly timers: Timers,
    readonly name: string,
    /** The stream's first and last message when opened (last = first − 1 for an empty stream). */
    readonly firstStreamSequence: number,
    readonly lastStreamSequence: number,
  ) {}

  /** The stream `name` on `connection` (the caller's: it is not closed here); throws if there is none. */
  static async open(messaging: Messaging, name: string): Promise<LiveStream> {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`stream name ${JSON.stringify(name)} must be letters, digits, "-" or "_"`);
    const { streams, objects } = messaging.jetStream(REQUEST_TIMEOUT_MS);
    const { timers } = messaging;
    let state;
    try {
      state = (await withRetries(timers, `reading the state of stream ${name}`, RETRY_DEADLINE_MS, () => streams.info(name))).state;
    } catch (error) {
      if (isMessagingFailure(error, "not-found")) throw new Error(`there is no stream ${name} on this NATS cluster`);
      throw error;
    }
    // An empty stream reports first 0 (or the next sequence after a purge): no messages either way.
    const first = state.messages === 0 ? state.lastSequence + 1 : state.firstSequence;
    return new LiveStream(streams, objects, timers, name, first, state.lastSequence);
  }

  /** Hands messages firstStreamSequence…lastStreamSequence to `onMessage`, in order. */
  messages(onMessage: (message: StreamMessage) => void): Promise<void> {
    if (this.lastStreamSequence < this.firstStreamSequence) return Promise.resolve();
    return readStreamMessages(this.streams, this.timers, this.name, this.firstStreamSequence, this.lastStreamSequence, RETRY_DEADLINE_MS, onMessage);
  }

  /** Message `streamSequence`'s body. */
  async body(streamSequence: number): Promise<Uint8Array> {
    const message = await withRetries(this.timers, `reading message ${streamSequence} of stream ${this.name}`, RETRY_DEADLINE_MS, () => this.streams.getMessage(this.name, streamSequence));
    if (message === null) throw new Error(`stream ${this.name} has no message ${streamSequence}`);
    return message.data;
  }

  /** The stream's newest snapshot in the journals' snapshot bucket, if the bucket exists and holds one; why, if it cannot be read. */
  async newestSnapshot(bucket: string = DEFAULT_SNAPSHOT_BUCKET): Promise<StoredSnapshot | UnreadableSnapshot | undefined> {
    const snapshots = await JetStreamSnapshots.openExisting(this.objects, bucket);
    if (snapshots === undefined) return undefined;
    const [newest] = await snapshots.newestOf([this.name]);
    return newest;
  }
}
