/**
 * Idempotency across partitions (docs/cluster.md). One (actor, commandId) is one command in the whole
 * cluster, but a command executes on its market's partition, and the same key sent for two markets
 * would reach two owners that know nothing of each other. So every key has a home partition
 * (`homeOf`: a hash of the key), and before a command executes on another partition its key is
 * bound, at the home's owner, to the command's fingerprint: first come, durably (the stream
 * `keys-<home>`, R3, appended by the home's owner with group commit and fenced by its epoch like
 * the partition's own stream). The market's owner asks for the binding, just before it executes
 * the command (cluster-runtime.ts `submitHere`, decision I67). A key bound to another fingerprint
 * is the spec's conflict; one bound to the same fingerprint is executed, or answered by the
 * owner's own index with the original reply.
 *
 * A command whose market lies in its key's home partition needs no binding: the home's owner is
 * its market's owner, whose index holds it; that owner only checks that no binding of the key to
 * another fingerprint exists (`boundOtherwise`), and a binding checks that owner's index
 * (the home partition's index, `usedOtherwise`). Both checks run on the node's one thread before anything awaits,
 * so a bind and an execution of one key cannot pass each other.
 *
 * A new owner of a home partition rebuilds its bindings before it serves: from the newest snapshot
 * of them (written at the node's checkpoints, `snapshotAll`) and the stream's entries after it, so a
 * takeover reads what came since the last checkpoint, not every binding the home ever made. A bind
 * it had not made durable was never answered, and the sender's retry binds afresh.
 *
 * Each home's bindings are an index of their own, holding exactly the entries of its stream up to
 * the last append that returned: a binding enters it in the group commit's own turn, as its append
 * returns (`flush`), so a snapshot taken between two appends folds precisely the stream's prefix.
 */
import type { Messaging } from "../messaging/messaging.js";
import { Packr } from "msgpackr";
import { IdempotencyIndex, type FreshClaim } from "../idempotency/index.js";
import { decodeIndexSnapshot, indexSnapshotParts } from "../idempotency/index-snapshot.js";
import { JetStreamJournal } from "../journal/jetstream-journal.js";
import type { JournalPosition } from "../journal/journal.js";
import { UnavailableError } from "../runtime/unavailable.js";
import { fnv1a32 } from "../runtime/shard-routing.js";

export type BindVerdict = "bound" | "conflict";

/** A binding as logged: the key, the fingerprint it is bound to, and the partition the command executes on. */
type LoggedBinding = [actorId: string, commandId: string, fingerprint: string, marketPartition: number];

const packr = new Packr({ useRecords: false, moreTypes: false });

export function keysStream(partition: number): string {
  return `keys-${partition}`;
}

/** The home partition of (actorId, commandId): one of the cluster's first `keyHomes` partitions. */
export function homeOf(actorId: string, commandId: string, keyHomes: number): number {
  return fnv1a32(`${actorId}\u0000${commandId}`) % keyHomes;
}

/** Snapshots of a home's bindings kept in the object store (the newest and the one before it). */
const SNAPSHOTS_KEPT = 2;

interface Staged {
  readonly payload: Uint8Array;
  /** The binding's claim in the home's index, completed when its append returns. */
  readonly claim: FreshClaim;
  readonly marketPartition: number;
  resolve(): void;
  reject(error: unknown): void;
}

interface HomeLog {
  readonly partition: number;
  readonly journal: JetStreamJournal;
  /** The home's bindings: exactly its stream's entries up to the last append that returned. */
  readonly bindings: IdempotencyIndex;
  staged: Staged[];
  appending: Promise<void> | undefined;
  failure: Error | undefined;
  /** Bindings appended since the newest snapshot (none: nothing to snapshot). */
  sinceSnapshot: number;
  /** A snapshot asked for while an append was in flight: taken as that append returns. */
  snapshotDue: boolean;
  /** The snapshot being written, if any (close waits for it). */
  snapshotting: Promise<void> | undefined;
}

/** What a node hears from its key homes. */
export interface KeyHomeEvents {
  /** A home's stream failed (fenced, out of reach): it binds and answers nothing until opened again. */
  failed(partition: number, error: unknown): void;
  /** A snapshot could not be written or read (the stream still holds every binding: nothing is lost). */
  snapshotFailed(partition: number, error: unknown): void;
}

export class KeyBindings {
  /** The home partitions this node serves, each with its stream and its bindings. */
  private readonly homes = new Map<number, HomeLog>();
  /**
   * Each home's opens and closes, one after another: an open waits for a close in progress, whose
   * appends still in flight may yet be acknowledged, so that the open reads them.
   */
  private readonly transitions = new Map<number, Promise<unknown>>();

  constructor(
    private readonly messaging: Messaging,
    /** The index of the commands executed in a partition this node owns (undefined: it has none open). */
    private readonly marketIndexOf: (partition: number) => IdempotencyIndex | undefined,
    private readonly events: KeyHomeEvents,
  ) {}

