/**
 * The proof endpoints through the worker pool thread's tree cache (issue 29, "Cost"; docs/proofs.md):
 * the real service on a loopback port, a real shard log in a temp dir, the pool's real thread. A
 * repeated proof hashes nothing more, a proof after the log grew hashes only the new entries, and
 * every answer verifies against the service's signed heads; with AUDIT_PROOF_CACHE_BYTES=0 the thread
 * keeps nothing and every proof reads the log from the start. Reuse is read from the cache's counters
 * on /metrics (market_proof_cache), never from timing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { base64UrlDecode } from "@market-service/client/wire";
import { checkConsistency, checkInclusion, hashFromHex, leafHash } from "@market-service/client/audit";
import { loadServiceConfig } from "../../gateway/config.js";
import { DEFAULT_PROOF_CACHE_BYTES } from "../../engine/audit/proof-tree-cache.js";
import { Harness, directClaimMechanism, openMarket, uid, type Principal } from "../http-api/support/harness.js";

const work = mkdtempSync(path.join(tmpdir(), "proof-cache-served-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Head {
  treeSize: number;
  rootHash: string;
}

/** The proof cache counters of the service's pool thread, from /metrics. */
async function cacheStats(h: Harness): Promise<Record<string, number>> {
  const response = await h.get("/metrics", h.operator());
  expect(response.status, response.text).toBe(200);
  const stats: Record<string, number> = {};
  for (const match of response.text.matchAll(/^market_proof_cache\{stat="([a-zA-Z]+)"\} (\d+)$/gm)) stats[match[1] as string] = Number(match[2]);
  return stats;
}

async function head(h: Harness, who: Principal): Promise<Head> {
  const response = await h.get("/v1/audit/logs/shard-0/head", await h.freshToken(who));
  expect(response.status, response.text).toBe(200);
  return response.body as Head;
}

/** An inclusion proof of `leafIndex` under `at`, checked against its root. */
async function provenInclusion(h: Harness, who: Principal, leafIndex: number, at: Head): Promise<string> {
  const response = await h.get(`/v1/audit/logs/shard-0/inclusion?leafIndex=${leafIndex}&treeSize=${at.treeSize}`, await h.freshToken(who));
  expect(response.status, response.text).toBe(200);
  const path = (response.body.path as string[]).map((hex, i) => hashFromHex(hex, `path[${i}]`));
  const leaf = hashFromHex(response.body.leafHash as string, "leafHash");
  expect(checkInclusion(leaf, leafIndex, at.treeSize, path, hashFromHex(at.rootHash, "rootHash"))).toEqual({ valid: true });
  if (response.body.entry !== null) expect(Buffer.from(leafHash(base64UrlDecode(response.body.entry as string)))).toEqual(Buffer.from(leaf));
  return response.text;
}

async function provenConsistency(h: Harness, who: Principal, from: Head, to: Head): Promise<void> {
  const response = await h.get(`/v1/audit/logs/shard-0/consistency?from=${from.treeSize}&to=${to.treeSize}`, await h.freshToken(who));
  expect(response.status, response.text).toBe(200);
  const path = (response.body.path as string[]).map((hex, i) => hashFromHex(hex, `path[${i}]`));
  expect(checkConsistency(from.treeSize, to.treeSize, hashFromHex(from.rootHash, "from"), hashFromHex(to.rootHash, "to"), path)).toEqual({ valid: true });
}

/** `count` accepted commands: markets created and published by `creator`. */
async function grow(h: Harness, creator: Principal, count: number): Promise<void> {
  for (let i = 0; i < count; i += 2) await openMarket(h, creator, uid("grown"), directClaimMechanism({ capacity: 1 }));
}

describe("proofs served through the pool thread's tree cache", () => {
  it("answers a repeated proof from the kept tree and a proof on a grown log by hashing only the new entries", async () => {
    const h = await Harness.start({ dataDir: mkdtempSync(path.join(work, "warm-")), env: { SHARDS: "1" } });
    try {
      const [creator] = await h.principals("creator");
      await grow(h, creator, 20);
      expect(await cacheStats(h)).toMatchObject({ proofs: 0, builds: 0 });

      const first = await head(h, creator);
      const cold = await provenInclusion(h, creator, 3, first);
      const afterCold = await cacheStats(h);
      expect(afterCold).toMatchObject({ proofs: 1, warm: 0, builds: 1, invalidated: 0 });
      expect(afterCold.entriesHashed).toBeGreaterThanOrEqual(first.treeSize);

      // The same proof again: the same bytes, nothing read.
      expect(await provenInclusion(h, creator, 3, first)).toBe(cold);
      const afterWarm = await cacheStats(h);
      expect(afterWarm).toMatchObject({ proofs: 2, warm: 1, builds: 1, entriesHashed: afterCold.entriesHashed });

      await grow(h, creator, 30);
      const later = await head(h, creator);
      expect(later.treeSize).toBeGreaterThan(first.treeSize + 20);
      await provenConsistency(h, creator, first, later);
      await provenInclusion(h, creator, later.treeSize - 2, later);
      expect(await provenInclusion(h, creator, 3, first)).toBe(cold);
      const afterGrowth = await cacheStats(h);
      expect(afterGrowth).toMatchObject({ proofs: 5, warm: 4, builds: 1, invalidated: 0, logs: 1 });
      // Only the entries after the kept ones were hashed (a rebuild would have hashed the first ones again).
      expect(afterGrowth.entriesHashed).toBeGreaterThanOrEqual(later.treeSize);
      expect(afterGrowth.entriesHashed).toBeLessThan(later.treeSize + first.treeSize);
      expect(afterGrowth.bytes).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  it("keeps no tree with AUDIT_PROOF_CACHE_BYTES=0, and still answers every proof", async () => {
    const h = await Harness.start({ dataDir: mkdtempSync(path.join(work, "none-")), env: { SHARDS: "1", AUDIT_PROOF_CACHE_BYTES: "0" } });
    try {
      const [creator] = await h.principals("creator");
      await grow(h, creator, 10);
      const at = await head(h, creator);
      const once = await provenInclusion(h, creator, 1, at);
      expect(await provenInclusion(h, creator, 1, at)).toBe(once);
      expect(await cacheStats(h)).toMatchObject({ proofs: 2, warm: 0, builds: 2, evicted: 2, bytes: 0, logs: 0 });
    } finally {
      await h.close();
    }
  });

  it("reads AUDIT_PROOF_CACHE_BYTES as a byte count, and refuses anything else naming it", () => {
    expect(loadServiceConfig({}).proofCacheBytes).toBe(DEFAULT_PROOF_CACHE_BYTES);
    expect(loadServiceConfig({ AUDIT_PROOF_CACHE_BYTES: "0" }).proofCacheBytes).toBe(0);
    expect(loadServiceConfig({ AUDIT_PROOF_CACHE_BYTES: "1048576" }).proofCacheBytes).toBe(1_048_576);
    for (const bad of ["-1", "1.5", "lots", "9999999999"]) {
      expect(() => loadServiceConfig({ AUDIT_PROOF_CACHE_BYTES: bad })).toThrow(/AUDIT_PROOF_CACHE_BYTES/);
    }
  });
});
