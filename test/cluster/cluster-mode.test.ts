/**
 * Cluster mode end to end (issue 27, docs/cluster.md): three real nats-server nodes and three real
 * service nodes on loopback, each a `node dist/gateway/main.js` process. Requests go to every node;
 * owners are killed with SIGKILL and paused with SIGSTOP; nothing acknowledged may be lost,
 * capacity is never exceeded, and no claim is acknowledged twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { ServiceCluster } from "./support/service-cluster.js";
import { claimBody, openDirectClaimMarket, provisionPrincipal, request, requestOnce, type ClusterPrincipal } from "./support/cluster-clients.js";
import { shardOfMarket } from "../../engine/runtime/shard-routing.js";
import { checkConsistency, checkInclusion, hashFromHex, leafHash, parseReceipt, sameHash, signedHeadOf, verifyHead } from "@market-service/client/audit";
import { base64UrlDecode } from "@market-service/client/wire";
import { eventually, MAIN_JS, spawnCaptured, tempDataDir, OPERATOR } from "../process/support.js";

const PARTITIONS = 6;
const METRICS_TOKEN = "cluster-mode-metrics-token-0123456789abcdef";
let nats: NatsCluster;
let nodes: ServiceCluster;
let creator: ClusterPrincipal;

beforeAll(async () => {
  nats = await NatsCluster.start();
  nodes = await ServiceCluster.start(nats.urls, 3, { env: { CLUSTER_PARTITIONS: String(PARTITIONS), METRICS_TOKEN } });
  await everyPartitionServedOnce();
  creator = await provisionPrincipal(nodes, 0, "creator");
}, 120_000);

const ALL_PARTITIONS = Array.from({ length: PARTITIONS }, (_, p) => p);

/** Waits until every partition is served by exactly one node and the running nodes serve as many each (by their logs). */
async function everyPartitionServedOnce(): Promise<void> {
  const running = [0, 1, 2].filter((i) => nodes.running(i));
  const servers = (p: number) => running.filter((i) => nodes.serves(i, p)).length;
  const balanced = () => running.every((i) => ALL_PARTITIONS.filter((p) => nodes.serves(i, p)).length === PARTITIONS / running.length);
  await eventually(() => ALL_PARTITIONS.every((p) => servers(p) === 1) && balanced(), 60_000, "every partition served by exactly one node, evenly");
}

