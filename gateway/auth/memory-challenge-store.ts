/**
 * Outstanding authentication challenges of one node, in memory only (a restart forgets them;
 * clients simply ask again): the embedded default's ChallengeStore. Never unavailable.
 *
 * Bounded: entries are kept in insertion order, which is expiry order because every challenge gets
 * the same lifetime, so expired ones are swept from the front in amortized O(1) on each insert; if
 * the cap is still reached, the oldest outstanding challenge is dropped (its token request then
 * fails and the client asks again). Dropping the oldest rather than refusing new challenges means a
 * flood cannot lock everyone out, only shorten how long a challenge survives.
 */
import { assert } from "../../engine/rules/common/assert.js";
import type { ChallengeStore, FoundChallenge, PendingChallenge } from "./challenge-store.js";

export class MemoryChallengeStore implements ChallengeStore {
  private readonly byId = new Map<string, FoundChallenge>();
  /** Each entry's version: a consumption checks that the entry found is still the one kept. */
  private added = 0;

  constructor(readonly maxChallenges: number) {
    assert(Number.isSafeInteger(maxChallenges) && maxChallenges >= 1, "maxChallenges must be a positive integer");
  }

  get size(): number {
    return this.byId.size;
  }

  add(id: string, challenge: PendingChallenge, nowMs: number): Promise<"added"> {
    assert(!this.byId.has(id), "challenge ids are unique");
    this.sweepExpired(nowMs);
    while (this.byId.size >= this.maxChallenges) {
      const oldest = this.byId.keys().next();
      if (oldest.done === true) break;
      this.byId.delete(oldest.value);
    }
    this.added += 1;
    this.byId.set(id, { challenge, version: this.added });
    return Promise.resolve("added");
  }

  find(id: string): Promise<FoundChallenge | undefined> {
    return Promise.resolve(this.byId.get(id));
  }

  consume(id: string, found: FoundChallenge): Promise<"consumed" | "gone"> {
    if (this.byId.get(id)?.version !== found.version) return Promise.resolve("gone");
    this.byId.delete(id);
    return Promise.resolve("consumed");
  }

  private sweepExpired(nowMs: number): void {
    for (const [id, entry] of this.byId) {
      if (entry.challenge.expiresAtMs > nowMs) return;
      this.byId.delete(id);
    }
  }
}
