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

import { IDENTITY_OWNER, SettledTable, type SettledTableContinuation, type SettledTableContinuationHeader, type SettledTableImage, type SettledTableImageHeader, type SettledTableMark } from "./settled-table.js";

/** Which component logged a command: a market shard by index, or the identity store. */
export type CommandOwner = number | "identity";

/** Where an executed command's decision is durably kept. */
export interface CommandLocation {
  owner: CommandOwner;
  /** Log position (bytes) of the command's frame in the owner's log. */
  position: number;
}


/** The caller executes the command, then says where it was logged (`complete`) or that it was not (`abandon`). */
export interface FreshClaim {
  readonly kind: "fresh";
  complete(location: CommandLocation): void;
  abandon(): void;
}

export type ClaimResult =
  | FreshClaim
  | { kind: "replay"; location: CommandLocation }
  /**
   * A command under this key is in flight: wait for it. Settled with its location (the same content:
   * replay it; other content: a conflict, now that the other command is durable), or undefined (it
   * was not logged: claim again). A conflict is answered only once the other content is logged: an
   * attempt that is then abandoned must not have turned this command away for good.
   */
  | { kind: "pending"; sameContent: boolean; settled: Promise<CommandLocation | undefined> }
  | { kind: "conflict" };

/** Separator that cannot occur in identifiers (they exclude C0 controls). */
const SEPARATOR = "\u0000";

export function idempotencyKey(actorId: string, commandId: string): string {
  return [actorId, commandId].join(SEPARATOR);
}

export class IdempotencyIndex {
  /**
   * Finished commands, in typed arrays (settled-table.ts): those logged by the market shards (the
   * bulk, persisted by the index snapshot) and those logged by the identity store (rebuilt from
   * its own log at start). Kept apart so that a start, which restores the identity store first,
   * can adopt the snapshot's table whole. Both use one hash seed, so a lookup hashes once.
   */
  private readonly shardOwned: SettledTable;
  private readonly identityOwned: SettledTable;
  /**
   * Commands in flight, by joined key: few at any time. A dictionary object (its keys hold a NUL,
   * so none is an array index), not a Map: a Map that gains and loses an entry per command keeps
   * in each table it outgrows the entries and a link to the next table, and once one such table is
   * promoted, every scavenge finds the later tables and the claims they held alive through it
   * (decision I65). A dictionary's outgrown table links to nothing.
   */
  private readonly pending: Record<string, PendingClaim | undefined> = Object.create(null) as Record<string, PendingClaim | undefined>;
  private pendingSize = 0;

  /** `seed` for the key hash: random unless a test fixes it (an imported snapshot brings its own). */
  constructor(options: { seed?: number } = {}) {
    this.shardOwned = new SettledTable(options.seed);
    this.identityOwned = new SettledTable(this.shardOwned.hashSeed);
  }

  get size(): number {
    return this.shardOwned.size + this.identityOwned.size;
  }

  get pendingCount(): number {
    return this.pendingSize;
  }

  claim(actorId: string, commandId: string, fingerprint: string): ClaimResult {
    const hash = this.shardOwned.hashOf(actorId, commandId);
    const found = this.find(actorId, commandId, hash);
    if (found !== undefined) {
      return found.table.fingerprintIs(found.entry, fingerprint) ? { kind: "replay", location: locationAt(found.table, found.entry) } : { kind: "conflict" };
    }
    const key = idempotencyKey(actorId, commandId);
    const inFlight = this.pending[key];
    if (inFlight !== undefined) {
      // The promise exists only for commands meeting one in flight: a fresh claim allocates none.
      const settled = new Promise<CommandLocation | undefined>((resolve) => (inFlight.waiters ??= []).push(resolve));
      return { kind: "pending", sameContent: inFlight.fingerprint === fingerprint, settled };
    }
    const claim = new PendingClaim(this, key, actorId, commandId, hash, fingerprint);
    this.pending[key] = claim;
    this.pendingSize += 1;
    return claim;
  }

  /** A pending claim finished: logged at `location`, or not logged (undefined: its waiters retry as fresh claims). */
  settle(claim: PendingClaim, location: CommandLocation | undefined): void {
    delete this.pending[claim.key];
    this.pendingSize -= 1;
    // `hash` is still valid: the seed only changes on a snapshot import, which happens at start
    // with nothing in flight (restoreImage asserts it).
    if (location !== undefined) this.tableOf(location.owner).insert(claim.actorId, claim.commandId, claim.hash, claim.fingerprint, ownerCode(location.owner), location.position);
    for (const wake of claim.waiters ?? []) wake(location);
  }

  /**
   * Whether (actorId, commandId) is taken, finished or in flight, by a command with another
   * fingerprint: a cluster node's check that a key bound to one partition's command is not used for
   * another's (engine/cluster/key-bindings.ts). Claims nothing.
   */
  usedOtherwise(actorId: string, commandId: string, fingerprint: string): boolean {
    const found = this.find(actorId, commandId, this.shardOwned.hashOf(actorId, commandId));
    if (found !== undefined) return !found.table.fingerprintIs(found.entry, fingerprint);
    const inFlight = this.pending[idempotencyKey(actorId, commandId)];
    return inFlight !== undefined && inFlight.fingerprint !== fingerprint;
  }

