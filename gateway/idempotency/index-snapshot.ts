/**
 * Persisting the shard-owned part of the idempotency index, so a restart does not have to re-read
 * every shard's whole log to rebuild it. The snapshot records, per shard, the lsn up to which its
 * entries are included (the watermark); on start each shard reports the entries of frames after
 * its watermark (shard-core.ts), and the union is the complete index. Identity-owned entries are
 * restored by the identity store from its own (small) log.
 */
import { Packr } from "msgpackr";
import * as path from "node:path";
import { SnapshotStore } from "../../storage/index.js";
import type { IdempotencyIndex } from "./index.js";

const VERSION = 1;
const packr = new Packr({ useRecords: false, moreTypes: false });

interface StoredIndex {
  v: number;
  watermarks: number[];
  actorIds: string[];
  commandIds: string[];
  fingerprints: string[];
  owners: number[];
  positions: number[];
}

function store(dataDir: string): SnapshotStore {
  return new SnapshotStore({ dir: path.join(dataDir, "idempotency") });
}

/** Load the newest index snapshot into `index`; returns the per-shard watermarks (zeros if none). */
export function loadIndexSnapshot(dataDir: string, shardCount: number, index: IdempotencyIndex): number[] {
  const loaded = store(dataDir).loadNewestValid().snapshot;
  if (loaded === null) return new Array<number>(shardCount).fill(0);
  const stored = packr.unpack(loaded.payload) as StoredIndex;
  if (stored.v !== VERSION || stored.watermarks.length !== shardCount) {
    throw new Error(`idempotency index snapshot does not match this build or SHARDS=${shardCount}`);
  }
  for (let i = 0; i < stored.actorIds.length; i += 1) {
    index.restore(stored.actorIds[i] as string, stored.commandIds[i] as string, stored.fingerprints[i] as string, {
      owner: stored.owners[i] as number,
      position: stored.positions[i] as number,
    });
  }
  return stored.watermarks;
}

/** Write the shard-owned entries with the watermarks they are complete up to. */
export function writeIndexSnapshot(dataDir: string, index: IdempotencyIndex, watermarks: readonly number[]): number {
  const stored: StoredIndex = { v: VERSION, watermarks: [...watermarks], actorIds: [], commandIds: [], fingerprints: [], owners: [], positions: [] };
  for (const entry of index.entries()) {
    if (entry.owner === "identity") continue;
    stored.actorIds.push(entry.actorId);
    stored.commandIds.push(entry.commandId);
    stored.fingerprints.push(entry.fingerprint);
    stored.owners.push(entry.owner);
    stored.positions.push(entry.position);
  }
  const snapshots = store(dataDir);
  // The snapshot store numbers files by lsn: use a counter that only grows (sum of watermarks).
  const sequence = watermarks.reduce((sum, lsn) => sum + lsn, 0);
  const written = snapshots.write({ lsn: sequence, chainHead: Buffer.alloc(32), payload: packr.pack(stored) });
  snapshots.prune(2);
  return written.sizeBytes;
}
