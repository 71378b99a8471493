/**
 * The contention phase of `npm run bench:identity-propagation`: every service node records access
 * tokens (what each login logs) as fast as it can, all on the one shared identity stream, so their
 * batches keep meeting the log's fence (another node appended first) and are decided again.
 */
import { randomBytes } from "node:crypto";
import { systemClock } from "../engine/clock.js";
import type { IdentityStore } from "../engine/identity/store.js";

/** Records tokens for one actor key as fast as `inFlight` outstanding records allow, for `seconds`. */
export interface StormOrder {
  readonly actorId: string;
  readonly keyId: string;
  readonly readySequence: number;
  readonly seconds: number;
  readonly inFlight: number;
}

export interface StormOutcome {
  readonly recorded: number;
  readonly refused: number;
  readonly unavailable: number;
  /** Appends of this node refused because another node appended first. */
  readonly fences: number;
  readonly commits: number;
  readonly seconds: number;
}

/**
 * Records tokens through `store` (the path every login takes) from `inFlight` loops at once for
 * `seconds`; what each record came to, and the store's fences and commits meanwhile.
 */
export async function tokenStorm(store: IdentityStore, order: StormOrder): Promise<StormOutcome> {
  await store.whenApplied(order.readySequence, 30_000);
  const before = store.stats;
  const counts = { recorded: 0, refused: 0, unavailable: 0 };
  const started = performance.now();
  const endAt = started + order.seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < endAt) {
      const nowMs = systemClock.nowMs();
      const outcome = await store.recordToken({
        hash: randomBytes(32).toString("base64url"),
        actorId: order.actorId,
        keyId: order.keyId,
        audience: "market-service",
        issuedAtMs: nowMs,
        expiresAtMs: nowMs + 3_600_000,
      });
      counts[outcome] += 1;
    }
  };
  await Promise.all(Array.from({ length: order.inFlight }, loop));
  const after = store.stats;
  return {
    ...counts,
    fences: (after.shared?.fences ?? 0) - (before.shared?.fences ?? 0),
    commits: after.commits - before.commits,
    seconds: (performance.now() - started) / 1000,
  };
}

