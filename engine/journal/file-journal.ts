/**
 * The embedded journal: storage/'s segment log (msgpack-free frames with CRC-32C and a SHA-256 hash
 * chain, one write + one fdatasync per appended batch) and its snapshot store, in one directory.
 *
 * A position is a frame's byte position in the log; a sequence is its lsn. A snapshot is stored with
 * the log's lsn and chain head at that point and, in front of the caller's payload, where that lsn's
 * frame lies: at the next open the log is read from there instead of from the start of its last
 * segment (storage/checkpoint.ts checks the frame before trusting it). Snapshots written before this
 * envelope existed are still handed to the caller; the log is then scanned without that shortcut.
 */
import * as path from "node:path";
import { SegmentLog, SnapshotStore, type LogCheckpoint, type LogReadView, type StorageFs } from "../../storage/index.js";
import type { AppendOptions, Journal, JournalEntry, JournalPosition, JournalRecovery, JournalSnapshot } from "./journal.js";
import { JournalFencedError } from "./journal.js";

export interface FileJournalOptions {
  /** The journal's directory (segments, and snapshots in `snapshots/`). */
  dir: string;
  /**
   * The caller will read entries after this sequence (it needs more than the snapshot covers, e.g. to
   * report idempotency entries); segments it does not need are not rescanned. Default: the snapshot's.
   */
  readFromSequence?: number;
  segmentSizeBytes?: number;
  fs?: StorageFs;
}

/** "JSN1": the envelope of a snapshot this journal wrote. */
const ENVELOPE_MAGIC = 0x314e534a;
const ENVELOPE_BYTES = 4 + 8 + 8;

interface Envelope {
  lastFramePosition: number;
  endPosition: number;
  payload: Uint8Array;
}

/** The envelope's bytes: written before the caller's payload, as the snapshot's first part. */
function envelopeOf(lastFramePosition: number, endPosition: number): Uint8Array {
  const bytes = new Uint8Array(ENVELOPE_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, ENVELOPE_MAGIC, true);
  view.setFloat64(4, lastFramePosition, true);
  view.setFloat64(12, endPosition, true);
  return bytes;
}

function unwrap(stored: Uint8Array): Envelope | undefined {
  if (stored.length < ENVELOPE_BYTES) return undefined;
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  if (view.getUint32(0, true) !== ENVELOPE_MAGIC) return undefined;
  return { lastFramePosition: view.getFloat64(4, true), endPosition: view.getFloat64(12, true), payload: stored.subarray(ENVELOPE_BYTES) };
}

/** The caller's payload of a stored snapshot (the audit reads snapshots without opening a journal). */
export function snapshotPayloadOf(stored: Uint8Array): Uint8Array {
  return unwrap(stored)?.payload ?? stored;
}

export class FileJournal implements Journal {
  private constructor(
    private readonly log: SegmentLog,
    private readonly snapshots: SnapshotStore,
    readonly snapshot: JournalSnapshot | undefined,
    /** Why the newest valid snapshot was not handed over (its chain head is not the log's at its sequence), or undefined. */
    private readonly snapshotIgnored: string | null,
  ) {}

  /**
   * Snapshot writes, one at a time in the order asked: a prune then never deletes the temp file of
   * a write under way, and two snapshots of one sequence never share a temp file.
   */
  private snapshotsWritten: Promise<unknown> = Promise.resolve();
  /** Set when `close` is called: later appends and snapshots are refused, even while it waits. */
  private closing = false;

