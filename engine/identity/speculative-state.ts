/**
 * A copy-on-write view of an identity state, for deciding a batch of commands in order before any
 * of it is durable (the cluster mode's optimistic writes, store.ts).
 *
 * Each command of a batch must be decided against the state the commands before it leave (a
 * delegation issued right after the provisioning it names), yet none of it may touch the applied
 * state before the batch is stored: the append may be refused because another node appended
 * first, and then the batch is decided again on top of that node's entries. So the batch is decided
 * and evolved on this view: a record read through it is copied on first read and every change lands
 * on the copy; the applied state is never written. The view is thrown away once the batch's events
 * are known; they are then applied to the real state, in the same order, once the batch is durable.
 *
 * Only what `decide` and `evolve` use is offered: lookups, insertions and deletions. Iterating a
 * view (or asking its size) would see only what was copied, so it throws instead.
 */
import type { IdentityState } from "../rules/identity/state.js";

class CopyOnReadMap<V> extends Map<string, V> {
  private readonly removed = new Set<string>();

  constructor(
    private readonly base: ReadonlyMap<string, V>,
    private readonly copy: (value: V) => V,
  ) {
    super();
  }

  override get(key: string): V | undefined {
    if (super.has(key)) return super.get(key);
    if (this.removed.has(key)) return undefined;
    const value = this.base.get(key);
    if (value === undefined) return undefined;
    const copied = this.copy(value);
    super.set(key, copied);
    return copied;
  }

  override has(key: string): boolean {
    return super.has(key) || (!this.removed.has(key) && this.base.has(key));
  }

  override set(key: string, value: V): this {
    this.removed.delete(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    const had = this.has(key);
    super.delete(key);
    this.removed.add(key);
    return had;
  }

  override keys(): MapIterator<string> {
    throw notIterable();
  }

  override values(): MapIterator<V> {
    throw notIterable();
  }

  override entries(): MapIterator<[string, V]> {
    throw notIterable();
  }

  override forEach(): void {
    throw notIterable();
  }

  override [Symbol.iterator](): MapIterator<[string, V]> {
    throw notIterable();
  }
}

function notIterable(): Error {
  return new Error("a speculative identity state cannot be iterated: it holds only what was read through it");
}

const same = <V>(value: V): V => value;
const shallow = <V extends object>(value: V): V => ({ ...value });

/** A view of `base` that decisions and `evolve` may use freely; `base` is never written through it. */
export function speculativeState(base: IdentityState): IdentityState {
  return {
    principals: new CopyOnReadMap(base.principals, shallow),
    actors: new CopyOnReadMap(base.actors, shallow),
    keys: new CopyOnReadMap(base.keys, shallow),
    keyIdByPublicKey: new CopyOnReadMap(base.keyIdByPublicKey, same),
    delegations: new CopyOnReadMap(base.delegations, shallow),
    // Token entries are replaced or removed, never changed in place.
    tokens: new CopyOnReadMap(base.tokens, same),
    // `evolve` edits a key's list of token hashes in place.
    tokensByKey: new CopyOnReadMap(base.tokensByKey, (hashes) => [...hashes]),
  };
}
