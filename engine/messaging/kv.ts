/**
 * A JetStream KV bucket as the cluster uses it (leases, heartbeats, the layout, the audit key
 * history): reads answered by the bucket's leader, writes with compare-and-swap on a key's revision.
 * A write refused because the key is not at the revision given (a create of an existing key, a stale
 * update) rejects with MessagingError "wrong-last-sequence".
 */

export interface KvEntry {
  readonly key: string;
  readonly value: Uint8Array;
  /** The bucket's revision of this write (the CAS base of the next). */
  readonly revision: number;
  /** A deleted or purged key keeps a marker with its revision. */
  readonly operation: "PUT" | "DEL" | "PURGE";
}

export interface KvBucket {
  get(key: string): Promise<KvEntry | null>;
  /** Writes `value` only if the key is absent (or deleted); resolves with the revision. */
  create(key: string, value: Uint8Array): Promise<number>;
  /** Writes `value` only if the key's last revision is `revision` (0: only if the key was never written). */
  update(key: string, value: Uint8Array, revision: number): Promise<number>;
  put(key: string, value: Uint8Array): Promise<number>;
  /** Deletes the key (leaving a marker); with `revision`, only if the key's last revision is that one. */
  delete(key: string, revision?: number): Promise<void>;
  /** The keys present that match `filter` (NATS subject wildcards), as the bucket's leader knows them. */
  keys(filter: string): Promise<string[]>;
}

export interface KvBucketOptions {
  readonly replicas: number;
  readonly history: number;
  /**
   * A bucket that forgets by itself (the challenge store): at most `maxMessages` messages, the oldest
   * dropped beyond them (never a refused write), and none kept longer than `maxAgeMs`.
   */
  readonly bounds?: { readonly maxMessages: number; readonly maxAgeMs: number };
}

export interface KvBuckets {
  /** Opens the bucket, creating it first if it does not exist. */
  open(bucket: string, options: KvBucketOptions): Promise<KvBucket>;
}