  /** Opens (recovering a torn tail, refusing mid-log corruption) and reads the newest valid snapshot. */
  static open(options: FileJournalOptions): FileJournal {
    const snapshots = new SnapshotStore({ dir: path.join(options.dir, "snapshots"), ...(options.fs === undefined ? {} : { fs: options.fs }) });
    const loaded = snapshots.loadNewestValid().snapshot;
    const envelope = loaded === null ? undefined : unwrap(loaded.payload);
    const snapshotSequence = loaded?.lsn ?? 0;
    const readFrom = Math.min(options.readFromSequence ?? snapshotSequence, snapshotSequence);
    // Within the last segment, reading starts at the snapshot's own frame when nothing before it is read.
    const checkpoint: LogCheckpoint | undefined =
      loaded !== null && envelope !== undefined && envelope.lastFramePosition >= 0 && readFrom === snapshotSequence
        ? { lsn: snapshotSequence, chainHead: loaded.chainHead, lastFramePosition: envelope.lastFramePosition, endPosition: envelope.endPosition }
        : undefined;
    const log = SegmentLog.open({
      dir: options.dir,
      trustSealedSegmentsThroughLsn: readFrom,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(options.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: options.segmentSizeBytes }),
      ...(options.fs === undefined ? {} : { fs: options.fs }),
    });
    if (snapshotSequence > log.lastLsn) {
      log.close();
      throw new Error(`snapshot of lsn ${snapshotSequence} is newer than the log (last lsn ${log.lastLsn}) in ${options.dir}`);
    }
    // The log is the truth: a snapshot counts only if the log holds its frame with the same chain.
    if (loaded !== null && snapshotSequence >= 1) {
      const frame = log.frames(snapshotSequence - 1, { verify: "none" }).next();
      if (frame.done === true || frame.value.lsn !== snapshotSequence || !frame.value.chain.equals(loaded.chainHead)) {
        return new FileJournal(log, snapshots, undefined, `snapshot at lsn ${snapshotSequence} does not match the log's chain`);
      }
    }
    const snapshot = loaded === null ? undefined : { sequence: snapshotSequence, payload: envelope?.payload ?? loaded.payload };
    return new FileJournal(log, snapshots, snapshot, null);
  }

  get lastSequence(): number {
    return this.log.lastLsn;
  }

  get recovery(): JournalRecovery {
    const report = this.log.recovery;
    return {
      truncatedBytes: report.truncation?.truncatedBytes ?? 0,
      entriesTrusted: report.framesTrustedByCheckpoint,
      snapshotIgnored: this.snapshotIgnored,
    };
  }

  get sizeBytes(): number {
    return this.log.endPosition;
  }

  /**
   * Commits in the calling thread (a shard's worker): one write and one fdatasync for the batch, done
   * before the promise settles. A failed write or fdatasync fails the log for good.
   */
  async append(payloads: readonly Uint8Array[], options: AppendOptions = {}): Promise<JournalPosition[]> {
    this.refuseIfClosing();
    const expected = options.expectedLastSequence;
    if (expected !== undefined && expected !== this.log.lastLsn) throw new JournalFencedError(expected, this.log.lastLsn);
    const positions = payloads.map((payload) => this.log.append(payload).position);
    if (positions.length > 0) this.log.commitSync();
    return positions;
  }

  async read(afterSequence: number, onEntry: (entry: JournalEntry) => void): Promise<void> {
    for (const frame of this.log.frames(afterSequence, { verify: "none" })) onEntry({ sequence: frame.lsn, position: frame.position, payload: frame.payload });
  }

  /** Reads the frame on the calling thread before the promise settles (async only for the interface). */
  async readAt(position: JournalPosition): Promise<JournalEntry> {
    const frame = this.log.readAt(position);
    return { sequence: frame.lsn, position: frame.position, payload: frame.payload };
  }

  readView(): LogReadView {
    return this.log.readView();
  }

  /**
   * Takes the log's position now (the snapshot is of the state through it) and writes the file off
   * the calling thread (SnapshotStore.write): the shard goes on committing batches meanwhile.
   * `payload` must not change until the promise settles.
   */
  async writeSnapshot(payload: Uint8Array, keep: number): Promise<{ sequence: number; sizeBytes: number }> {
    this.refuseIfClosing();
    if (this.log.stagedFrames !== 0) throw new Error("snapshot with uncommitted frames");
    const sequence = this.log.lastLsn;
    const input = { lsn: sequence, chainHead: this.log.chainHead, payloadParts: [envelopeOf(this.log.lastFramePosition, this.log.endPosition), payload] };
    const written = this.snapshotsWritten.then(async () => {
      const { sizeBytes } = await this.snapshots.write(input);
      await this.snapshots.prune(keep);
      return { sequence, sizeBytes };
    });
    this.snapshotsWritten = written.catch(() => undefined);
    return written;
  }

  /** Closes the log once the snapshots asked for are written (or have failed: their callers were told). */
  async close(): Promise<void> {
    this.closing = true;
    await this.snapshotsWritten;
    this.log.close();
  }

  private refuseIfClosing(): void {
    if (this.closing) throw new Error("the file journal is closed");
  }
}