  /**
   * When a command with another fingerprint is in flight under (actorId, commandId): a promise that
   * settles with it (logged or abandoned), after which `usedOtherwise` answers for good; else
   * undefined. A cluster node waits on it before it turns a command away as a conflict.
   */
  inFlightOtherwise(actorId: string, commandId: string, fingerprint: string): Promise<unknown> | undefined {
    const inFlight = this.pending[idempotencyKey(actorId, commandId)];
    if (inFlight === undefined || inFlight.fingerprint === fingerprint) return undefined;
    return new Promise((resolve) => (inFlight.waiters ??= []).push(resolve));
  }

  /** Rebuild from an owner's durable log at start-up (later entries for a key never differ). */
  restore(actorId: string, commandId: string, fingerprint: string, location: CommandLocation): void {
    const hash = this.shardOwned.hashOf(actorId, commandId);
    const found = this.find(actorId, commandId, hash);
    if (found !== undefined) {
      if (!found.table.fingerprintIs(found.entry, fingerprint)) throw new Error("idempotency index: one key logged with two different contents");
      return;
    }
    this.tableOf(location.owner).insert(actorId, commandId, hash, fingerprint, ownerCode(location.owner), location.position);
  }

  /** `restore` by raw key (`idempotencyKey`; a v2 index snapshot stores keys whole). */
  restoreKey(key: string, fingerprint: string, location: CommandLocation): void {
    const at = key.indexOf(SEPARATOR);
    if (at <= 0) throw new Error("idempotency index: a stored key without its separator");
    this.restore(key.slice(0, at), key.slice(at + 1), fingerprint, location);
  }

  /** The shard-owned entries as bytes, for the index snapshot (identity-owned ones come from the identity log). */
  image(): SettledTableImage {
    return this.shardOwned.image();
  }

  /** The shard-owned entries added since the image that ended at `from`, for a snapshot that continues it. */
  imageSince(from: SettledTableMark): SettledTableContinuation {
    return this.shardOwned.imageSince(from);
  }

  /** Add a continuation's entries after those of the image it continues, restored just before (`restoreImage`). */
  appendImage(header: SettledTableContinuationHeader, body: Uint8Array): number {
    if (this.pendingSize !== 0) throw new Error("idempotency index: a snapshot is restored only with no command in flight");
    const added = this.shardOwned.appendImage(header, body);
    if (this.identityOwned.size > 0 && added > 0) this.refuseOverlap();
    return added;
  }

  /**
   * Add a snapshot image's entries. At start the shard-owned table is still empty and takes the
   * image over whole; the identity-owned table then moves to the image's hash seed.
   */
  restoreImage(header: SettledTableImageHeader, body: Uint8Array): number {
    if (this.pendingSize !== 0) throw new Error("idempotency index: a snapshot is restored only with no command in flight");
    const added = this.shardOwned.importImage(header, body);
    this.identityOwned.reseed(this.shardOwned.hashSeed);
    if (this.identityOwned.size > 0 && added > 0) this.refuseOverlap();
    return added;
  }

  private find(actorId: string, commandId: string, hash: number): { table: SettledTable; entry: number } | undefined {
    const shardEntry = this.shardOwned.find(actorId, commandId, hash);
    if (shardEntry >= 0) return { table: this.shardOwned, entry: shardEntry };
    const identityEntry = this.identityOwned.find(actorId, commandId, hash);
    return identityEntry >= 0 ? { table: this.identityOwned, entry: identityEntry } : undefined;
  }

  private tableOf(owner: CommandOwner): SettledTable {
    return owner === "identity" ? this.identityOwned : this.shardOwned;
  }

  /** One key in both tables would be one commandId logged twice; the live path never does it. */
  private refuseOverlap(): void {
    const [small, large] = this.identityOwned.size <= this.shardOwned.size ? [this.identityOwned, this.shardOwned] : [this.shardOwned, this.identityOwned];
    small.forEachKey((actorId, commandId, hash) => {
      if (large.find(actorId, commandId, hash) >= 0) throw new Error("idempotency index: one key logged by both the identity store and a shard");
    });
  }
}

function locationAt(table: SettledTable, entry: number): CommandLocation {
  const owner = table.ownerAt(entry);
  return { owner: owner === IDENTITY_OWNER ? "identity" : owner, position: table.positionAt(entry) };
}

function ownerCode(owner: CommandOwner): number {
  if (owner === "identity") return IDENTITY_OWNER;
  if (!Number.isInteger(owner) || owner < 0 || owner >= IDENTITY_OWNER) throw new Error(`idempotency index: shard index ${owner} out of range`);
  return owner;
}

/**
 * A command in flight under its key: the fresh claim its caller finishes, and the entry identical
 * commands arriving meanwhile wait on. One object per command (no closures per claim).
 */
class PendingClaim implements FreshClaim {
  readonly kind = "fresh";
  /** Waiters of identical commands that arrived while this one is in flight (usually none). */
  waiters: Array<(location: CommandLocation | undefined) => void> | undefined;
  private finished = false;

  constructor(
    private readonly index: IdempotencyIndex,
    readonly key: string,
    readonly actorId: string,
    readonly commandId: string,
    readonly hash: number,
    readonly fingerprint: string,
  ) {}

  complete(location: CommandLocation): void {
    if (this.finished) throw new Error("idempotency claim finished twice");
    this.finished = true;
    this.index.settle(this, location);
  }

  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.index.settle(this, undefined);
  }
}
