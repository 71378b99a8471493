/**
 * The JetStream journal's snapshots, in one JetStream object store bucket shared by every journal of
 * the cluster (decision I26: an object store, not a KV, because a shard's snapshot may be larger than
 * one message may be; the object store chunks it).
 *
 * A journal's snapshots are the objects named `<stream>/<sequence, 16 digits>`. Each starts with an
 * envelope saying what it covers, so that the journal can check it against the stream before
 * trusting it (as the file journal checks a snapshot's chain head against its log):
 *
 *   "JSS1" u32 · sequence f64 · stream sequence f64 · batch id length u16 · batch id (UTF-8) · payload
 *
 * `sequence` is the last entry the snapshot's state folds; `stream sequence` is the message (batch)
 * that entry ends; `batch id` is that message's Nats-Msg-Id, unique to the batch, so a snapshot of
 * another stream of the same name (deleted and made again) does not pass for this one's.
 */
import type { ObjectStore, ObjectStores } from "../messaging/object-store.js";
import { isMessagingFailure } from "../messaging/messaging-error.js";

/** "JSS1" */
const ENVELOPE_MAGIC = 0x3153534a;
const FIXED_BYTES = 4 + 8 + 8 + 2;
const SEQUENCE_DIGITS = 16;

/** What a snapshot covers: entries 1…sequence, the last of them in the batch at streamSequence. */
export interface SnapshotMark {
  readonly sequence: number;
  /** 0 for a snapshot of an empty journal. */
  readonly streamSequence: number;
  /** The Nats-Msg-Id of the batch at streamSequence ("" for an empty journal). */
  readonly batchId: string;
}

export interface StoredSnapshot {
  readonly mark: SnapshotMark;
  readonly payload: Uint8Array;
}

/**
 * A journal's newest snapshot object, which cannot be read (its bytes do not match their digest, or
 * it has no envelope): why. A journal then starts from the newest older snapshot that can be read,
 * or reads more of its stream, as for a snapshot that does not match it; refusing would stop it
 * wherever it opens, each opener reading the same object.
 */
export interface UnreadableSnapshot {
  readonly unreadable: string;
  /** The sequence the object's name gives (a snapshot beyond the stream's end refuses a journal's open, readable or not). */
  readonly sequence: number;
  /** The newest of the older objects that can be read, if one can. */
  readonly older?: StoredSnapshot;
}

/** The snapshot a journal would start from: the newest, or, when that cannot be read, the newest older one that can. */
export function startingSnapshot(found: StoredSnapshot | UnreadableSnapshot | undefined): StoredSnapshot | undefined {
  return found === undefined || !("unreadable" in found) ? found : found.older;
}

function wrap(mark: SnapshotMark, payload: Uint8Array): Uint8Array {
  const id = new TextEncoder().encode(mark.batchId);
  if (id.length > 0xffff) throw new RangeError(`batch id of ${id.length} bytes is too long for a snapshot envelope`);
  const bytes = new Uint8Array(FIXED_BYTES + id.length + payload.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, ENVELOPE_MAGIC, true);
  view.setFloat64(4, mark.sequence, true);
  view.setFloat64(12, mark.streamSequence, true);
  view.setUint16(20, id.length, true);
  bytes.set(id, FIXED_BYTES);
  bytes.set(payload, FIXED_BYTES + id.length);
  return bytes;
}

function unwrap(stored: Uint8Array, name: string): StoredSnapshot {
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  if (stored.length < FIXED_BYTES || view.getUint32(0, true) !== ENVELOPE_MAGIC) throw new Error(`snapshot object ${name} has no JSS1 envelope`);
  const sequence = view.getFloat64(4, true);
  const streamSequence = view.getFloat64(12, true);
  const idLength = view.getUint16(20, true);
  if (!Number.isSafeInteger(sequence) || !Number.isSafeInteger(streamSequence) || stored.length < FIXED_BYTES + idLength) {
    throw new Error(`snapshot object ${name} has an impossible envelope`);
  }
  const batchId = new TextDecoder().decode(stored.subarray(FIXED_BYTES, FIXED_BYTES + idLength));
  return { mark: { sequence, streamSequence, batchId }, payload: stored.subarray(FIXED_BYTES + idLength) };
}

function objectName(journal: string, sequence: number): string {
  return `${journal}/${sequence.toString().padStart(SEQUENCE_DIGITS, "0")}`;
}

