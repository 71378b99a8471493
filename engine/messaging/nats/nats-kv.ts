/** JetStream KV buckets on the NATS client (../kv.ts). */
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
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
    return viaNats(() => this.kv.update(key, value, revision));
  }

  put(key: string, value: Uint8Array): Promise<number> {
    return viaNats(() => this.kv.put(key, value));
  }

  delete(key: string): Promise<void> {
    return viaNats(() => this.kv.delete(key));
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

export class NatsKvBuckets implements KvBuckets {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: Promise<JetStreamManager>,
  ) {}

  open(bucket: string, options: KvBucketOptions): Promise<KvBucket> {
    return viaNats(async () => {
      // Reads go to the stream's leader (allow_direct off), which has applied every acknowledged write.
      const kv = await new Kvm(this.js).create(bucket, { replicas: options.replicas, history: options.history, allow_direct: false });
      return new NatsKvBucket(kv, this.jsm, bucket);
    });
  }
}
