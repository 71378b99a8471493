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
import { markOf, type SettledTableContinuationHeader, type SettledTableImage, type SettledTableImageHeader, type SettledTableMark } from "./settled-table.js";

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
 *
 * v4, a continuation (decision I66): a header `{v, watermarks, previous, seed, from, count,
 * arenaPages, lastArenaPageBytes}` followed by the entries added since the snapshot at lsn
 * `previous` (settled-table.ts `SettledTableContinuation`). A load reads the chain back to a full
 * image and applies it forward. Only a data directory's own checkpoints write them
 * (`IndexSnapshotWriter`); the cluster's snapshot objects are whole v3 images.
 */
const VERSION = 3;
const CONTINUATION_VERSION = 4;
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

interface StoredIndexV4Header extends SettledTableContinuationHeader {
  v: 4;
  watermarks: number[];
  /** The lsn (file) of the snapshot this one continues. */
  previous: number;
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
  /** The lsn of the full image the opened snapshot's chain starts from (undefined: none opened). */
  fullLsn?: number;
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
  // Newest first: a snapshot whose chain lost a link (a file invalid or gone) gives way to an older one.
  for (const { lsn } of snapshots.list()) {
    const loaded = snapshots.loadValid(lsn);
    if (typeof loaded === "string") continue;
    const opened = openChain(snapshots, lsn, loaded.payload, shardCount);
    if (opened !== undefined) return opened;
  }
  return { watermarks: new Array<number>(shardCount).fill(0), restoreInto: () => undefined };
}

/** A snapshot as a link of a chain: what it holds, and what it continues (a continuation) or where it ends (a full v3 image). */
interface ChainLink {
  opened: OpenedIndexSnapshot;
  continues: StoredIndexV4Header | undefined;
  /** Where a v3 image or a continuation ends, with its hash seed (a continuation of it must continue both); undefined for v1 and v2. */
  end: (SettledTableMark & { seed: number }) | undefined;
}

/** The snapshot at `lsn` with every snapshot it continues, back to a full image; undefined if a link is missing or invalid. */
function openChain(snapshots: SnapshotStore, lsn: number, payload: Uint8Array, shardCount: number): OpenedIndexSnapshot | undefined {
  const expected = `SHARDS=${shardCount}`;
  const links: ChainLink[] = [decodeLink(payload, shardCount, expected)];
  let at = lsn;
  for (let link = links[0] as ChainLink; link.continues !== undefined; link = links[links.length - 1] as ChainLink) {
    const { previous, from, seed } = link.continues;
    if (!(Number.isSafeInteger(previous) && previous >= 0 && previous < at)) return undefined;
    const loaded = snapshots.loadValid(previous);
    if (typeof loaded === "string") return undefined;
    const earlier = decodeLink(loaded.payload, shardCount, expected);
    const { end } = earlier;
    if (end === undefined || end.seed !== seed || end.count !== from.count || end.arenaPages !== from.arenaPages || end.lastArenaPageBytes !== from.lastArenaPageBytes) return undefined;
    links.push(earlier);
    at = previous;
  }
  const newest = links[0] as ChainLink;
  return {
    watermarks: newest.opened.watermarks,
    fullLsn: at,
    restoreInto: (index) => {
      for (let i = links.length - 1; i >= 0; i -= 1) (links[i] as ChainLink).opened.restoreInto(index);
    },
  };
}

function decodeLink(payload: Uint8Array, watermarkCount: number, expected: string): ChainLink {
  const decoded = decodeHeader(payload, watermarkCount, expected, [CONTINUATION_VERSION]);
  const { header, body } = decoded;
  if (header.v === CONTINUATION_VERSION) {
    return { opened: { watermarks: header.watermarks, restoreInto: (index) => void index.appendImage(header, body) }, continues: header, end: { seed: header.seed, ...markOf(header) } };
  }
  const end = header.v === VERSION ? { seed: header.seed, ...markOf(header) } : undefined;
  return { opened: openWhole({ ...decoded, header }, payload), continues: undefined, end };
}

/**
 * An index snapshot's bytes (any version this build reads) with `watermarkCount` watermarks: the
 * file's payload here, or a snapshot object of the cluster's key bindings (key-bindings.ts).
 * `expected` names what the watermarks are of, for the error when they do not match.
 */
