/**
 * Outstanding authentication challenges, in memory only (a restart forgets them; clients simply
 * ask again). Single use: `take` removes the challenge whatever happens next. Only the SHA-256 of
 * the nonce is kept (spec §5.1).
 *
 * Bounded: entries are kept in insertion order, which is expiry order because every challenge gets
 * the same lifetime, so expired ones are swept from the front in amortized O(1) on each insert; if
 * the cap is still reached, the oldest outstanding challenge is dropped (its token request then
 * fails and the client asks again). Dropping the oldest rather than refusing new challenges means a
 * flood cannot lock everyone out, only shorten how long a challenge survives.
 */
import { assert } from "../../engine/rules/assert.js";

export interface PendingChallenge {
  readonly actorId: string;
  readonly keyId: string;
  readonly nonceHash: Buffer;
  readonly expiresAtMs: number;
  /** The exact text that went into the signing payload. */
  readonly expiresAt: string;
  readonly audience: string;
}

export class ChallengeStore {
  private readonly byId = new Map<string, PendingChallenge>();

  constructor(readonly maxChallenges: number) {
    assert(Number.isSafeInteger(maxChallenges) && maxChallenges >= 1, "maxChallenges must be a positive integer");
  }

  get size(): number {
    return this.byId.size;
  }

  add(id: string, challenge: PendingChallenge, nowMs: number): void {
    assert(!this.byId.has(id), "challenge ids are unique");
    this.sweepExpired(nowMs);
    while (this.byId.size >= this.maxChallenges) {
      const oldest = this.byId.keys().next();
      if (oldest.done === true) break;
      this.byId.delete(oldest.value);
    }
    this.byId.set(id, challenge);
  }

  /** Removes and returns the challenge: every attempt consumes it, successful or not. */
  take(id: string): PendingChallenge | undefined {
    const challenge = this.byId.get(id);
    if (challenge !== undefined) this.byId.delete(id);
    return challenge;
  }

  private sweepExpired(nowMs: number): void {
    for (const [id, challenge] of this.byId) {
      if (challenge.expiresAtMs > nowMs) return;
      this.byId.delete(id);
    }
  }
}
