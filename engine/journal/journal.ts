/**
 * The journal: what the actor runtime needs from durable storage, and all it knows of it (Akka
 * Persistence's journal plugin is the model). A shard, or the identity log, appends batches and
 * learns where each entry lies once the batch is durable; reads its entries back from a sequence;
 * keeps snapshots of its folded state; and never learns how or where the bytes are kept.
 *
 * The embedded default is `FileJournal` (segment files, group-commit fdatasync); the cluster mode
 * puts a journal on a replicated stream behind the same interface. Shaped for that:
 * - appends are conditional on the expected last sequence, so a writer that lost ownership of a
 *   journal is refused (fenced) instead of appending behind someone else's entries;
 * - positions are opaque: the runtime stores them (idempotency index, a market's record) and hands
 *   them back to the same journal, and never computes with them; it only relies on their order, as
 *   they ascend in append order (a market's positions are searched, recent-replies.ts keeps a ring
 *   in that order);
 * - reading streams: entries are handed over as they are read, never collected first.
 *
 * Retention: entries are kept for as long as the journal exists. A market's record and every old
 * reply are replayed from them, and an audit replays the whole log, so no entry is ever dropped,
 * not even one a snapshot covers. What is retained by count is snapshots: `writeSnapshot` keeps the
 * newest `keep` and removes older ones.
 */

import type { LogReadView } from "../../storage/index.js";
import type { SnapshotMark } from "./jetstream-snapshots.js";

/** Where an entry lies in its journal. Opaque outside the journal that gave it, except that a later entry's is greater. */
export type JournalPosition = number;

export interface JournalEntry {
  /** 1, 2, 3, … in append order: entry n is the n-th entry ever appended to the journal. */
  readonly sequence: number;
  readonly position: JournalPosition;
  readonly payload: Uint8Array;
}

/** What `readView` gives another thread: the file journal's segment files. */
export type JournalReadView = LogReadView;

/** A snapshot of the state folded from a journal's entries 1…sequence. */
export interface JournalSnapshot {
  readonly sequence: number;
  readonly payload: Uint8Array;
}

/** What `writeSnapshot` gives back. */
export interface WrittenSnapshot {
  readonly sequence: number;
  readonly sizeBytes: number;
  /**
   * A journal on a stream: the message the snapshot was taken after (jetstream-snapshots.ts).
   * State another component keeps beside the journal's is snapshotted under the same mark, so that
   * the journal's next opener checks it against the stream as it checks its own (a cluster node's
   * idempotency entries of a partition, decision I58). Undefined for files.
   */
  readonly mark?: SnapshotMark;
}

/** An append refused because the journal's last sequence is not the one the writer expected. */
export class JournalFencedError extends Error {
  override name = "JournalFencedError";
  constructor(
    readonly expectedLastSequence: number,
    readonly lastSequence: number,
  ) {
    super(`append refused: the journal's last sequence is ${lastSequence}, not the expected ${expectedLastSequence} (another writer appended)`);
  }
}

export interface AppendOptions {
  /** Refuse (JournalFencedError) unless this is still the journal's last sequence. */
  expectedLastSequence?: number;
}

/** Reads of a journal that resumed with a new consumer (`Journal.readsResumed`). */
export interface ReadsResumed {
  readonly count: number;
  /** Where and why the last one resumed (the message it went on from, and what ended the consumer before). */
  readonly last: string;
}

/** What opening a journal found and did. */
export interface JournalRecovery {
  /** Bytes of a torn, never acknowledged tail that open removed. */
  readonly truncatedBytes: number;
  /** Entries open accepted without reading them again (covered by a checked snapshot or sealed segment). */
  readonly entriesTrusted: number;
  /** Why the newest stored snapshot was not handed over (it does not match the log, or cannot be read; an older one may have been instead, which this then names), or null. */
  readonly snapshotIgnored: string | null;
}

export interface Journal {
  readonly recovery: JournalRecovery;
  /** The sequence of the last durable entry; 0 for an empty journal. */
  readonly lastSequence: number;
  /** Bytes the journal's entries take (metrics). */
  readonly sizeBytes: number;
  /**
   * Appends `payloads` as one batch and resolves, once all of it is durable, with each entry's
   * position in order. A rejection other than JournalFencedError means durability is lost: nothing
   * of the batch may be acknowledged, and the writer must stop.
   */
  append(payloads: readonly Uint8Array[], options?: AppendOptions): Promise<JournalPosition[]>;
  /**
   * Hands every entry after `afterSequence` to `onEntry`, in order, as they are read. An `onEntry`
   * that throws ends the read, which rejects with that error (a reader that has what it wanted stops
   * this way).
   */
  read(afterSequence: number, onEntry: (entry: JournalEntry) => void): Promise<void>;
  /**
   * How often this journal's reads had to go on with a new consumer since it opened, and why the
   * last time: a journal on a stream's (a leader election, a consumer that delivered nothing for a
   * while); absent on files, which have nothing to replace. Recovery reports it (its time is spent
   * there when a read stalls).
   */
  readonly readsResumed?: ReadsResumed | undefined;
  /**
   * The entry at `position`. Asynchronous because a journal on a stream may have to ask its servers;
   * the file journal reads its files at once.
   */
  readAt(position: JournalPosition): Promise<JournalEntry>;
  /**
   * The committed entries as plain data another thread can read from (replay workers render records
   * and old replies off the shard's thread): the file journal's segment files. Undefined for a
   * journal on a stream: it has no files another thread could read, so its user reads the entries
   * it needs itself (`read`, `readAt`) and hands their payloads over instead.
   */
  readView(): JournalReadView | undefined;
  /** The newest valid snapshot, if any (read when the journal was opened). */
  readonly snapshot: JournalSnapshot | undefined;
  /**
   * Writes a snapshot of the state folded through `lastSequence` (as of this call: appends made
   * while it is written are not in it), and keeps the newest `keep`. A journal on a stream hands its
   * mark to `besideFirst` and stores its own snapshot only once that has resolved: state kept beside
   * it under the same mark is then stored first, so the newest snapshot a next opener finds has its
   * companion (decision I60). Files have no mark and ignore it. `payload` is stored as given, not
   * copied: it must not change until the promise settles.
   */
  writeSnapshot(payload: Uint8Array, keep: number, besideFirst?: (mark: SnapshotMark) => Promise<void>): Promise<WrittenSnapshot>;
  /** Closes the journal once what was appended before is done; later calls are refused. */
  close(): Promise<void>;
}
