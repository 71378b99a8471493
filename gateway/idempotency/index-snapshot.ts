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

/**
 * v2: the payload is a sequence of MessagePack values, a header `{v, watermarks}` and then chunks of
 * entries (keys whole), each packed in its own event-loop turn and written as its own part (no
 * 70 MB concatenation on the gateway thread for 1M entries). v1, one value with actor and command
 * ids in separate columns, is still read.
 */
const VERSION = 2;
const packr = new Packr({ useRecords: false, moreTypes: false });
/**
 * Entries collected and packed per event-loop turn: ~16k entries take a few milliseconds, so a
 * checkpoint of a 1M-entry index no longer stops the gateway thread for seconds (it did: 3.4 s in
 * one synchronous pass, measured), it interleaves with requests.
 */
const ENTRIES_PER_TURN = 16_384;

interface StoredIndexV1 {
  v: 1;
  watermarks: number[];
  actorIds: string[];
  commandIds: string[];
  fingerprints: string[];
  owners: number[];
  positions: number[];
}

interface StoredChunk {
  keys: string[];
  fingerprints: string[];
  owners: number[];
  positions: number[];
}

interface StoredIndexV2Header {
  v: 2;
  watermarks: number[];
}

function store(dataDir: string): SnapshotStore {
  return new SnapshotStore({ dir: path.join(dataDir, "idempotency") });
}

/** The newest index snapshot, opened: its watermarks now, its entries when `restoreInto` is called. */
export interface OpenedIndexSnapshot {
  /** Per shard, the lsn its entries are complete up to (zeros when there is no snapshot). */
  watermarks: number[];
  /** Decode the entries into `index` (the expensive part: a start runs it while the shards open). */
  restoreInto(index: IdempotencyIndex): void;
}

/**
 * Open the newest valid index snapshot (CRC checked by the store) and decode only its header, so
 * the shards can be started with their watermarks before the entries are decoded.
 */
export function openIndexSnapshot(dataDir: string, shardCount: number): OpenedIndexSnapshot {
  const loaded = store(dataDir).loadNewestValid().snapshot;
  if (loaded === null) return { watermarks: new Array<number>(shardCount).fill(0), restoreInto: () => undefined };
  const payload = loaded.payload;
  let header: StoredIndexV1 | StoredIndexV2Header | undefined;
  let headerEnd = 0;
  packr.unpackMultiple(payload, (value: unknown, _start?: number, end?: number) => {
    header = value as StoredIndexV1 | StoredIndexV2Header;
    headerEnd = end ?? 0;
    return false; // the header only
  });
  const stored = header;
  if (stored === undefined || (stored.v !== 1 && stored.v !== VERSION) || stored.watermarks.length !== shardCount) {
    throw new Error(`idempotency index snapshot does not match this build or SHARDS=${shardCount}`);
  }
  if (stored.v === 1) {
    const v1 = stored;
    return {
      watermarks: v1.watermarks,
      restoreInto: (index) => {
        for (let i = 0; i < v1.actorIds.length; i += 1) {
          index.restore(v1.actorIds[i] as string, v1.commandIds[i] as string, v1.fingerprints[i] as string, {
            owner: v1.owners[i] as number,
            position: v1.positions[i] as number,
          });
        }
      },
    };
  }
  if (headerEnd <= 0 || headerEnd > payload.length) throw new Error("idempotency index snapshot header has no end");
  return {
    watermarks: stored.watermarks,
    restoreInto: (index) => {
      if (headerEnd === payload.length) return;
      packr.unpackMultiple(payload.subarray(headerEnd), (value: unknown) => {
        const chunk = value as StoredChunk;
        for (let i = 0; i < chunk.keys.length; i += 1) {
          index.restoreKey(chunk.keys[i] as string, chunk.fingerprints[i] as string, { owner: chunk.owners[i] as number, position: chunk.positions[i] as number });
        }
      });
    },
  };
}

/** Load the newest index snapshot into `index`; returns the per-shard watermarks (zeros if none). */
export function loadIndexSnapshot(dataDir: string, shardCount: number, index: IdempotencyIndex): number[] {
  const opened = openIndexSnapshot(dataDir, shardCount);
  opened.restoreInto(index);
  return opened.watermarks;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Write the shard-owned entries with the watermarks they are complete up to, yielding to the event
 * loop between chunks and writing the file off the thread. Entries finished while this runs are
 * included when the iteration reaches them: they lie after the watermarks, so a restart also gets
 * them from the shard logs, and restoring an identical entry twice is a no-op.
 */
export async function writeIndexSnapshot(dataDir: string, index: IdempotencyIndex, watermarks: readonly number[]): Promise<number> {
  const chunks: Uint8Array[] = [];
  const emptyChunk = (): StoredChunk => ({ keys: [], fingerprints: [], owners: [], positions: [] });
  let chunk = emptyChunk();
  const flush = () => {
    if (chunk.keys.length === 0) return;
    chunks.push(Buffer.from(packr.pack(chunk))); // a copy: packr reuses its buffer
    chunk = emptyChunk();
  };
  for (const [key, entry] of index.settledByKey()) {
    if (entry.owner === "identity") continue;
    chunk.keys.push(key);
    chunk.fingerprints.push(entry.fingerprint);
    chunk.owners.push(entry.owner);
    chunk.positions.push(entry.position);
    if (chunk.keys.length === ENTRIES_PER_TURN) {
      flush();
      await nextTurn();
    }
  }
  flush();
  const header: StoredIndexV2Header = { v: VERSION, watermarks: [...watermarks] };
  const snapshots = store(dataDir);
  // The snapshot store numbers files by lsn: use a counter that only grows (sum of watermarks).
  const sequence = watermarks.reduce((sum, lsn) => sum + lsn, 0);
  // packr.pack returns a view of its reusable buffer: copy the header (chunks were copied as packed).
  const written = await snapshots.writeAsync({ lsn: sequence, chainHead: Buffer.alloc(32), payloadParts: [Buffer.from(packr.pack(header)), ...chunks] });
  snapshots.prune(2);
  return written.sizeBytes;
}
