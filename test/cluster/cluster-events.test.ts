/**
 * Live market events in cluster mode (docs/events.md, "Cluster"), on a real 3-node nats-server
 * cluster and three real service nodes: a subscriber on a node that does not own the market's
 * partition gets every event, in order; when the owner is killed, its stream ends with
 * `event: end` (owner_changed) and the client's subscription resumes at the new owner with no gap
 * and no duplicate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { ServiceCluster } from "./support/service-cluster.js";
import { claimBody, openDirectClaimMarket, provisionPrincipal, request, type ClusterPrincipal } from "./support/cluster-clients.js";
import { marketIdOnPartition } from "../../engine/runtime/shard-routing.js";
import { everyPartitionServedOnce, ownerOnce } from "./support/partition-owners.js";
import { eventually } from "../process/support.js";
import { EventStream } from "../events/support/event-stream.js";
import { errorGuards, subscribeMarketEvents, type MarketStreamEvent } from "@market-service/client";

const PARTITIONS = 6;
let nats: NatsCluster;
let nodes: ServiceCluster;
let creator: ClusterPrincipal;

beforeAll(async () => {
  nats = await NatsCluster.start();
  nodes = await ServiceCluster.start(nats.urls, 3, { env: { CLUSTER_PARTITIONS: String(PARTITIONS), EVENTS_KEEP_ALIVE_MS: "500" } });
  await everyPartitionServedOnce(nodes, PARTITIONS);
  creator = await provisionPrincipal(nodes, 0, "creator");
}, 120_000);

afterAll(async () => {
  await nodes?.stop();
  await nats?.stop();
});

async function recordEvents(nodeIndex: number, marketId: string): Promise<Array<Record<string, unknown>>> {
  const record = await request(nodes, nodeIndex, "GET", `/v1/markets/${marketId}/record`, creator);
  expect(record.status, record.text).toBe(200);
  return record.body.events as Array<Record<string, unknown>>;
}

/**
 * A claim by a new principal through node `nodeIndex`. A keep-alive connection the node closed as
 * idle (uWS's 10 s timer) may be reset as fetch reuses it: then a new principal tries again.
 */
async function claimVia(nodeIndex: number, marketId: string, label: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const who = await provisionPrincipal(nodes, nodeIndex, `${label}-${attempt}`);
      const claimed = await request(nodes, nodeIndex, "POST", `/v1/markets/${marketId}/direct-claims`, who, claimBody(`${label}-${attempt}-claim`, who));
      expect(claimed.status, claimed.text).toBe(200);
      return;
    } catch (error) {
      if (attempt >= 3 || !errorGuards.unreachable(error)) throw error;
    }
  }
}

describe("live events in a cluster", () => {
  it("a subscriber on a node that does not own the market gets every event in order, as the record shows them", async () => {
    const marketId = marketIdOnPartition("events-any-node", 1, PARTITIONS);
    const owner = await ownerOnce(nodes, 1);
    const elsewhere = (owner + 1) % 3;
    const third = (owner + 2) % 3;
    await openDirectClaimMarket(nodes, third, creator, marketId, 10);
    const stream = await EventStream.open(nodes.url(elsewhere), marketId, { kind: "bearer", token: creator.token }, { after: 0 });
    try {
      expect(stream.response.status).toBe(200);
      for (let i = 0; i < 3; i += 1) await claimVia([owner, elsewhere, third][i] as number, marketId, `any-node-${i}`);
      const record = await recordEvents(owner, marketId);
      await stream.untilSequence(record.length, 60_000);
      expect(stream.events.map((e) => e.event)).toEqual(record);
    } finally {
      stream.close();
    }
  });

  it("when the owner dies the stream ends with owner_changed, and the client resumes at the new owner with no gap and no duplicate", async () => {
    const marketId = marketIdOnPartition("events-failover", 2, PARTITIONS);
    const owner = await ownerOnce(nodes, 2);
    const watcher = (owner + 1) % 3;
    const other = (owner + 2) % 3;
    await openDirectClaimMarket(nodes, watcher, creator, marketId, 20);
    const seen: MarketStreamEvent[] = [];
    const reasons: string[] = [];
    const control = new AbortController();
    const subscription = subscribeMarketEvents({
      baseUrl: nodes.url(watcher),
      marketId,
      after: 0,
      signal: control.signal,
      headers: () => ({ authorization: `Bearer ${creator.token}` }),
      backoff: { initialDelayMs: 50, maxDelayMs: 500, maxAttempts: 100 },
      onReconnect: (info) => reasons.push(info.reason),
    });
    const reading = (async () => {
      for await (const event of subscription) seen.push(event);
    })();
    try {
      await claimVia(owner, marketId, "failover-before");
      const before = await recordEvents(watcher, marketId);
      await eventually(() => seen.length >= before.length, 60_000, "the events before the failover");

      await nodes.kill(owner);
      const successor = await ownerOnce(nodes, 2, 60_000);
      expect(successor).not.toBe(owner);
      // Claims also bind their keys at other partitions: every one must have its new owner.
      await everyPartitionServedOnce(nodes, PARTITIONS, 60_000);
      await eventually(() => reasons.some((reason) => reason.startsWith("owner_changed")), 60_000, "the stream to end with owner_changed");

      await claimVia(other, marketId, "failover-after-1");
      await claimVia(watcher, marketId, "failover-after-2");
      const record = await recordEvents(watcher, marketId);
      await eventually(() => seen.length >= record.length, 60_000, `all ${record.length} events (seen ${seen.length})`);
      expect(seen.map((e) => e.event)).toEqual(record);
    } catch (error) {
      for (let i = 0; i < 3; i += 1) process.stderr.write(`--- node ${i}${i === owner ? " (killed owner)" : ""}:\n${nodes.output(i).split("\n").filter((line) => !line.includes('"msg":"request"')).slice(-25).join("\n")}\n`);
      throw error;
    } finally {
      control.abort();
      await reading.catch(() => undefined);
    }
  }, 120_000);
});