/** The sequence an object of `journal` is named for, or undefined for another journal's object. */
function sequenceOf(journal: string, name: string): number | undefined {
  const prefix = `${journal}/`;
  if (!name.startsWith(prefix)) return undefined;
  const digits = name.slice(prefix.length);
  return /^\d+$/.test(digits) ? Number(digits) : undefined;
}

export class JetStreamSnapshots {
  private constructor(private readonly store: ObjectStore) {}

  /** Opens the bucket, creating it (file storage, `replicas`) if it does not exist yet. */
  static async open(objects: ObjectStores, bucket: string, replicas: number): Promise<JetStreamSnapshots> {
    const store = await objects.create(bucket, { replicas, description: "journal snapshots (engine/journal/jetstream-snapshots.ts)" });
    return new JetStreamSnapshots(store);
  }

  /**
   * Opens the bucket if it exists, creating nothing (an audit reads a cluster, never changes it);
   * undefined if there is no such bucket.
   */
  static async openExisting(objects: ObjectStores, bucket: string): Promise<JetStreamSnapshots | undefined> {
    const store = await objects.openExisting(bucket);
    return store === undefined ? undefined : new JetStreamSnapshots(store);
  }

  /** The sequences of each of `journals`' stored snapshots, newest first, from one listing of the bucket. */
  private async sequences(journals: readonly string[]): Promise<number[][]> {
    const sequences: number[][] = journals.map(() => []);
    for (const info of await this.store.list()) {
      if (info.deleted) continue;
      journals.forEach((journal, i) => {
        const sequence = sequenceOf(journal, info.name);
        if (sequence !== undefined) sequences[i]?.push(sequence);
      });
    }
    return sequences.map((each) => each.sort((a, b) => b - a));
  }

  /** `journal`'s newest snapshot, or undefined if it has none; throws if it cannot be read. */
  async newest(journal: string): Promise<StoredSnapshot | undefined> {
    const [newest] = await this.newestOf([journal]);
    if (newest !== undefined && "unreadable" in newest) throw new Error(newest.unreadable);
    return newest;
  }

  /**
   * The newest snapshot of each of `journals` (undefined for one that has none; `unreadable`, why,
   * for one whose newest object cannot be read), read at once after one listing.
   */
  async newestOf(journals: readonly string[]): Promise<ReadonlyArray<StoredSnapshot | UnreadableSnapshot | undefined>> {
    const listed = await this.sequences(journals);
    return Promise.all(journals.map((journal, i) => this.newestListed(journal, listed[i] ?? [])));
  }

  /** The newest readable object of `sequences` (newest first); when a newer one cannot be read, why, with it. */
  private async newestListed(journal: string, sequences: readonly number[]): Promise<StoredSnapshot | UnreadableSnapshot | undefined> {
    let unreadable: UnreadableSnapshot | undefined;
    for (const sequence of sequences) {
      const name = objectName(journal, sequence);
      const read = await this.readObject(name, sequence);
      // Deleted between the listing and the read (pruned by another writer): the next one is older.
      if (read === null) continue;
      if ("unreadable" in read) {
        unreadable ??= read;
        continue;
      }
      return unreadable === undefined ? read : { ...unreadable, older: read };
    }
    return unreadable;
  }

  /** One object as a snapshot, why it cannot be read, or null if it is gone. */
  private async readObject(name: string, sequence: number): Promise<StoredSnapshot | UnreadableSnapshot | null> {
    let stored: Uint8Array | null;
    try {
      stored = await this.store.getBlob(name);
    } catch (error) {
      // The client's message goes on with both digests on lines of their own.
      if (isMessagingFailure(error, "corrupt")) return { unreadable: `snapshot object ${name} cannot be read: ${error.message.split("\n")[0] ?? ""}`, sequence };
      throw error;
    }
    if (stored === null) return null;
    try {
      return unwrap(stored, name);
    } catch (error) {
      return { unreadable: error instanceof Error ? error.message : String(error), sequence };
    }
  }

  /** Stores a snapshot of `journal`, then deletes all but its newest `keep`; resolves with the stored bytes. */
  async write(journal: string, mark: SnapshotMark, payload: Uint8Array, keep: number): Promise<number> {
    const envelope = wrap(mark, payload);
    await this.store.putBlob(objectName(journal, mark.sequence), envelope);
    const stale = ((await this.sequences([journal]))[0] ?? []).slice(Math.max(1, keep));
    for (const sequence of stale) await this.store.delete(objectName(journal, sequence));
    return envelope.length;
  }
}
