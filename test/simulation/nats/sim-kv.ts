/**
 * A JetStream KV bucket on the simulated servers: one revision counter for the bucket (its stream's
 * sequence), each key's last write, compare-and-swap on a key's revision, a delete leaving a marker.
 * A write is applied when its request reaches the leader; its answer may still be lost on the way
 * back (the network's ack loss), as a real bucket's may.
 */
import { MessagingError } from "../../../engine/messaging/messaging-error.js";
import type { KvEntry } from "../../../engine/messaging/kv.js";
import { RaftGroup } from "./raft-group.js";

function matches(filter: string, key: string): boolean {
  const wanted = filter.split(".");
  const parts = key.split(".");
  if (wanted.at(-1) === ">") return parts.length >= wanted.length && wanted.slice(0, -1).every((token, i) => token === "*" || token === parts[i]);
  return wanted.length === parts.length && wanted.every((token, i) => token === "*" || token === parts[i]);
}

export class SimKvBucket {
  readonly group: RaftGroup;
  private revision = 0;
  readonly entries = new Map<string, KvEntry>();

  constructor(readonly name: string) {
    this.group = new RaftGroup(`kv ${name}`);
  }

  get(key: string): KvEntry | null {
    return this.entries.get(key) ?? null;
  }

  private write(key: string, value: Uint8Array, operation: KvEntry["operation"]): number {
    this.revision += 1;
    this.entries.set(key, { key, value, revision: this.revision, operation });
    return this.revision;
  }

  create(key: string, value: Uint8Array): number {
    const current = this.entries.get(key);
    if (current !== undefined && current.operation === "PUT") throw new MessagingError("wrong-last-sequence", `wrong last sequence: ${current.revision}`, current.revision);
    return this.write(key, value, "PUT");
  }

  update(key: string, value: Uint8Array, revision: number): number {
    this.expect(key, revision);
    return this.write(key, value, "PUT");
  }

  /** Refuses a write unless the key's last revision is `revision` (0: never written). */
  private expect(key: string, revision: number): void {
    const current = this.entries.get(key)?.revision ?? 0;
    if (current !== revision) throw new MessagingError("wrong-last-sequence", `wrong last sequence: ${current}`, current);
  }

  put(key: string, value: Uint8Array): number {
    return this.write(key, value, "PUT");
  }

  delete(key: string, revision?: number): void {
    if (revision !== undefined) this.expect(key, revision);
    this.write(key, new Uint8Array(0), "DEL");
  }

  keys(filter: string): string[] {
    return [...this.entries.values()].filter((entry) => entry.operation === "PUT" && matches(filter, entry.key)).map((entry) => entry.key);
  }
}
