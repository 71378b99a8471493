/**
 * A cluster partition's shard: ShardCore on the partition's stream, as a shard worker thread and the
 * simulation's in-process thread both open it.
 */
import type { Messaging } from "../messaging/messaging.js";
import { openPartitionJournal, type PartitionJournal } from "../journal/partition-journal.js";
import { decodeIndexSnapshot } from "../idempotency/index-snapshot.js";
import { IdempotencyIndex } from "../idempotency/index.js";
import { ShardCore, type OpenedShard, type ShardCoreOptions } from "./shard-core.js";

/**
 * Opens a cluster partition's shard on its stream (partition-journal.ts: claimed at the owner's
 * epoch, on `messaging`, which closes with it). Its idempotency entries are reported from the
 * newest snapshot of them that matches the stream on (decision I58), which goes with them; without
 * one, from the stream's first entry.
 */
export async function openPartitionShard(
  messaging: Messaging,
  spec: { readonly stream: string; readonly epoch: number },
  options: Omit<ShardCoreOptions, "journal" | "fenced" | "reportIdempotencyAfterLsn">,
): Promise<{ opened: OpenedShard; close(): Promise<void> }> {
  const startedMs = performance.now();
  const partition = await openPartitionJournal(messaging, spec);
  const streamOpenMs = Math.round(performance.now() - startedMs);
  const beside = checked(partition.idempotency, spec.stream);
  const snapshot = beside !== undefined && "snapshot" in beside ? beside.snapshot : undefined;
  try {
    const opened = await ShardCore.open({ ...options, journal: partition.journal, fenced: true, reportIdempotencyAfterLsn: snapshot?.sequence ?? 0 });
    if (snapshot !== undefined) opened.idempotency.snapshot = { sequence: snapshot.sequence, payload: snapshot.payload };
    if (beside?.ignored !== undefined) opened.report.idempotencySnapshotIgnored = beside.ignored;
    opened.report.streamOpenMs = streamOpenMs;
    return { opened, close: () => partition.close() };
  } catch (error) {
    await partition.close();
    throw error;
  }
}

/**
 * The snapshot, unless it is not one of this build's index snapshots of the entries up to its mark
 * or its entries cannot be loaded (then every entry is read from the stream's first). Loaded here
 * once, into an index thrown away: the node loads it again, and a snapshot it could not load would
 * otherwise stop the partition on every node, each reading the same newest snapshot.
 */
function checked(beside: PartitionJournal["idempotency"], stream: string): PartitionJournal["idempotency"] {
  if (beside === undefined || !("snapshot" in beside)) return beside;
  // Why a newer object was passed over for this one, if it was.
  const before = beside.ignored === undefined ? "" : `${beside.ignored}; then `;
  try {
    const opened = decodeIndexSnapshot(beside.snapshot.payload, 1, `the idempotency entries of ${stream}`);
    if (opened.watermarks[0] !== beside.snapshot.sequence) return { ignored: `${before}the idempotency snapshot at sequence ${beside.snapshot.sequence} says it holds the entries up to ${String(opened.watermarks[0])}` };
    opened.restoreInto(new IdempotencyIndex());
    return beside;
  } catch (error) {
    return { ignored: before + (error instanceof Error ? error.message : String(error)) };
  }
}
