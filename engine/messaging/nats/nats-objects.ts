/** JetStream object stores on the NATS client (../object-store.ts). */
import { StorageType, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Objm, setSha256Backend, type ObjectStore as NatsObjectStore } from "@nats-io/obj";
import { isMessagingFailure } from "../messaging-error.js";
import type { ObjectStore, ObjectStores, StoredObjectInfo } from "../object-store.js";
import { viaNats } from "./nats-errors.js";

// The client checks every object it writes or reads against a SHA-256 digest, by default in pure
// JavaScript (its browser-safe choice). On Node the native hash is far cheaper, and a snapshot's
// digest is computed on the thread that writes it (a partition's, or the node's main thread for the
// idempotency snapshots) and on a new owner's path while it takes a partition over (docs/cluster.md,
// "Snapshots in an object store"). The setting is per module instance, so every thread that loads
// this module sets it for itself.
setSha256Backend("native");

class NatsObjectStoreBucket implements ObjectStore {
  constructor(private readonly store: NatsObjectStore) {}

  list(): Promise<StoredObjectInfo[]> {
    return viaNats(async () => (await this.store.list()).map((info) => ({ name: info.name, deleted: info.deleted })));
  }

  getBlob(name: string): Promise<Uint8Array | null> {
    return viaNats(() => this.store.getBlob(name));
  }

  putBlob(name: string, data: Uint8Array): Promise<void> {
    return viaNats(async () => {
      await this.store.putBlob({ name }, data);
    });
  }

  delete(name: string): Promise<void> {
    return viaNats(async () => {
      await this.store.delete(name);
    });
  }
}

export class NatsObjectStores implements ObjectStores {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: Promise<JetStreamManager>,
  ) {}

  create(bucket: string, options: { readonly replicas: number; readonly description: string }): Promise<ObjectStore> {
    return viaNats(async () => new NatsObjectStoreBucket(await new Objm(this.js).create(bucket, { replicas: options.replicas, storage: StorageType.File, description: options.description })));
  }

  async openExisting(bucket: string): Promise<ObjectStore | undefined> {
    try {
      // The object store's stream (the client's naming: OBJ_<bucket>).
      await viaNats(async () => (await this.jsm).streams.info(`OBJ_${bucket}`));
    } catch (error) {
      if (isMessagingFailure(error, "not-found")) return undefined;
      throw error;
    }
    return viaNats(async () => new NatsObjectStoreBucket(await new Objm(this.js).open(bucket)));
  }
}
