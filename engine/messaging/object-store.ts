/**
 * A JetStream object store bucket as the journals keep their snapshots in it
 * (engine/journal/jetstream-snapshots.ts): named blobs, any size.
 */

export interface StoredObjectInfo {
  readonly name: string;
  readonly deleted: boolean;
}

export interface ObjectStore {
  list(): Promise<StoredObjectInfo[]>;
  /** null when there is no such object (or it was deleted). */
  getBlob(name: string): Promise<Uint8Array | null>;
  putBlob(name: string, data: Uint8Array): Promise<void>;
  delete(name: string): Promise<void>;
}

export interface ObjectStores {
  /** Opens the bucket, creating it first if it does not exist. */
  create(bucket: string, options: { readonly replicas: number; readonly description: string }): Promise<ObjectStore>;
  /** Opens the bucket if it exists, creating nothing; undefined if there is no such bucket. */
  openExisting(bucket: string): Promise<ObjectStore | undefined>;
}
