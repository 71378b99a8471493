/**
 * The identity state folded from the identity log, with what a snapshot keeps besides it: the
 * latest command time and the idempotency entries of every logged command. Recovery builds it
 * (a snapshot, then the frames after it), and the store keeps it current as frames are logged,
 * its own or, in the cluster mode, other nodes'.
 */
import { assert } from "../rules/common/assert.js";
import type { Clock } from "../clock.js";
import { evolve } from "../rules/identity/evolve.js";
import { emptyIdentityState, forgetExpiredTokens, type IdentityState } from "../rules/identity/state.js";
import type { JournalPosition } from "../journal/journal.js";
import type { LoggedIdentityCommand } from "./frame.js";
import { decodeIdentitySnapshot, encodeIdentitySnapshot, type LoggedCommandKey } from "./snapshot.js";

/**
 * How often (in server command time) issuing a token also drops every expired token. A key's own
 * expired tokens go when it issues the next one, but a key that issues no more (an actor that
 * logged in once, a client gone) kept its tokens until the next snapshot, which a quiet identity
 * log may not reach for a long time: with many short-lived actors they piled up.
 */
export const TOKEN_SWEEP_INTERVAL_MS = 60_000;

export class IdentityFold {
  /** Command time of the last sweep of expired tokens (TOKEN_SWEEP_INTERVAL_MS). */
  private lastTokenSweepMs = 0;

  private constructor(
    readonly state: IdentityState,
    /** The latest command time logged or stamped: command times never go back. */
    public lastStampMs: number,
    /** Idempotency entries of every logged command, in log order (kept for snapshots). */
    readonly commands: LoggedCommandKey[],
  ) {}

  static empty(): IdentityFold {
    return new IdentityFold(emptyIdentityState(), 0, []);
  }

  static fromSnapshot(payload: Uint8Array): IdentityFold {
    const decoded = decodeIdentitySnapshot(payload);
    return new IdentityFold(decoded.state, decoded.lastStampMs, decoded.commands);
  }

  /**
   * Folds one logged frame in, as recovery does: its events, its command time, and its idempotency
   * entry, which is returned (undefined for a token record, which has none).
   */
  replay(frame: LoggedIdentityCommand, position: JournalPosition): LoggedCommandKey | undefined {
    for (const event of frame.e) evolve(this.state, event);
    if (frame.c.meta.atMs > this.lastStampMs) this.lastStampMs = frame.c.meta.atMs;
    if (frame.f === undefined || frame.c.type === "token.issue") return undefined;
    const key: LoggedCommandKey = [frame.c.meta.actorId, frame.c.meta.commandId, frame.f, position];
    this.commands.push(key);
    return key;
  }

  /** Server command time: the clock, but never earlier than the previous command's time. */
  stamp(clock: Clock): number {
    const nowMs = clock.nowMs();
    assert(Number.isSafeInteger(nowMs) && nowMs >= 0, "clock must return non-negative integer epoch ms");
    if (nowMs > this.lastStampMs) this.lastStampMs = nowMs;
    return this.lastStampMs;
  }

  /**
   * Drops every token expired at `atMs` (a command time), at most once per TOKEN_SWEEP_INTERVAL_MS.
   * Pure memory management, like the snapshot's own sweep: a token expired at `atMs` can never
   * authenticate again, so no decision changes, and the kept tokens stay bounded by those issued
   * within one token lifetime plus one interval.
   */
  sweepExpiredTokens(atMs: number): void {
    if (atMs - this.lastTokenSweepMs < TOKEN_SWEEP_INTERVAL_MS) return;
    this.lastTokenSweepMs = atMs;
    forgetExpiredTokens(this.state, atMs);
  }

  /** The snapshot payload of the state as folded so far. */
  snapshot(): Buffer {
    return encodeIdentitySnapshot(this.state, this.lastStampMs, this.commands);
  }
}
