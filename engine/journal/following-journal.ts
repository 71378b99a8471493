/**
 * A journal several writers share (the cluster's identity stream): besides what every journal
 * offers, it hands over the entries others append as they arrive (`follow`).
 *
 * A journal that offers it is what turns a store from the single writer of its own log into one
 * of several writers of a shared one (engine/identity/store.ts decides its mode by this); the file
 * journal does not, so the embedded default never takes that path.
 */
import type { Journal, JournalEntry } from "./journal.js";

/** A running `follow`: stop it before the journal is closed. */
export interface JournalFollower {
  /** Resolves once no entry will be handed over any more. */
  stop(): Promise<void>;
}

export interface FollowingJournal extends Journal {
  /**
   * Hands every entry after `afterSequence` to `onEntry`, in order and each once, as it is appended
   * by any writer (this one included), until stopped. A follower rides out the stream's outages on
   * its own (it resumes after the last entry it handed over); `onProblem` hears of each one.
   */
  follow(afterSequence: number, onEntry: (entry: JournalEntry) => void, onProblem?: (error: unknown) => void): Promise<JournalFollower>;
  /** The sequence of the stream's last entry now, whoever appended it (asked of the stream). */
  latestSequence(): Promise<number>;
}

export function canFollow(journal: Journal): journal is FollowingJournal {
  const candidate = journal as Partial<FollowingJournal>;
  return typeof candidate.follow === "function";
}
