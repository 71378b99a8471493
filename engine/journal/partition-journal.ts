/**
 * A cluster partition's journal as its owner's shard opens it: on a connection of the shard's own
 * (a worker thread cannot share the gateway thread's), the partition's JetStream stream, claimed for
 * the owner's lease epoch BEFORE the shard reads its entries: from the claim on, no earlier owner
 * can append, so what the shard recovers is everything the stream will ever hold before this
 * owner's own batches. The snapshots open read before the claim hold entries only up to a message
 * already in the stream, which allows no deletes: whatever an earlier owner appended after them, up
 * to the claim, is read after it. The connection is closed after the journal.
 */
import { JetStreamJournal, type SnapshotBeside } from "./jetstream-journal.js";
import type { Messaging } from "../messaging/messaging.js";

export interface PartitionJournal {
  readonly journal: JetStreamJournal;
  /**
   * The newest snapshot of the partition's idempotency entries, which its owners' nodes write beside
   * the partition's own snapshots (decision I58), checked against the stream as it was before the
   * claim: `ignored` says why it does not match, or why a newer one that cannot be read was passed
   * over for it; undefined when there is none.
   */
  readonly idempotency: SnapshotBeside;
  close(): Promise<void>;
}

/** The name a partition's idempotency snapshots are stored under, beside the partition's own (decision I58). */
export function idempotencySnapshotName(stream: string): string {
  return `${stream}.idempotency`;
}

/**
 * Opens and claims the partition's stream on `messaging`, which becomes the journal's: `close` closes both.
 * `spec`: the partition's stream and the owner's lease epoch (what a shard worker's jetstream
 * ShardJournalSpec, engine/runtime/worker-messages.ts, names), spelled out here because the journals
 * sit below the shards and import nothing of them.
 */
export async function openPartitionJournal(messaging: Messaging, spec: { readonly stream: string; readonly epoch: number }): Promise<PartitionJournal> {
  try {
    const idempotencyName = idempotencySnapshotName(spec.stream);
    const journal = await JetStreamJournal.open({ messaging, name: spec.stream, epoch: spec.epoch, snapshotsBeside: [idempotencyName] });
    try {
      // Reopened at the epoch this owner claimed before (its journal failed while it kept the
      // lease): it goes on writing in that epoch; a claim must raise the stream's epoch.
      if (journal.lastEpoch !== spec.epoch) await journal.claim(spec.epoch);
    } catch (error) {
      await journal.close();
      throw error;
    }
    return {
      journal,
      idempotency: journal.takeSnapshotBeside(idempotencyName),
      close: async () => {
        await journal.close();
        await messaging.close();
      },
    };
  } catch (error) {
    await messaging.close();
    throw error;
  }
}
