/**
 * Proofs of a partition's log in a real cluster (issue 29, "Cost"; docs/proofs.md): three real
 * nats-server nodes and three service processes (`node dist/gateway/main.js`). The owner's shard
 * cannot hand the pool a view of files (the log is a stream), so it reads the entries for the pool
 * itself; with the pool thread's tree cache it reads the whole partition only for the first proof,
 * and after that only the entries appended since (and a proven entry that lies before them). Every
 * proof, asked on any node, verifies against the partition's signed heads. Observed through the
 * owner's proof cache counters on /metrics (entriesSent: entries the shard read for proofs), never
 * through timing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { ServiceCluster } from "./support/service-cluster.js";
import { clusterClient, openDirectClaimMarket, provisionPrincipal, type ClusterPrincipal } from "./support/cluster-clients.js";
import { shardOfMarket } from "../../engine/runtime/shard-routing.js";
import { checkConsistency, checkInclusion, hashFromHex } from "@market-service/client/audit";
import { eventually } from "../process/support.js";
import { everyPartitionServedOnce } from "./support/partition-owners.js";

const PARTITIONS = 3;
const PARTITION = 1;
const LOG_ID = `partition-${PARTITION}`;
const METRICS_TOKEN = "proof-cache-metrics-token-0123456789abcdef";
let nats: NatsCluster;
let nodes: ServiceCluster;
let creator: ClusterPrincipal;

beforeAll(async () => {
  nats = await NatsCluster.start();
  nodes = await ServiceCluster.start(nats.urls, 3, { env: { CLUSTER_PARTITIONS: String(PARTITIONS), METRICS_TOKEN } });
  // Balanced, not only served: with one node over its share, the placement would hand a partition
  // over mid-test (docs/cluster.md, "Placement: balanced and sticky"), and the counters read below
  // are one owner's.
  await everyPartitionServedOnce(nodes, PARTITIONS);
  creator = await provisionPrincipal(nodes, 0, "proof-cache-creator");
}, 120_000);

afterAll(async () => {
  await nodes?.stop();
  await nats?.stop();
});

interface Head {
  treeSize: number;
  rootHash: string;
}

let markets = 0;
/** Entries in PARTITION's log: markets of that partition created and published (two entries each). */
async function grow(count: number): Promise<void> {
  for (let made = 0; made < count; ) {
    const marketId = `proof-cache-market-${markets++}`;
    if (shardOfMarket(marketId, PARTITIONS) !== PARTITION) continue;
    await openDirectClaimMarket(nodes, markets % 3, creator, marketId, 1);
    made += 1;
  }
}

function owner(): number {
  const serving = [0, 1, 2].filter((i) => nodes.serves(i, PARTITION));
  expect(serving).toHaveLength(1);
  return serving[0] as number;
}

async function cacheStats(node: number): Promise<Record<string, number>> {
  const response = await fetch(`${nodes.url(node)}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const stats: Record<string, number> = {};
  for (const match of text.matchAll(/^market_proof_cache\{stat="([a-zA-Z]+)"\} (\d+)$/gm)) stats[match[1] as string] = Number(match[2]);
  return stats;
}

// Reads go through the SDK, which retries a 503 (the owner not answering for a moment) as any client does.
async function head(node: number): Promise<Head> {
  return clusterClient(nodes, node, creator).logHead(LOG_ID);
}

async function provenInclusion(node: number, leafIndex: number, at: Head): Promise<string> {
  const proof = await clusterClient(nodes, node, creator).inclusionProof(LOG_ID, leafIndex, at.treeSize);
  const path = proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
  expect(checkInclusion(hashFromHex(proof.leafHash, "leafHash"), leafIndex, at.treeSize, path, hashFromHex(at.rootHash, "rootHash"))).toEqual({ valid: true });
  return JSON.stringify({ path: proof.path, leafHash: proof.leafHash });
}

async function provenConsistency(node: number, from: Head, to: Head): Promise<void> {
  const proof = await clusterClient(nodes, node, creator).consistencyProof(LOG_ID, from.treeSize, to.treeSize);
  const path = proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
  expect(checkConsistency(from.treeSize, to.treeSize, hashFromHex(from.rootHash, "from"), hashFromHex(to.rootHash, "to"), path)).toEqual({ valid: true });
}

describe("proofs of a partition's log through the owner's tree cache", () => {
  it("reads the whole partition for the first proof only: later proofs, on any node, read only the entries appended since", async () => {
    await grow(12);
    const at = owner();
    const other = (at + 1) % 3;
    expect(await cacheStats(at)).toMatchObject({ proofs: 0, entriesSent: 0 });

    const first = await head(other);
    const cold = await provenInclusion(other, 2, first);
    const afterCold = await cacheStats(at);
    expect(afterCold).toMatchObject({ proofs: 1, warm: 0, builds: 1, invalidated: 0 });
    expect(afterCold.entriesSent).toBeGreaterThanOrEqual(first.treeSize);

    // Again, through the owner itself: the same proof; the shard read the proven entry and whatever was appended meanwhile.
    expect(await provenInclusion(at, 2, first)).toBe(cold);
    await grow(10);
    const later = await head(at);
    expect(later.treeSize).toBeGreaterThan(first.treeSize + 19);
    await provenConsistency(other, first, later);
    await provenInclusion((at + 2) % 3, later.treeSize - 1, later);
    await provenInclusion(other, 2, later);
    expect(owner(), "the partition kept its owner throughout (the counters are the owner's)").toBe(at);
    const afterGrowth = await cacheStats(at);
    expect(afterGrowth).toMatchObject({ proofs: 5, warm: 4, builds: 1, invalidated: 0, logs: 1 });
    // A rebuild for each proof would have read the first entries again (five times in all).
    expect(afterGrowth.entriesSent).toBeGreaterThanOrEqual(later.treeSize);
    expect(afterGrowth.entriesSent).toBeLessThan(later.treeSize + first.treeSize);
    expect(afterGrowth.entriesHashed).toBeLessThan(later.treeSize + first.treeSize);
    // Non-owners built nothing.
    for (const node of [0, 1, 2].filter((i) => i !== at)) expect(await cacheStats(node)).toMatchObject({ proofs: 0 });
  }, 120_000);

  it("asks the owner's shard again for the whole log when its pool thread kept nothing (AUDIT_PROOF_CACHE_BYTES=0), and still answers", async () => {
    // Every node restarted keeping no tree: whichever owns the partition, its shard sends only the
    // entries after those it sent for the previous proof, which the pool thread cannot use, so the
    // pool asks it again for the log from its first entry (shard-answers.ts).
    for (const node of [0, 1, 2]) await nodes.restartWith(node, { AUDIT_PROOF_CACHE_BYTES: "0" });
    await eventually(() => [0, 1, 2].filter((i) => nodes.serves(i, PARTITION)).length === 1, 60_000, "the partition served by one node");
    await grow(2);
    const now = owner();
    const at = await head(now);
    const once = await provenInclusion(now, 4, at);
    expect(await provenInclusion((now + 1) % 3, 4, at)).toBe(once);
    expect(owner(), "the partition kept its owner throughout (the counters are the owner's)").toBe(now);
    const stats = await cacheStats(now);
    expect(stats).toMatchObject({ proofs: 2, warm: 0, builds: 2, logs: 0, bytes: 0 });
    // The second proof: the entries after the first's (none or a few), then the whole log again.
    expect(stats.entriesSent).toBeGreaterThanOrEqual(2 * at.treeSize);
  }, 120_000);
});
