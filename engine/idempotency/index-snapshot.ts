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
import { endianness } from "node:os";
import type { IdempotencyIndex } from "./index.js";
import type { SettledTableImageHeader } from "./settled-table.js";

// The columns are stored as the machine's typed arrays; every platform we ship for is
// little-endian, and a big-endian one would misread them, so refuse it outright.
if (endianness() !== "LE") throw new Error("idempotency index snapshots store little-endian columns");

/**
 * v3: a MessagePack header `{v, watermarks, seed, count, arenaPages, lastArenaPageBytes}` followed
 * by the index's settled table as raw bytes (settled-table.ts: hash, key reference, owner and
 * position columns, then the key arena), little-endian. Writing shares the table's full pages
 * instead of encoding entries, and a load copies pages and re-inserts stored hashes instead of
 * decoding 10M MessagePack entries into objects (26 s for 10M in v2, measured).
 * Still read: v2 (a header, then MessagePack chunks of whole keys) and v1 (one value, actor and
 * command ids in separate columns).
 */
const VERSION = 3;
const packr = new Packr({ useRecords: false, moreTypes: false });

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

interface StoredIndexV3Header extends SettledTableImageHeader {
  v: 3;
  watermarks: number[];
}

/**
 * msgpackr keeps the last buffer it decoded in a module variable until its next decode, which would
 * keep a whole index snapshot (hundreds of MB for a large index) alive after start-up (the loaded
 * payload stayed in `external` memory). Decoding one byte replaces that reference.
 */
const NIL = Uint8Array.of(0xc0);

/** Where a v3 body starts: the header's end rounded up to a multiple of 8. */
function alignedBodyStart(headerEnd: number): number {
  return Math.ceil(headerEnd / 8) * 8;
}
function releaseSource(): void {
  packr.unpack(NIL);
}

/**
 * The index snapshots of the data directory `dataDir`. Its owner keeps it for as long as it runs:
 * the store remembers the snapshots it wrote, so a checkpoint's prune does not read them back on
 * the gateway thread (storage/snapshot-store.ts).
 */
export function indexSnapshotStore(dataDir: string): SnapshotStore {
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
/** Bytes enough for any header's watermarks (a v1 snapshot holds its entries in the same value). */
const WATERMARK_PEEK_BYTES = 4096;

/**
 * The newest index snapshot's watermarks read from its first bytes, before the file is read whole
 * and checked: the shards can start opening with them while this thread reads and checks it. A
 * hint only: undefined when they cannot be read that way (no snapshot, a v1 snapshot, a header
 * longer than the peek), and the caller compares them with `openIndexSnapshot`'s, which decide.
 */
export function peekIndexWatermarks(snapshots: SnapshotStore, shardCount: number): number[] | undefined {
  const peeked = snapshots.peekNewestPayload(WATERMARK_PEEK_BYTES);
  if (peeked === null) return undefined;
  let header: unknown;
  try {
    packr.unpackMultiple(peeked.payloadPrefix, (value: unknown) => {
      header = value;
      return false;
    });
  } catch {
    return undefined; // cut short by the peek, or damaged: the full read decides
  } finally {
    releaseSource();
  }
  const { v, watermarks } = (header ?? {}) as { v?: unknown; watermarks?: unknown };
  if (v === 1 || !Array.isArray(watermarks) || watermarks.length !== shardCount) return undefined;
  return watermarks.every((lsn) => Number.isSafeInteger(lsn) && (lsn as number) >= 0) ? (watermarks as number[]) : undefined;
}

export function openIndexSnapshot(snapshots: SnapshotStore, shardCount: number): OpenedIndexSnapshot {
  const loaded = snapshots.loadNewestValid().snapshot;
  if (loaded === null) return { watermarks: new Array<number>(shardCount).fill(0), restoreInto: () => undefined };
  return decodeIndexSnapshot(loaded.payload, shardCount, `SHARDS=${shardCount}`);
}

/**
 * An index snapshot's bytes (any version this build reads) with `watermarkCount` watermarks: the
 * file's payload here, or a snapshot object of the cluster's key bindings (key-bindings.ts).
 * `expected` names what the watermarks are of, for the error when they do not match.
 */
export function decodeIndexSnapshot(payload: Uint8Array, watermarkCount: number, expected: string): OpenedIndexSnapshot {
  let header: StoredIndexV1 | StoredIndexV2Header | StoredIndexV3Header | undefined;
  let headerEnd = 0;
  packr.unpackMultiple(payload, (value: unknown, _start?: number, end?: number) => {
    header = value as StoredIndexV1 | StoredIndexV2Header | StoredIndexV3Header;
    headerEnd = end ?? 0;
    return false; // the header only
  });
  releaseSource();
  const stored = header;
  if (stored === undefined || (stored.v !== 1 && stored.v !== 2 && stored.v !== VERSION) || stored.watermarks.length !== watermarkCount) {
    throw new Error(`idempotency index snapshot does not match this build or ${expected}`);
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
  if (stored.v === VERSION) {
    const body = payload.subarray(Math.min(payload.length, alignedBodyStart(headerEnd)));
    return { watermarks: stored.watermarks, restoreInto: (index) => void index.restoreImage(stored, body) };
  }
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
      releaseSource();
    },
  };
}

/** Load the newest index snapshot into `index`; returns the per-shard watermarks (zeros if none). */
export function loadIndexSnapshot(snapshots: SnapshotStore, shardCount: number, index: IdempotencyIndex): number[] {
  const opened = openIndexSnapshot(snapshots, shardCount);
  opened.restoreInto(index);
  return opened.watermarks;
}

/**
 * Write the finished entries with the watermarks they are complete up to. The table image is taken
 * synchronously (full pages shared, the last partial pages copied) and written off the thread.
 * Entries finished while the file is written are not in it: they lie after the watermarks (taken
 * before this call), so a restart gets them from the shard logs. Identity-owned entries are in the
 * image but skipped on load: the identity store restores them from its own log.
 */
export async function writeIndexSnapshot(snapshots: SnapshotStore, index: IdempotencyIndex, watermarks: readonly number[]): Promise<number> {
  const parts = indexSnapshotParts(index, watermarks);
  // The snapshot store numbers files by lsn: use a counter that only grows (sum of watermarks).
  const sequence = watermarks.reduce((sum, lsn) => sum + lsn, 0);
  const written = await snapshots.write({ lsn: sequence, chainHead: Buffer.alloc(32), payloadParts: parts });
  await snapshots.prune(2);
  return written.sizeBytes;
}

/**
 * The current v3 snapshot of `index`'s settled entries with their `watermarks`, as the parts of one
 * payload (`decodeIndexSnapshot` reads it back), taken synchronously: the table's full pages are
 * shared, the rest copied, so entries finished afterwards are not in it.
 */
export function indexSnapshotParts(index: IdempotencyIndex, watermarks: readonly number[]): Uint8Array[] {
  const image = index.image();
  const header: StoredIndexV3Header = {
    v: VERSION,
    watermarks: [...watermarks],
    seed: image.seed,
    count: image.count,
    slotCount: image.slotCount,
    arenaPages: image.arenaPages,
    lastArenaPageBytes: image.lastArenaPageBytes,
  };
  // The body starts at the next multiple of 8 after the header (zero padding), so a load can adopt
  // its columns as typed-array views. packr.pack returns a view of its reusable buffer: copied.
  const packed = packr.pack(header);
  const headerBytes = Buffer.alloc(alignedBodyStart(packed.length));
  headerBytes.set(packed);
  return [headerBytes, ...image.parts];
}
