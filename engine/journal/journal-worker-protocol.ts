/**
 * The messages between a `WorkerJournal` (the thread that uses a journal) and its journal worker
 * (the thread that owns the file journal and does its writes and fdatasyncs). Plain data only.
 */
import type { JournalReadView, JournalRecovery, JournalSnapshot } from "./journal.js";

export interface JournalWorkerData {
  readonly dir: string;
  readonly segmentSizeBytes?: number;
}

/** The journal's figures after an open, an append or a snapshot (the caller's synchronous getters read them). */
export interface JournalFigures {
  readonly lastSequence: number;
  readonly sizeBytes: number;
  /** Where the committed entries lie, for reads on the caller's thread. */
  readonly view: JournalReadView;
}

export interface JournalEntryData {
  readonly sequence: number;
  readonly position: number;
  readonly payload: Uint8Array;
}

export type ToJournalWorker =
  | { readonly t: "append"; readonly id: number; readonly payloads: readonly Uint8Array[]; readonly expectedLastSequence?: number }
  | { readonly t: "read"; readonly id: number; readonly afterSequence: number }
  | { readonly t: "snapshot"; readonly id: number; readonly payload: Uint8Array; readonly keep: number }
  | { readonly t: "close"; readonly id: number };

export type FromJournalWorker =
  | {
      readonly t: "opened";
      readonly recovery: JournalRecovery;
      readonly snapshot: JournalSnapshot | undefined;
      readonly figures: JournalFigures;
    }
  | { readonly t: "open-failed"; readonly message: string }
  | { readonly t: "appended"; readonly id: number; readonly positions: number[]; readonly figures: JournalFigures }
  | { readonly t: "entries"; readonly id: number; readonly entries: JournalEntryData[] }
  | { readonly t: "read-done"; readonly id: number }
  | { readonly t: "snapshot-written"; readonly id: number; readonly sequence: number; readonly sizeBytes: number }
  | { readonly t: "closed"; readonly id: number }
  /** A refused request; `fenced` when an append's expected last sequence was not the journal's. */
  | { readonly t: "refused"; readonly id: number; readonly message: string; readonly fenced?: { expected: number; last: number } }
  /** The journal failed for good (a write or fdatasync failed): every later request is refused. */
  | { readonly t: "failed"; readonly id: number; readonly message: string };
