/**
 * A journal stream read as it stands, for an audit (`replay`/`verify --nats … --stream …`) or an
 * export (`export-stream`): it creates nothing (no stream, no bucket, no durable consumer) and
 * writes nothing, so auditing a live cluster cannot change it. The messages read are those up to
 * the stream's last message when it was opened; a running owner's later appends are not included.
 */
import { JetStreamApiError, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { DEFAULT_SNAPSHOT_BUCKET } from "./jetstream-journal.js";
import { withRetries } from "./jetstream-retry.js";
import { readStreamMessages, type StreamMessage } from "./jetstream-stream-reader.js";
import { JetStreamSnapshots, type StoredSnapshot } from "./jetstream-snapshots.js";

/** JetStream's "stream not found" API error. */
const STREAM_NOT_FOUND = 10059;
const REQUEST_TIMEOUT_MS = 5_000;
/** How long a read keeps retrying through a stream's leader election before it gives up. */
const RETRY_DEADLINE_MS = 15_000;

export class LiveStream {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly name: string,
    /** The stream's first and last message when opened (last = first − 1 for an empty stream). */
    readonly firstStreamSequence: number,
    readonly lastStreamSequence: number,
  ) {}

  /** The stream `name` on `connection` (the caller's: it is not closed here); throws if there is none. */
  static async open(connection: NatsConnection, name: string): Promise<LiveStream> {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`stream name ${JSON.stringify(name)} must be letters, digits, "-" or "_"`);
    const jsm = await jetstreamManager(connection, { timeout: REQUEST_TIMEOUT_MS });
    const js = jetstream(connection, { timeout: REQUEST_TIMEOUT_MS });
    let state;
    try {
      state = (await withRetries(`reading the state of stream ${name}`, RETRY_DEADLINE_MS, () => jsm.streams.info(name))).state;
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) throw new Error(`there is no stream ${name} on this NATS cluster`);
      throw error;
    }
    // An empty stream reports first 0 (or the next sequence after a purge): no messages either way.
    const first = state.messages === 0 ? state.last_seq + 1 : state.first_seq;
    return new LiveStream(js, jsm, name, first, state.last_seq);
  }

  /** Hands messages firstStreamSequence…lastStreamSequence to `onMessage`, in order. */
  messages(onMessage: (message: StreamMessage) => void): Promise<void> {
    if (this.lastStreamSequence < this.firstStreamSequence) return Promise.resolve();
    return readStreamMessages(this.js, this.name, this.firstStreamSequence, this.lastStreamSequence, RETRY_DEADLINE_MS, onMessage);
  }

  /** Message `streamSequence`'s body. */
  async body(streamSequence: number): Promise<Uint8Array> {
    const message = await withRetries(`reading message ${streamSequence} of stream ${this.name}`, RETRY_DEADLINE_MS, () => this.jsm.streams.getMessage(this.name, { seq: streamSequence }));
    if (message === null) throw new Error(`stream ${this.name} has no message ${streamSequence}`);
    return message.data;
  }

  /** The stream's newest snapshot in the journals' snapshot bucket, if the bucket exists and holds one. */
  async newestSnapshot(bucket: string = DEFAULT_SNAPSHOT_BUCKET): Promise<StoredSnapshot | undefined> {
    const snapshots = await JetStreamSnapshots.openExisting(this.js, this.jsm, bucket);
    return snapshots === undefined ? undefined : snapshots.newest(this.name);
  }
}
