/**
 * The one-node challenge store (gateway/auth/memory-challenge-store.ts): what the sign-in logic
 * relies on from any store (challenge-store.ts): a challenge found is consumed by exactly one
 * caller, even when several found it; the cluster's KV store is held to the same in
 * test/cluster/identity-cluster.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { FoundChallenge, PendingChallenge } from "../../gateway/auth/challenge-store.js";
import { MemoryChallengeStore } from "../../gateway/auth/memory-challenge-store.js";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");

function pending(expiresAtMs: number): PendingChallenge {
  return { actorId: "alice", keyId: "alice-key", nonceHash: Buffer.alloc(32, 7), expiresAtMs, expiresAt: new Date(expiresAtMs).toISOString(), audience: "market-service" };
}

async function found(store: MemoryChallengeStore, id: string): Promise<FoundChallenge> {
  const entry = await store.find(id);
  if (entry === undefined) throw new Error(`challenge ${id} not found`);
  return entry;
}

describe("MemoryChallengeStore", () => {
  it("hands a challenge to exactly one of the callers that found it", async () => {
    const store = new MemoryChallengeStore(10);
    expect(await store.add("c1", pending(T0 + 120_000), T0)).toBe("added");
    const first = await found(store, "c1");
    const second = await found(store, "c1");
    expect(first.challenge).toEqual(pending(T0 + 120_000));
    expect(await store.consume("c1", second)).toBe("consumed");
    expect(await store.consume("c1", first)).toBe("gone");
    expect(await store.find("c1")).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it("drops the oldest beyond its bound and sweeps expired ones on insert", async () => {
    const store = new MemoryChallengeStore(2);
    await store.add("c1", pending(T0 + 1_000), T0);
    await store.add("c2", pending(T0 + 2_000), T0);
    await store.add("c3", pending(T0 + 3_000), T0);
    expect(await store.find("c1")).toBeUndefined();
    expect(store.size).toBe(2);
    await store.add("c4", pending(T0 + 5_000), T0 + 2_000);
    expect([await store.find("c2"), (await store.find("c3"))?.challenge.expiresAtMs]).toEqual([undefined, T0 + 3_000]);
  });
});
