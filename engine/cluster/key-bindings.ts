/**
 * Idempotency across partitions (docs/cluster.md). One (actor, commandId) is one command in the whole
 * cluster, but a command executes on its market's partition, and the same key sent for two markets
 * would reach two owners that know nothing of each other. So every key has a home partition
 * (`homeOf`: a hash of the key), and before a command executes on another partition its key is
 * bound, at the home's owner, to the command's fingerprint: first come, durably (the stream
 * `keys-<home>`, R3, appended by the home's owner with group commit and fenced by its epoch like
 * the partition's own stream). A key bound to another fingerprint is the spec's conflict; one bound
 * to the same fingerprint goes on to its market's owner, whose own index gives the original reply.
 *
 * A command whose market lies in its key's home partition needs no binding: the home's owner is
 * its market's owner, whose index holds it; that owner only checks that no binding of the key to
 * another fingerprint exists (`boundOtherwise`), and a binding checks that owner's index
 * (`marketIndex.usedOtherwise`). Both checks run on the node's one thread before anything awaits,
 * so a bind and an execution of one key cannot pass each other.
 *
 * A new owner of a home partition rebuilds its bindings from the stream before it serves; a bind
 * it had not made durable was never answered, and the sender's retry binds afresh.
 */
import type { Messaging } from "../messaging/messaging.js";
import { Packr } from "msgpackr";
import { IdempotencyIndex } from "../idempotency/index.js";
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

interface Staged {
  readonly payload: Uint8Array;
  resolve(position: JournalPosition): void;
  reject(error: unknown): void;
}

interface HomeLog {
  readonly journal: JetStreamJournal;
  staged: Staged[];
  appending: Promise<void> | undefined;
  failure: Error | undefined;
}

export class KeyBindings {
  /** Keys bound by the home partitions this node owns (and owned before: bindings never change). */
  private readonly bindings = new IdempotencyIndex();
  private readonly homes = new Map<number, HomeLog>();

  constructor(
    private readonly messaging: Messaging,
    /** The node's index of executed commands (the partitions it owns). */
    private readonly marketIndex: IdempotencyIndex,
  ) {}

  /** Opens home partition `partition`'s bindings at lease `epoch`: claims its stream, then reads every binding. */
  async open(partition: number, epoch: number): Promise<number> {
    // Reopened at the epoch this owner claimed before (a failure while it kept the lease): it goes on
    // writing in that epoch, as the partition's journal does (engine/journal/partition-journal.ts).
    const journal = await JetStreamJournal.open({ messaging: this.messaging, name: keysStream(partition), epoch });
    let restored = 0;
    try {
      if (journal.lastEpoch !== epoch) await journal.claim(epoch);
      await journal.read(0, (entry) => {
        const [actorId, commandId, fingerprint, marketPartition] = packr.unpack(entry.payload) as LoggedBinding;
        this.bindings.restore(actorId, commandId, fingerprint, { owner: marketPartition, position: entry.position });
        restored += 1;
      });
    } catch (error) {
      await journal.close();
      throw error;
    }
    this.homes.set(partition, { journal, staged: [], appending: undefined, failure: undefined });
    return restored;
  }

  /** Stops binding for `partition` (its lease is given up or lost), once its appends in flight settled. */
  async close(partition: number): Promise<void> {
    const home = this.homes.get(partition);
    if (home === undefined) return;
    this.homes.delete(partition);
    while (home.appending !== undefined) await home.appending;
    await home.journal.close();
  }

  /** Whether the key is bound to another fingerprint (checked by the owner of a command executing in its home). */
  boundOtherwise(actorId: string, commandId: string, fingerprint: string): boolean {
    return this.bindings.usedOtherwise(actorId, commandId, fingerprint);
  }

  /** A binding of another fingerprint in flight: settles with its outcome (IdempotencyIndex.inFlightOtherwise). */
  bindingInFlightOtherwise(actorId: string, commandId: string, fingerprint: string): Promise<unknown> | undefined {
    return this.bindings.inFlightOtherwise(actorId, commandId, fingerprint);
  }

  /** Binds the key at home partition `home` (which this node must serve): "bound" once durable, or "conflict". */
  async bind(home: number, actorId: string, commandId: string, fingerprint: string, marketPartition: number): Promise<BindVerdict> {
    for (;;) {
      // Another content executing under the key here: its outcome decides (abandoned: bind afresh).
      const executing = this.marketIndex.inFlightOtherwise(actorId, commandId, fingerprint);
      if (executing !== undefined) {
        await executing;
        continue;
      }
      const log = this.homes.get(home);
      if (log === undefined || log.failure !== undefined) throw new UnavailableError(`this node does not bind keys for partition ${home} now; retry shortly`);
      if (this.marketIndex.usedOtherwise(actorId, commandId, fingerprint)) return "conflict";
      const claim = this.bindings.claim(actorId, commandId, fingerprint);
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
            const position = await this.append(log, packr.pack([actorId, commandId, fingerprint, marketPartition] satisfies LoggedBinding));
            claim.complete({ owner: marketPartition, position });
            return "bound";
          } catch (error) {
            claim.abandon();
            // The stream's error (fenced, out of reach) is the partition's business, not the client's.
            throw error instanceof UnavailableError ? error : new UnavailableError(`the commandId could not be bound at its home partition ${home} now; retry shortly`);
          }
      }
    }
  }

  /** Group commit: one append in flight per home; what is staged meanwhile is the next batch. */
  private append(log: HomeLog, payload: Uint8Array): Promise<JournalPosition> {
    const position = new Promise<JournalPosition>((resolve, reject) => log.staged.push({ payload, resolve, reject }));
    if (log.appending === undefined) log.appending = this.flush(log);
    return position;
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
        batch.forEach((staged, i) => staged.resolve(positions[i] as JournalPosition));
      } catch (error) {
        // Fenced (another owner) or the stream out of reach: this home binds nothing more until reopened.
        log.failure ??= error instanceof Error ? error : new Error(String(error));
        for (const staged of batch) staged.reject(error);
      }
    }
    log.appending = undefined;
  }
}