/** A node's market_cluster_messages_sent and market_cluster_requests_sent, by kind (-1: not exposed). */
async function sentCounts(node: number): Promise<{ messages: { forward: number; bind: number }; requests: { forward: number; bind: number } }> {
  const response = await fetch(`${nodes.url(node)}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const read = (name: string) => {
    const value = (kind: string) => Number(new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? -1);
    return { forward: value("forward"), bind: value("bind") };
  };
  return { messages: read("market_cluster_messages_sent"), requests: read("market_cluster_requests_sent") };
}

afterAll(async () => {
  await nodes?.stop();
  await nats?.stop();
});

describe("cluster mode", () => {
  it("spreads the partitions over the three nodes, each served by exactly one", async () => {
    await everyPartitionServedOnce();
    const perNode = [0, 1, 2].map((index) => ALL_PARTITIONS.filter((p) => nodes.serves(index, p)).length);
    expect(perNode).toEqual([2, 2, 2]);
  });

  it("answers any request on any node: forwarding to the owner, one state seen from everywhere", async () => {
    const marketId = "forwarded-market";
    await openDirectClaimMarket(nodes, 1, creator, marketId, 3);
    const claimers = await Promise.all([0, 1, 2].map((i) => provisionPrincipal(nodes, i, `forward-claimer-${i}`)));
    // The keys every node publishes (the cluster's one history: cluster-keys.test.ts).
    const keys = await Promise.all([0, 1, 2].map(async (i) => (await request(nodes, i, "GET", "/v1/audit/keys", creator)).body.keys as Array<{ keyId: string; publicKey: string }>));
    const publicKeys = new Map(keys.flat().map((key) => [key.keyId, base64UrlDecode(key.publicKey)]));
    for (const [i, who] of claimers.entries()) {
      const claimed = await request(nodes, i, "POST", `/v1/markets/${marketId}/direct-claims`, who, claimBody(`forward-claim-${i}`, who));
      expect(claimed.status, claimed.text).toBe(200);
      // The owner's receipt comes back through whichever node forwarded the claim: a head of the partition's log.
      const receipt = parseReceipt(claimed.headers.get("market-receipt") ?? "");
      if (!receipt.ok) throw new Error(`claim via node ${i}: ${receipt.message}`);
      expect(receipt.receipt.head.logId).toBe(`partition-${shardOfMarket(marketId, PARTITIONS)}`);
      expect(verifyHead(signedHeadOf(receipt.receipt.head), publicKeys.get(receipt.receipt.head.keyId) ?? new Uint8Array(0))).toBe(true);
    }
    const views = await Promise.all([0, 1, 2].map((i) => request(nodes, i, "GET", `/v1/markets/${marketId}`, creator)));
    for (const view of views) expect(view.status).toBe(200);
    expect(new Set(views.map((view) => view.text)).size).toBe(1);
    expect(views[0]?.body.state).toBe("closed");
    const record = await request(nodes, 2, "GET", `/v1/markets/${marketId}/record`, creator);
    expect(record.status, record.text).toBe(200);
    // A retry of a claim on another node gets the original reply, byte for byte.
    const first = claimers[0] as ClusterPrincipal;
    const retried = await request(nodes, 2, "POST", `/v1/markets/${marketId}/direct-claims`, first, claimBody("forward-claim-0", first));
    const original = await request(nodes, 0, "POST", `/v1/markets/${marketId}/direct-claims`, first, claimBody("forward-claim-0", first));
    expect(retried.text).toBe(original.text);
    expect(retried.status).toBe(200);
  });

  it("counts on /metrics the messages a node sent to owners and the requests they carried", async () => {
    const marketId = "counted-market";
    await openDirectClaimMarket(nodes, 0, creator, marketId, 3);
    const partition = shardOfMarket(marketId, PARTITIONS);
    const via = [0, 1, 2].find((i) => !nodes.serves(i, partition)) as number;
    const claimer = await provisionPrincipal(nodes, via, "counted-claimer");
    const before = await sentCounts(via);
    for (const counts of [before.messages, before.requests]) expect(Math.min(counts.forward, counts.bind)).toBeGreaterThanOrEqual(0);
    const claimed = await request(nodes, via, "POST", `/v1/markets/${marketId}/direct-claims`, claimer, claimBody("counted-claim", claimer));
    expect(claimed.status, claimed.text).toBe(200);
    const after = await sentCounts(via);
    // The claim went to its owner in a forwarded batch (a retry of a 503 would add more: at least one).
    expect(after.messages.forward).toBeGreaterThan(before.messages.forward);
    expect(after.requests.forward - before.requests.forward).toBeGreaterThanOrEqual(after.messages.forward - before.messages.forward);
  });

  it("serves a partition's heads and proofs on every node: the owner builds them, and they check against its receipts", async () => {
    const marketId = "proven-market";
    await openDirectClaimMarket(nodes, 0, creator, marketId, 3);
    const logId = `partition-${shardOfMarket(marketId, PARTITIONS)}`;
    const claimer = await provisionPrincipal(nodes, 1, "proven-claimer");
    const claimed = await request(nodes, 1, "POST", `/v1/markets/${marketId}/direct-claims`, claimer, claimBody("proven-claim", claimer));
    expect(claimed.status, claimed.text).toBe(200);
    const receipt = parseReceipt(claimed.headers.get("market-receipt") ?? "");
    if (!receipt.ok) throw new Error(receipt.message);
    const { leafIndex } = receipt.receipt;
    const head = signedHeadOf(receipt.receipt.head);
    expect(head.logId).toBe(logId);
    for (const i of [0, 1, 2]) {
      const proof = await request(nodes, i, "GET", `/v1/audit/logs/${logId}/inclusion?leafIndex=${leafIndex}&treeSize=${head.treeSize}`, claimer);
      expect(proof.status, proof.text).toBe(200);
      const entry = base64UrlDecode(proof.body.entry as string);
      expect(sameHash(leafHash(entry), hashFromHex(proof.body.leafHash, "leafHash"))).toBe(true);
      const path = (proof.body.path as string[]).map((hex, k) => hashFromHex(hex, `path[${k}]`));
      expect(checkInclusion(leafHash(entry), leafIndex, head.treeSize, path, head.rootHash)).toEqual({ valid: true });
      const later = await request(nodes, i, "GET", `/v1/audit/logs/${logId}/head`, claimer);
      expect(later.status, later.text).toBe(200);
      expect(later.body.treeSize).toBeGreaterThanOrEqual(head.treeSize);
      const consistency = await request(nodes, i, "GET", `/v1/audit/logs/${logId}/consistency?from=${head.treeSize}&to=${later.body.treeSize}`, claimer);
      expect(consistency.status, consistency.text).toBe(200);
      const cpath = (consistency.body.path as string[]).map((hex, k) => hashFromHex(hex, `path[${k}]`));
      expect(checkConsistency(head.treeSize, later.body.treeSize, head.rootHash, hashFromHex(later.body.rootHash, "rootHash"), cpath)).toEqual({ valid: true });
    }
    const unknown = await request(nodes, 2, "GET", `/v1/audit/logs/partition-${PARTITIONS}/head`, claimer);
    expect(unknown.status).toBe(404);
    expect((await request(nodes, 2, "GET", "/v1/audit/logs/shard-0/head", claimer)).status).toBe(404);
  });

  it("accepts a token issued on one node at once on every other node (a node that has not applied it yet catches up first)", async () => {
    for (const issuer of [0, 1, 2]) {
      const who = await provisionPrincipal(nodes, issuer, `token-reader-${issuer}`);
      const answers = await Promise.all([0, 1, 2].map((i) => request(nodes, i, "GET", "/v1/markets/no-such-market", who)));
      expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
    }
    // An unknown token is still refused (after the catch-up), on every node.
    const stranger = { principalId: "nobody", token: "A".repeat(43) };
    const refused = await Promise.all([0, 1, 2].map((i) => request(nodes, i, "GET", "/v1/markets/no-such-market", stranger)));
    expect(refused.map((answer) => answer.status)).toEqual([401, 401, 401]);
  });

  it("runs one command per (actor, commandId) across partitions: the same key for two markets at once on two nodes, one executes, the other conflicts", async () => {
    // Two markets in different partitions, each with room for everyone; x in partition 0, the
    // cluster's one key home (CLUSTER_KEY_HOMES is left at its default, 1): each round races a
    // command executing in its key's home (x) against a binding of the same key for y.
    const markets = ["key-market-x", "key-market-y"];
    let suffix = 0;
    while (shardOfMarket(`${markets[0]}${suffix}`, PARTITIONS) !== 0 || shardOfMarket(`${markets[1]}${suffix}`, PARTITIONS) === 0) suffix += 1;
    const [x, y] = markets.map((id) => `${id}${suffix}`) as [string, string];
    await openDirectClaimMarket(nodes, 0, creator, x, 20);
    await openDirectClaimMarket(nodes, 1, creator, y, 20);
    // A principal holds one commitment per market: a claimer per round.
    const claimers = await Promise.all(Array.from({ length: 8 }, (_, round) => provisionPrincipal(nodes, round % 3, `key-claimer-${round}`)));
    for (const [round, who] of claimers.entries()) {
      const commandId = `shared-key-${round}`;
      const [onX, onY] = await Promise.all([
        request(nodes, round % 3, "POST", `/v1/markets/${x}/direct-claims`, who, claimBody(commandId, who)),
        request(nodes, (round + 1) % 3, "POST", `/v1/markets/${y}/direct-claims`, who, claimBody(commandId, who)),
      ]);
      const statuses = [onX.status, onY.status].sort();
      expect(statuses, `${onX.text} / ${onY.text}`).toEqual([200, 409]);
      const conflicted = onX.status === 409 ? onX : onY;
      expect(conflicted.body.error.code).toBe("idempotency_conflict");
      // Retried anywhere, each gets its first answer again.
      const again = await request(nodes, (round + 2) % 3, "POST", `/v1/markets/${onX.status === 200 ? x : y}/direct-claims`, who, claimBody(commandId, who));
      expect(again.text).toBe((onX.status === 200 ? onX : onY).text);
    }
    // Eight claims executed in all, none twice.
    const versions = await Promise.all([x, y].map(async (id) => (await request(nodes, 0, "GET", `/v1/markets/${id}`, creator)).body.version as number));
    expect((versions[0] as number) + (versions[1] as number)).toBe(2 + 2 + 8);
  });

  it("takes over a killed owner's partition and serves its markets again (nothing acknowledged lost)", async () => {
    const marketId = "failover-market";
    const partition = shardOfMarket(marketId, PARTITIONS);
    const owner = nodes.ownerOf(partition);
    expect(owner).toBeDefined();
    const other = ((owner as number) + 1) % 3;
    await openDirectClaimMarket(nodes, other, creator, marketId, 10);
    const who = await provisionPrincipal(nodes, other, "failover-claimer");
    const second = await provisionPrincipal(nodes, other, "failover-claimer-2");
    const before = await request(nodes, other, "POST", `/v1/markets/${marketId}/direct-claims`, who, claimBody("failover-claim-1", who));
    expect(before.status, before.text).toBe(200);
    await nodes.kill(owner as number);
    const killedAtMs = performance.now();
    let after: Awaited<ReturnType<typeof request>> | undefined;
    await eventually(async () => {
      after = await requestOnce(nodes, other, "POST", `/v1/markets/${marketId}/direct-claims`, second, claimBody("failover-claim-2", second));
      // Until a node serves the partition again: 503 with Retry-After, never another answer.
      if (after.status !== 200) expect([after.status, after.headers.get("retry-after")], after.text).toEqual([503, "1"]);
      return after.status === 200;
    }, 60_000, "the market answering again after its owner was killed").catch((error: unknown) => {
      throw new Error(`${String(error)}; last answer ${after?.status} ${after?.text}\n${[0, 1, 2].map((i) => nodes.output(i).split("\n").filter((l) => /partition|lease|error|warn/.test(l)).slice(-15).join("\n")).join("\n---\n")}`);
    });
    const failoverMs = performance.now() - killedAtMs;
    const market = await request(nodes, other, "GET", `/v1/markets/${marketId}`, creator);
    expect(market.body.version).toBe(4); // created, published, two claims
    expect(failoverMs).toBeGreaterThan(0);
    await nodes.restart(owner as number);
    await everyPartitionServedOnce();
  }, 120_000);
});

describe("NATS lost while running", () => {
  it("answers 503 with Retry-After promptly while every NATS node is down, never an acknowledgement, and serves again when NATS returns", async () => {
    const marketId = "nats-outage-market";
    await openDirectClaimMarket(nodes, 0, creator, marketId, 50);
    const claimers = await Promise.all([0, 1, 2].map((i) => provisionPrincipal(nodes, i, `outage-claimer-${i}`)));
    await Promise.all([0, 1, 2].map((i) => nats.kill(i)));
    // Each answer comes while NATS is still down (it returns only after this loop), so a claim that
    // hung instead would fail the test by its bound; how fast the 503 comes is not measured here.
    for (const [i, who] of claimers.entries()) {
      const answer = await requestOnce(nodes, i, "POST", `/v1/markets/${marketId}/direct-claims`, who, claimBody(`outage-claim-${i}`, who));
      expect([answer.status, answer.headers.get("retry-after")], answer.text).toEqual([503, "1"]);
      expect(answer.body.error.code).toBe("service_unavailable");
    }
    await nats.restart(0, 1, 2);
    // Retried with the same commandIds: each executes once (or replays if it was logged after all).
    for (const [i, who] of claimers.entries()) {
      let answer: Awaited<ReturnType<typeof request>> | undefined;
      await eventually(async () => {
        answer = await request(nodes, i, "POST", `/v1/markets/${marketId}/direct-claims`, who, claimBody(`outage-claim-${i}`, who));
        return answer.status === 200;
      }, 60_000, `claim ${i} after NATS returned`).catch((error: unknown) => {
        throw new Error(`${String(error)}; last answer ${answer?.status} ${answer?.text}`);
      });
    }
    // Reads need a lease valid by the owner's clock again (a lapsed one serves commands only).
    let market: Awaited<ReturnType<typeof request>> | undefined;
    await eventually(async () => (market = await request(nodes, 0, "GET", `/v1/markets/${marketId}`, creator)).status === 200, 60_000, "the market readable again");
    expect(market?.body.version).toBe(2 + 3);
    await everyPartitionServedOnce();
  }, 180_000);
});

describe("start-up faults", () => {
  it("exits non-zero naming the URL when NATS cannot be reached", async () => {
    const spawned = spawnCaptured(process.execPath, [MAIN_JS], {
      env: {
        ...process.env,
        DATA_DIR: tempDataDir("cluster-unreachable"),
        PORT: "0",
        SERVICE_HMAC_SECRETS: `${OPERATOR.actorId}=${OPERATOR.secret}`,
        CLUSTER_NATS_URLS: "nats://127.0.0.1:1",
        CLUSTER_NODE_ID: "lonely",
      },
    });
    const exit = await spawned.exited;
    expect(exit.code).not.toBe(0);
    expect(spawned.output()).toContain("nats://127.0.0.1:1");
  });
});
