/**
 * Snapshots by command count (decision I57, CLUSTER_SNAPSHOT_EVERY_COMMANDS): a partition's shard
 * snapshots itself once that many commands are in no snapshot, so a new owner replays about that
 * many at most, however long ago the last periodic checkpoint was; and the node snapshots the
 * partition's idempotency entries under each such snapshot's mark (decision I58), so the new owner
 * reads the stream for them only after it too. Three real
 * nats-server nodes and three service nodes; periodic checkpoints are off (CHECKPOINT_EVERY_SECONDS=0),
 * so only the count can have snapshotted; the new owner's `partition acquired` line says how many
 * commands it replayed after the snapshot it loaded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsCluster } from "../../scripts/nats-cluster.js";
import { ServiceCluster } from "./support/service-cluster.js";
import { claimBody, openDirectClaimMarket, provisionPrincipal, request, requestOnce } from "./support/cluster-clients.js";
import { shardOfMarket } from "../../engine/runtime/shard-routing.js";
import { eventually } from "../process/support.js";

const PARTITIONS = 3;
const EVERY_COMMANDS = 40;
/** Create, publish, then the claims: over three times the count, so at least three snapshots were due. */
const CLAIMS = 130;
let nats: NatsCluster;
let nodes: ServiceCluster;

beforeAll(async () => {
  nats = await NatsCluster.start();
  nodes = await ServiceCluster.start(nats.urls, 3, {
    env: { CLUSTER_PARTITIONS: String(PARTITIONS), CLUSTER_SNAPSHOT_EVERY_COMMANDS: String(EVERY_COMMANDS), CHECKPOINT_EVERY_SECONDS: "0" },
  });
  await everyPartitionServedOnce();
}, 120_000);

const ALL_PARTITIONS = Array.from({ length: PARTITIONS }, (_, p) => p);

/** Every partition served by exactly one node, one each (no rebalancing left to move one mid-test). */
async function everyPartitionServedOnce(): Promise<void> {
  const servers = (p: number) => [0, 1, 2].filter((i) => nodes.running(i) && nodes.serves(i, p)).length;
  const balanced = () => [0, 1, 2].every((i) => ALL_PARTITIONS.filter((p) => nodes.serves(i, p)).length === 1);
  await eventually(() => ALL_PARTITIONS.every((p) => servers(p) === 1) && balanced(), 60_000, "every partition served by exactly one node, one each");
}

afterAll(async () => {
  await nodes?.stop();
  await nats?.stop();
});

/** The `partition acquired` entries node `index` logged for `partition`, oldest first. */
interface Acquired {
  msg?: string;
  partition?: number;
  epoch: number;
  commandsReplayed: number;
  commandsScanned: number;
  idempotencyFromSnapshot: number;
  lastSequence: number;
}

function acquisitions(index: number, partition: number): Acquired[] {
  const entries: Acquired[] = [];
  for (const line of nodes.output(index).split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      entries.push(JSON.parse(line) as Acquired);
    } catch {
      // The last line of a running node's output may be only partly written.
    }
  }
  return entries.filter((entry) => entry.msg === "partition acquired" && entry.partition === partition);
}

describe("snapshots by command count", () => {
  it("lets a new owner replay no more than the count since the last snapshot, with no periodic checkpoint", async () => {
    const marketId = "checkpoint-market";
    const partition = shardOfMarket(marketId, PARTITIONS);
    const owner = nodes.ownerOf(partition) as number;
    const other = (owner + 1) % 3;
    const creator = await provisionPrincipal(nodes, other, "checkpoint-creator");
    const claimer = await provisionPrincipal(nodes, other, "checkpoint-claimer");
    await openDirectClaimMarket(nodes, other, creator, marketId, 10);
    // One principal: the first claim is accepted, the rest refused; every one is a logged command.
    let accepted: { status: number; text: string } | undefined;
    for (let n = 0; n < CLAIMS; n += 1) {
      const answer = await request(nodes, other, "POST", `/v1/markets/${marketId}/direct-claims`, claimer, claimBody(`checkpoint-claim-${n}`, claimer));
      expect([200, 409], answer.text).toContain(answer.status);
      if (n === 0) accepted = answer;
    }
    expect(accepted?.status).toBe(200);
    // Still the owner it was (no rebalancing moved it, which would have snapshotted it on release).
    expect(nodes.ownerOf(partition)).toBe(owner);
    const ownerEpoch = Math.max(...acquisitions(owner, partition).map((entry) => entry.epoch));
    await nodes.kill(owner);
    const last = `checkpoint-claim-after-kill`;
    await eventually(async () => (await requestOnce(nodes, other, "POST", `/v1/markets/${marketId}/direct-claims`, claimer, claimBody(last, claimer))).status === 409, 60_000, "the market answering again after its owner was killed");
    let taken: Acquired | undefined;
    await eventually(() => {
      taken = [0, 1, 2].filter((i) => i !== owner).flatMap((i) => acquisitions(i, partition)).find((entry) => entry.epoch > ownerEpoch);
      return taken !== undefined;
    }, 60_000, "the new owner's partition acquired line");
    expect(taken?.lastSequence).toBeGreaterThanOrEqual(CLAIMS + 2);
    // Without snapshots by count it replays every command of the stream (CLAIMS + 2).
    expect(taken?.commandsReplayed).toBeLessThan(EVERY_COMMANDS);
    // Decision I58: the idempotency entries come from their newest snapshot, so the stream is read
    // for them only after it (without it, every command before the partition's snapshot is scanned:
    // more than CLAIMS - EVERY_COMMANDS). Since decision I60 the shard stores its own only after
    // the node stored that one, so none is scanned, unless that write failed (the shard then stores
    // its own anyway, and one interval is scanned): a storm on both cores may make it time out.
    expect(taken?.idempotencyFromSnapshot).toBeGreaterThan(0);
    expect(taken?.commandsScanned).toBeLessThan(2 * EVERY_COMMANDS);
    // The first claim, logged long before the snapshot the new owner started from, is still the same command.
    const retried = await request(nodes, other, "POST", `/v1/markets/${marketId}/direct-claims`, claimer, claimBody("checkpoint-claim-0", claimer));
    expect(retried.status, retried.text).toBe(200);
    expect(retried.text).toBe(accepted?.text);
    const market = await request(nodes, other, "GET", `/v1/markets/${marketId}`, creator);
    expect(market.status, market.text).toBe(200);
    await nodes.restart(owner);
    await everyPartitionServedOnce();
  }, 180_000);
});