  /** Runs `step` after the home's earlier opens and closes. */
  private inTurn<T>(partition: number, step: () => Promise<T>): Promise<T> {
    const run = (this.transitions.get(partition) ?? Promise.resolve()).then(step, step);
    this.transitions.set(partition, run.catch(() => undefined));
    return run;
  }

  /**
   * Opens home partition `partition`'s bindings at lease `epoch`: claims its stream, then takes its
   * newest snapshot (checked against the stream by the journal) and reads the bindings after it.
   * Returns how many bindings it holds, and how many of them came from the snapshot.
   */
  open(partition: number, epoch: number): Promise<{ bindings: number; fromSnapshot: number }> {
    return this.inTurn(partition, () => this.openNow(partition, epoch));
  }

  /**
   * Opens a home again after its stream failed, unless `wanted()` says no when its turn comes (the
   * partition was lost meanwhile: that close ran first, and nothing would close this open).
   */
  reopen(partition: number, epoch: number, wanted: () => boolean): Promise<void> {
    return this.inTurn(partition, async () => {
      if (wanted()) await this.openNow(partition, epoch);
    });
  }

  /** Opens the home, closing first what this node still holds of it. */
  private async openNow(partition: number, epoch: number): Promise<{ bindings: number; fromSnapshot: number }> {
    if (this.homes.has(partition)) await this.closeNow(partition);
    // Reopened at the epoch this owner claimed before (a failure while it kept the lease): it goes on
    // writing in that epoch, as the partition's journal does (engine/journal/partition-journal.ts).
    const journal = await JetStreamJournal.open({ messaging: this.messaging, name: keysStream(partition), epoch });
    // The stream holds every binding, so a snapshot not used (its mark does not match, its object cannot be read) costs a longer read: said, not refused.
    const ignored = journal.recovery.snapshotIgnored;
    if (ignored !== null) this.events.snapshotFailed(partition, new Error(`the newest snapshot of ${keysStream(partition)} was not used: ${ignored}`));
    let bindings = new IdempotencyIndex();
    let fromSnapshot = 0;
    try {
      let readAfter = 0;
      const snapshot = journal.snapshot;
      if (snapshot !== undefined) {
        try {
          const opened = decodeIndexSnapshot(snapshot.payload, 1, `the key bindings of one home (${keysStream(partition)})`);
          if (opened.watermarks[0] !== snapshot.sequence) throw new Error(`the snapshot of ${keysStream(partition)} at sequence ${snapshot.sequence} says it folds sequence ${opened.watermarks[0]}`);
          opened.restoreInto(bindings);
          fromSnapshot = bindings.size;
          readAfter = snapshot.sequence;
        } catch (error) {
          // The stream holds every binding: read it whole instead of refusing the home for good.
          this.events.snapshotFailed(partition, error);
          bindings = new IdempotencyIndex();
        }
      }
      if (journal.lastEpoch !== epoch) await journal.claim(epoch);
      await journal.read(readAfter, (entry) => {
        const [actorId, commandId, fingerprint, marketPartition] = packr.unpack(entry.payload) as LoggedBinding;
        bindings.restore(actorId, commandId, fingerprint, { owner: marketPartition, position: entry.position });
      });
    } catch (error) {
      await journal.close();
      throw error;
    }
    // What was read from the stream is not in a snapshot yet: the next checkpoint writes one.
    const sinceSnapshot = bindings.size - fromSnapshot;
    this.homes.set(partition, { partition, journal, bindings, staged: [], appending: undefined, failure: undefined, sinceSnapshot, snapshotDue: false, snapshotting: undefined });
    return { bindings: bindings.size, fromSnapshot };
  }

  /** Stops binding for `partition` (its lease is given up or lost, or its stream failed), once its appends and its snapshot in flight settled. */
  close(partition: number): Promise<void> {
    return this.inTurn(partition, () => this.closeNow(partition));
  }

  private async closeNow(partition: number): Promise<void> {
    const home = this.homes.get(partition);
    if (home === undefined) return;
    this.homes.delete(partition);
    while (home.appending !== undefined) await home.appending;
    await home.snapshotting;
    await home.journal.close();
  }

  /**
   * Snapshots the bindings of every home this node serves that bound a key since its last snapshot
   * (the node's checkpoint): at once if no append is in flight, else as the one in flight returns.
   */
  snapshotAll(): void {
    for (const home of this.homes.values()) {
      if (home.failure !== undefined || home.snapshotting !== undefined) continue;
      if (home.appending !== undefined) home.snapshotDue = true;
      else if (home.sinceSnapshot > 0) this.snapshot(home);
    }
  }

  /** Writes the home's snapshot; runs only between appends, when its index folds exactly the stream's prefix. */
  private snapshot(home: HomeLog): void {
    home.snapshotDue = false;
    const covered = home.sinceSnapshot;
    home.sinceSnapshot = 0;
    const parts = indexSnapshotParts(home.bindings, [home.journal.lastSequence]);
    const payload = Buffer.concat(parts);
    // writeSnapshot takes the stream's position now, synchronously: the image above is of that prefix.
    home.snapshotting = home.journal
      .writeSnapshot(payload, SNAPSHOTS_KEPT)
      .then(
        () => undefined,
        (error: unknown) => {
          home.sinceSnapshot += covered; // the next checkpoint tries again
          this.events.snapshotFailed(home.partition, error);
        },
      )
      .finally(() => {
        home.snapshotting = undefined;
      });
  }

