/** JetStream KV buckets on the NATS client (../kv.ts). */
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { KvBucket, KvBucketOptions, KvBuckets, KvEntry } from "../kv.js";
import { viaNats } from "./nats-errors.js";

class NatsKvBucket implements KvBucket {
  constructor(
    private readonly kv: KV,
    private readonly jsm: Promise<JetStreamManager>,
    private readonly bucket: string,
  ) {}

  get(key: string): Promise<KvEntry | null> {
    return viaNats(async () => {
      const entry = await this.kv.get(key);
      return entry === null ? null : { key, value: entry.value, revision: entry.revision, operation: entry.operation };
    });
  }

  create(key: string, value: Uint8Array): Promise<number> {
    return viaNats(() => this.kv.create(key, value));
  }

  update(key: string, value: Uint8Array, revision: number): Promise<number> {
    // The client's update refuses revision 0 ("never written"); a put with the same header does not.
    return viaNats(() => this.kv.put(key, value, { previousSeq: revision }));
  }

  put(key: string, value: Uint8Array): Promise<number> {
    return viaNats(() => this.kv.put(key, value));
  }

  delete(key: string, revision?: number): Promise<void> {
    return viaNats(() => this.kv.delete(key, revision === undefined ? undefined : { previousSeq: revision }));
  }

  /** From the bucket stream's subject list, answered by its leader (a KV watch would need a consumer). */
  keys(filter: string): Promise<string[]> {
    return viaNats(async () => {
      const prefix = `$KV.${this.bucket}.`;
      const info = await (await this.jsm).streams.info(`KV_${this.bucket}`, { subjects_filter: `${prefix}${filter}` });
      return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
    });
  }
}

const NANOS_PER_MS = 1_000_000;

/**
 * Creates a bounded bucket's stream unless it exists: a KV bucket's layout, with its bounds and the
 * discard-old policy (unlike a KV bucket's default, a full bucket drops its oldest message).
 */
async function ensureBoundedStream(jsm: JetStreamManager, bucket: string, options: KvBucketOptions): Promise<void> {
  const bounds = options.bounds as NonNullable<KvBucketOptions["bounds"]>;
  const name = `KV_${bucket}`;
  try {
    await jsm.streams.info(name);
    return;
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
  }
  // Two nodes may race here; adding a stream with the same configuration is idempotent.
  await jsm.streams.add({
    name,
    subjects: [`$KV.${bucket}.>`],
    storage: StorageType.File,
    num_replicas: options.replicas,
    retention: RetentionPolicy.Limits,
    max_msgs_per_subject: options.history,
    max_msgs: bounds.maxMessages,
    max_age: bounds.maxAgeMs * NANOS_PER_MS,
    discard: DiscardPolicy.Old,
    allow_rollup_hdrs: true,
    allow_direct: false,
  });
}

export class NatsKvBuckets implements KvBuckets {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: Promise<JetStreamManager>,
  ) {}

  open(bucket: string, options: KvBucketOptions): Promise<KvBucket> {
    return viaNats(async () => {
      // Reads go to the stream's leader (allow_direct off), which has applied every acknowledged write.
      if (options.bounds !== undefined) await ensureBoundedStream(await this.jsm, bucket, options);
      const kv = await new Kvm(this.js).create(bucket, options.bounds === undefined ? { replicas: options.replicas, history: options.history, allow_direct: false } : { allow_direct: false });
      return new NatsKvBucket(kv, this.jsm, bucket);
    });
  }
}