export function decodeIndexSnapshot(payload: Uint8Array, watermarkCount: number, expected: string): OpenedIndexSnapshot {
  const decoded = decodeHeader(payload, watermarkCount, expected, []);
  const { header } = decoded;
  if (header.v === CONTINUATION_VERSION) throw new Error(`idempotency index snapshot does not match this build or ${expected}`);
  return openWhole({ ...decoded, header }, payload);
}

/** A whole snapshot (v1, v2 or a v3 image) from its decoded header: its watermarks, and its entries when asked. */
function openWhole(decoded: { header: Exclude<StoredHeader, StoredIndexV4Header>; headerEnd: number; body: Uint8Array }, payload: Uint8Array): OpenedIndexSnapshot {
  const { header: stored, headerEnd, body } = decoded;
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
  if (stored.v === VERSION) return { watermarks: stored.watermarks, restoreInto: (index) => void index.restoreImage(stored, body) };
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

type StoredHeader = StoredIndexV1 | StoredIndexV2Header | StoredIndexV3Header | StoredIndexV4Header;

/**
 * A snapshot's header, checked against this build (its version, v4 only where `alsoVersions` has it)
 * and the watermark count, and where its body starts (v3, v4: the next multiple of 8).
 */
function decodeHeader(payload: Uint8Array, watermarkCount: number, expected: string, alsoVersions: readonly number[]): { header: StoredHeader; headerEnd: number; body: Uint8Array } {
  let header: StoredHeader | undefined;
  let headerEnd = 0;
  packr.unpackMultiple(payload, (value: unknown, _start?: number, end?: number) => {
    header = value as StoredHeader;
    headerEnd = end ?? 0;
    return false; // the header only
  });
  releaseSource();
  const stored = header;
  if (stored === undefined || !(stored.v === 1 || stored.v === 2 || stored.v === VERSION || alsoVersions.includes(stored.v)) || !Array.isArray(stored.watermarks) || stored.watermarks.length !== watermarkCount) {
    throw new Error(`idempotency index snapshot does not match this build or ${expected}`);
  }
  if (stored.v !== 1 && (headerEnd <= 0 || headerEnd > payload.length)) throw new Error("idempotency index snapshot header has no end");
  return { header: stored, headerEnd, body: payload.subarray(Math.min(payload.length, alignedBodyStart(headerEnd))) };
}

/** Load the newest index snapshot into `index`; returns the per-shard watermarks (zeros if none). */
export function loadIndexSnapshot(snapshots: SnapshotStore, shardCount: number, index: IdempotencyIndex): number[] {
  const opened = openIndexSnapshot(snapshots, shardCount);
  opened.restoreInto(index);
  return opened.watermarks;
}

/**
 * Write the finished entries with the watermarks they are complete up to. The table image is taken
 * in one turn when the write starts (full pages shared, the last partial pages copied) and written
 * off the thread. Entries finished while the file is written are not in it; those finished after the
 * watermarks were taken may be: a restart gets what is after the watermarks from the shard logs
 * again, and restoring an entry twice changes nothing. Identity-owned entries are in the
 * image but skipped on load: the identity store restores them from its own log.
 */
export async function writeIndexSnapshot(snapshots: SnapshotStore, index: IdempotencyIndex, watermarks: readonly number[]): Promise<number> {
  // A writer of its own continues nothing: one full image (tests, benches).
  return new IndexSnapshotWriter(snapshots).write(index, watermarks);
}

/**
 * A data directory's index snapshots as its checkpoints write them (decision I66). The index holds
 * every command ever taken, so writing it whole at every checkpoint wrote more at each, and its
 * write and fsync took the shards' disk and the machine's cores from the claims of the moment.
 * Instead, each snapshot after the first holds only the entries added since the last one written
 * (a v4 continuation naming it), until the continuations since the last full image add up to that
 * image's size: then a full image again. So a checkpoint writes about what was added since the one
 * before, a start reads at most about two full images' worth, and the full images come about each
 * time the index doubles. The first snapshot of a process is full (it continues nothing it knows);
 * when a full image is written, the files older than the full image before it are deleted, so the
 * previous chain stays, the fallback of a damaged newest chain.
 */
export class IndexSnapshotWriter {
  /** The last snapshot this writer wrote: its lsn and where its entries ended. */
  private last: { lsn: number; end: SettledTableMark } | undefined;
  /** The size of the newest full image this writer wrote (continuations follow only its own). */
  private fullBytes = 0;
  private bytesSinceFull = 0;
  /** Writes one after another: a checkpoint's and a close's may be asked for at once. */
  private writing: Promise<unknown> = Promise.resolve();

  /**
   * `fullLsn`: the lsn of the full image the snapshot this process started from began with
   * (`OpenedIndexSnapshot.fullLsn`): the files older than it are deleted at the first full image
   * this writer writes, and the chain it began is kept as that one's fallback.
   */
  constructor(
    private readonly snapshots: SnapshotStore,
    private fullLsn?: number,
  ) {}

  /** Writes `index`'s entries with the watermarks they are complete up to; resolves with the file's size (0: none written, the last one holds them). */
  write(index: IdempotencyIndex, watermarks: readonly number[]): Promise<number> {
    const written = this.writing.then(() => this.writeNow(index, watermarks));
    this.writing = written.catch(() => undefined);
    return written;
  }

  private async writeNow(index: IdempotencyIndex, watermarks: readonly number[]): Promise<number> {
    // The snapshot store numbers files by lsn: use a counter that only grows (sum of watermarks).
    const lsn = watermarks.reduce((sum, at) => sum + at, 0);
    if (this.last !== undefined && lsn < this.last.lsn) throw new Error(`idempotency index snapshot: watermarks went back (${lsn} after ${this.last.lsn})`);
    // The same watermarks (each only grows, so the same sum): the last snapshot already holds every entry they cover.
    if (this.last !== undefined && lsn === this.last.lsn) return 0;
    const continuation = this.last !== undefined && this.last.end.count > 0 ? continuationParts(index, watermarks, this.last) : undefined;
    const continuationBytes = continuation?.parts.reduce((sum, part) => sum + part.length, 0) ?? 0;
    if (continuation !== undefined && this.bytesSinceFull + continuationBytes < this.fullBytes) {
      const written = await this.snapshots.write({ lsn, chainHead: Buffer.alloc(32), payloadParts: continuation.parts });
      this.last = { lsn, end: continuation.end };
      this.bytesSinceFull += continuationBytes;
      return written.sizeBytes;
    }
    const image = index.image();
    const written = await this.snapshots.write({ lsn, chainHead: Buffer.alloc(32), payloadParts: imageParts(image, watermarks) });
    // The chain the full image before this one began stays: a damaged newest chain falls back to it.
    if (this.fullLsn !== undefined) await this.snapshots.pruneOlderThan(this.fullLsn);
    this.fullLsn = lsn;
    this.fullBytes = written.sizeBytes;
    this.last = { lsn, end: markOf(image) };
    this.bytesSinceFull = 0;
    return written.sizeBytes;
  }
}

/** A v4 continuation of the snapshot `last` ended: its parts and where it ends. */
function continuationParts(index: IdempotencyIndex, watermarks: readonly number[], last: { lsn: number; end: SettledTableMark }): { parts: Uint8Array[]; end: SettledTableMark } {
  const { parts, ...image } = index.imageSince(last.end);
  const header: StoredIndexV4Header = { v: CONTINUATION_VERSION, watermarks: [...watermarks], previous: last.lsn, ...image };
  return { parts: [alignedHeader(header), ...parts], end: markOf(image) };
}

/**
 * The current v3 snapshot of `index`'s settled entries with their `watermarks`, as the parts of one
 * payload (`decodeIndexSnapshot` reads it back), taken synchronously: the table's full pages are
 * shared, the rest copied, so entries finished afterwards are not in it.
 */
export function indexSnapshotParts(index: IdempotencyIndex, watermarks: readonly number[]): Uint8Array[] {
  return imageParts(index.image(), watermarks);
}

function imageParts(image: SettledTableImage, watermarks: readonly number[]): Uint8Array[] {
  const header: StoredIndexV3Header = {
    v: VERSION,
    watermarks: [...watermarks],
    seed: image.seed,
    count: image.count,
    slotCount: image.slotCount,
    arenaPages: image.arenaPages,
    lastArenaPageBytes: image.lastArenaPageBytes,
  };
  return [alignedHeader(header), ...image.parts];
}

/**
 * A header's bytes, zero-padded to the next multiple of 8, where the body starts, so a load can
 * adopt its columns as typed-array views. packr.pack returns a view of its reusable buffer: copied.
 */
function alignedHeader(header: StoredIndexV3Header | StoredIndexV4Header): Buffer {
  const packed = packr.pack(header);
  const headerBytes = Buffer.alloc(alignedBodyStart(packed.length));
  headerBytes.set(packed);
  return headerBytes;
}