  /**
   * Whether the key is bound to another fingerprint at its home `home`, which this node serves
   * (checked by the owner of a command executing in its key's home).
   */
  boundOtherwise(home: number, actorId: string, commandId: string, fingerprint: string): boolean {
    return this.served(home).bindings.usedOtherwise(actorId, commandId, fingerprint);
  }

  /** A binding of another fingerprint in flight at `home`: settles with its outcome (IdempotencyIndex.inFlightOtherwise). */
  bindingInFlightOtherwise(home: number, actorId: string, commandId: string, fingerprint: string): Promise<unknown> | undefined {
    return this.homes.get(home)?.bindings.inFlightOtherwise(actorId, commandId, fingerprint);
  }

  /** The index of the commands executed in partition `home`, or the client's 503 when it is not open here (its bindings then are not either). */
  private homeIndex(home: number): IdempotencyIndex {
    const index = this.marketIndexOf(home);
    if (index === undefined) throw new UnavailableError(`this node does not bind keys for partition ${home} now; retry shortly`);
    return index;
  }

  /** The home's log, or the client's 503 when this node does not bind for it now (never an unchecked answer). */
  private served(home: number): HomeLog {
    const log = this.homes.get(home);
    if (log === undefined || log.failure !== undefined) throw new UnavailableError(`this node does not bind keys for partition ${home} now; retry shortly`);
    return log;
  }

  /** Binds the key at home partition `home` (which this node must serve): "bound" once durable, or "conflict". */
  async bind(home: number, actorId: string, commandId: string, fingerprint: string, marketPartition: number): Promise<BindVerdict> {
    for (;;) {
      // The commands that need no binding here are those executing in the home partition itself.
      const marketIndex = this.homeIndex(home);
      // Another content executing under the key here: its outcome decides (abandoned: bind afresh).
      const executing = marketIndex.inFlightOtherwise(actorId, commandId, fingerprint);
      if (executing !== undefined) {
        await executing;
        continue;
      }
      const log = this.served(home);
      if (marketIndex.usedOtherwise(actorId, commandId, fingerprint)) return "conflict";
      const claim = log.bindings.claim(actorId, commandId, fingerprint);
      switch (claim.kind) {
        case "conflict":
          return "conflict";
        case "replay":
          return "bound";
        case "pending":
          if ((await claim.settled) === undefined) continue;
          return claim.sameContent ? "bound" : "conflict";
        case "fresh":
          try {
            await this.append(log, packr.pack([actorId, commandId, fingerprint, marketPartition] satisfies LoggedBinding), claim, marketPartition);
            return "bound";
          } catch (error) {
            // The stream's error (fenced, out of reach) is the partition's business, not the client's.
            throw error instanceof UnavailableError ? error : new UnavailableError(`the commandId could not be bound at its home partition ${home} now; retry shortly`);
          }
      }
    }
  }

  /** Group commit: one append in flight per home; what is staged meanwhile is the next batch. */
  private append(log: HomeLog, payload: Uint8Array, claim: FreshClaim, marketPartition: number): Promise<void> {
    const appended = new Promise<void>((resolve, reject) => log.staged.push({ payload, claim, marketPartition, resolve, reject }));
    if (log.appending === undefined) log.appending = this.flush(log);
    return appended;
  }

  private async flush(log: HomeLog): Promise<void> {
    // First a turn of the microtask queue, so that `append` has stored this flush in `log.appending`
    // before the loop below can end and clear it: a home that failed awaits nothing, and a settled
    // flush left in `appending` would make `close` (which awaits it until it is cleared) spin for ever.
    await undefined;
    while (log.staged.length > 0) {
      const batch = log.staged;
      log.staged = [];
      try {
        if (log.failure !== undefined) throw log.failure;
        const positions = await log.journal.append(
          batch.map((staged) => staged.payload),
          { expectedLastSequence: log.journal.lastSequence },
        );
        // In this turn, as the append returns: the index then holds exactly the stream's prefix.
        batch.forEach((staged, i) => {
          staged.claim.complete({ owner: staged.marketPartition, position: positions[i] as JournalPosition });
          staged.resolve();
        });
        log.sinceSnapshot += batch.length;
        if (log.snapshotDue) this.snapshot(log);
      } catch (error) {
        // Fenced (another owner) or the stream out of reach: this home binds nothing more until reopened.
        if (log.failure === undefined) {
          log.failure = error instanceof Error ? error : new Error(String(error));
          this.events.failed(log.partition, error);
        }
        for (const staged of batch) {
          staged.claim.abandon();
          staged.reject(error);
        }
      }
    }
    log.appending = undefined;
  }
}
