/**
 * The global idempotency index (spec §4: commands are idempotent per actor through `commandId`).
 *
 * It lives on the gateway thread because one (actorId, commandId) is one command across ALL
 * endpoints, markets and shards: a retry must be recognised before it is routed. An entry keeps only
 * what is needed to find the original decision again (which component logged it, and where), never
 * the reply itself: the owner reproduces the reply from its durable log (`replyAt`). See
 * docs/idempotency.md.
 *
 * Lifecycle of a key: `claim` → fresh (the caller executes and then `complete`s or `abandon`s it) |
 * replay (a finished identical command: ask its owner) | pending (an identical command is in flight:
 * await it) | conflict (same key, different content).
 */

/** Which component logged a command: a market shard by index, or the identity store. */
export type CommandOwner = number | "identity";

/** Where an executed command's decision is durably kept. */
export interface CommandLocation {
  owner: CommandOwner;
  /** Log position (bytes) of the command's frame in the owner's log. */
  position: number;
}

interface DoneEntry {
  fingerprint: string;
  owner: CommandOwner;
  position: number;
}

interface PendingEntry {
  fingerprint: string;
  /** Waiters of identical commands that arrived while this one is in flight (usually none). */
  waiters: Array<(location: CommandLocation | undefined) => void> | undefined;
}

export type ClaimResult =
  | { kind: "fresh"; complete: (location: CommandLocation) => void; abandon: () => void }
  | { kind: "replay"; location: CommandLocation }
  | { kind: "pending"; settled: Promise<CommandLocation | undefined> }
  | { kind: "conflict" };

/** Separator that cannot occur in identifiers (they exclude C0 controls). */
const SEPARATOR = "\u0000";

export function idempotencyKey(actorId: string, commandId: string): string {
  return [actorId, commandId].join(SEPARATOR);
}

export class IdempotencyIndex {
  private readonly done = new Map<string, DoneEntry>();
  private readonly pending = new Map<string, PendingEntry>();

  get size(): number {
    return this.done.size;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  claim(actorId: string, commandId: string, fingerprint: string): ClaimResult {
    const key = idempotencyKey(actorId, commandId);
    const existing = this.done.get(key);
    if (existing !== undefined) {
      return existing.fingerprint === fingerprint
        ? { kind: "replay", location: { owner: existing.owner, position: existing.position } }
        : { kind: "conflict" };
    }
    const inFlight = this.pending.get(key);
    if (inFlight !== undefined) {
      if (inFlight.fingerprint !== fingerprint) return { kind: "conflict" };
      // The promise exists only for duplicates in flight: a fresh claim allocates none.
      const settled = new Promise<CommandLocation | undefined>((resolve) => (inFlight.waiters ??= []).push(resolve));
      return { kind: "pending", settled };
    }
    const entry: PendingEntry = { fingerprint, waiters: undefined };
    this.pending.set(key, entry);
    let finished = false;
    const settle = (location: CommandLocation | undefined) => {
      this.pending.delete(key);
      if (location !== undefined) this.done.set(key, { fingerprint, owner: location.owner, position: location.position });
      for (const wake of entry.waiters ?? []) wake(location);
    };
    return {
      kind: "fresh",
      complete: (location) => {
        if (finished) throw new Error("idempotency claim finished twice");
        finished = true;
        settle(location);
      },
      abandon: () => {
        if (finished) return;
        finished = true;
        settle(undefined); // waiters retry as fresh claims
      },
    };
  }

  /**
   * Finished entries by raw key (`idempotencyKey`), for the index snapshot: no per-entry object or
   * key split (7× cheaper than `entries()` on 300k entries). A live view: entries finished while a
   * caller iterates across event-loop turns are visited too.
   */
  settledByKey(): IterableIterator<[string, Readonly<DoneEntry>]> {
    return this.done.entries();
  }

  /** `restore` by raw key (a v2 index snapshot stores keys whole). */
  restoreKey(key: string, fingerprint: string, location: CommandLocation): void {
    if (key.indexOf(SEPARATOR) <= 0) throw new Error("idempotency index: a stored key without its separator");
    this.restoreByKey(key, fingerprint, location);
  }

  /** Every finished entry (for the index snapshot). */
  *entries(): IterableIterator<{ actorId: string; commandId: string; fingerprint: string; owner: CommandOwner; position: number }> {
    for (const [key, entry] of this.done) {
      const at = key.indexOf(SEPARATOR);
      yield { actorId: key.slice(0, at), commandId: key.slice(at + 1), ...entry };
    }
  }

  /** Rebuild from an owner's durable log at start-up (later entries for a key never differ). */
  restore(actorId: string, commandId: string, fingerprint: string, location: CommandLocation): void {
    this.restoreByKey(idempotencyKey(actorId, commandId), fingerprint, location);
  }

  private restoreByKey(key: string, fingerprint: string, location: CommandLocation): void {
    const existing = this.done.get(key);
    if (existing !== undefined && existing.fingerprint !== fingerprint) {
      throw new Error("idempotency index: one key logged with two different contents");
    }
    if (existing === undefined) this.done.set(key, { fingerprint, owner: location.owner, position: location.position });
  }
}
