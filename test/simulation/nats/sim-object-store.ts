/** A JetStream object store bucket on the simulated servers: named blobs (snapshots). */
import type { StoredObjectInfo } from "../../../engine/messaging/object-store.js";
import { RaftGroup } from "./raft-group.js";

export class SimObjectBucket {
  readonly group: RaftGroup;
  private readonly objects = new Map<string, Uint8Array | null>();

  constructor(readonly name: string) {
    this.group = new RaftGroup(`objects ${name}`);
  }

  list(): StoredObjectInfo[] {
    return [...this.objects].map(([name, data]) => ({ name, deleted: data === null }));
  }

  get(name: string): Uint8Array | null {
    return this.objects.get(name) ?? null;
  }

  put(name: string, data: Uint8Array): void {
    this.objects.set(name, data.slice());
  }

  delete(name: string): void {
    if (this.objects.has(name)) this.objects.set(name, null);
  }
}
