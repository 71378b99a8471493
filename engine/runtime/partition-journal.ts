/**
 * A cluster partition's journal as its owner's shard worker opens it: a NATS connection of the
 * worker's own (a worker thread cannot share the gateway thread's) and the partition's JetStream
 * stream on it, claimed for the owner's lease epoch BEFORE the shard reads it: from the claim on,
 * no earlier owner can append, so what the shard recovers is everything the stream will ever hold
 * before this owner's own batches. The connection is closed after the journal.
 */
import type { NatsConnection } from "@nats-io/transport-node";
import { connectForJournals } from "../journal/jetstream-connection.js";
import { JetStreamJournal } from "../journal/jetstream-journal.js";
import type { ShardJournalSpec } from "./worker-messages.js";

export interface PartitionJournal {
  readonly journal: JetStreamJournal;
  close(): Promise<void>;
}

export async function openPartitionJournal(spec: Extract<ShardJournalSpec, { kind: "jetstream" }>): Promise<PartitionJournal> {
  const connection: NatsConnection = await connectForJournals(spec.natsUrls, spec.connectionName);
  try {
    // Reopened at the epoch this owner claimed before (its journal failed while it kept the
    // lease): it goes on writing in that epoch; a claim must raise the stream's epoch.
    const journal = await JetStreamJournal.open({ connection, name: spec.stream, epoch: spec.epoch });
    try {
      if (journal.lastEpoch !== spec.epoch) await journal.claim(spec.epoch);
    } catch (error) {
      await journal.close();
      throw error;
    }
    return {
      journal,
      close: async () => {
        await journal.close();
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
