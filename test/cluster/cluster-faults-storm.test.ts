/**
 * Faults during a hot-market claim storm (issue 27 "Tests"), on three real nats-server nodes and
 * three real service nodes: a partition's owner killed with SIGKILL mid-storm, and one NATS node
 * killed mid-storm. Participants claim with bounded concurrency and retry a 503 or a lost
 * connection with the same commandId; afterwards every acknowledged claim is in the record,
 * capacity is not exceeded, nobody holds two commitments, and a retry returns the original reply.
 *
 * Timings are printed for the report (kill → first success on the market), never asserted.
 */
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { partitionStream } from "../../engine/cluster/partition-host.js";
import { eventually } from "../process/support.js";
import type { NatsCluster } from "../../scripts/nats-cluster.js";
import { startFaultCluster, stopFaultCluster } from "./support/fault-cluster.js";
import type { ServiceCluster } from "./support/service-cluster.js";
import { openDirectClaimMarket, type ClusterPrincipal } from "./support/cluster-clients.js";
import { claimStorm, provisionMany, stormProblems, stormSummary, type ClaimAttempt, type ClaimOutcome } from "./support/claim-storm.js";
import { marketIdOnPartition } from "../../engine/runtime/shard-routing.js";
import { everyPartitionServedOnce, ownerOnce, ownershipLines } from "./support/partition-owners.js";

/** Which run of the current test this is (vitest retries a failed test): ids differ per run. */
let runs = 0;
const attempt = (): number => runs;
beforeEach(() => {
  runs += 1;
});

const PARTITIONS = 6;
/** Participants per storm; each claims once. */
const CLAIMERS = 300;
const IN_FLIGHT = 32;
/** The fault is injected when this many claims have been acknowledged. */
const FAULT_AFTER_SUCCESSES = 25;

let nats: NatsCluster;
let nodes: ServiceCluster;
let inspector: NatsConnection;
let jsm: JetStreamManager;
let creator: ClusterPrincipal;

beforeAll(async () => {
  ({ nats, nodes, creator, inspector, jsm } = await startFaultCluster(PARTITIONS, { CLUSTER_FORWARD_TIMEOUT_MS: "2000" }, "storm-creator"));
});

afterAll(() => stopFaultCluster({ inspector, nodes, nats }, "cluster-faults-storm", failed));

let failed = false;
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    failed = true;
  });
});

/** The first success among attempts sent after `sinceMs`: when it was answered, ms after `sinceMs`. */
function firstSuccessAfter(outcomes: readonly ClaimOutcome[], sinceMs: number): { afterMs: number; count: number } {
  const after: ClaimAttempt[] = outcomes.flatMap((outcome) => outcome.attempts).filter((attempt) => attempt.status === 200 && attempt.sentAtMs >= sinceMs);
  const first = Math.min(...after.map((attempt) => attempt.answeredAtMs));
  return { afterMs: Math.round(first - sinceMs), count: after.length };
}

/** The logs' lines about partitions, leases and errors, for a failure message. */
function clusterLog(): string {
  return ownershipLines(nodes, 20);
}

describe("a claim storm on a hot market", () => {
  it("survives kill -9 of the market's owner mid-storm: every acknowledged claim kept, capacity never exceeded, none acknowledged twice", async () => {
    const capacity = 100;
    const partition = 1;
    const owner = await ownerOnce(nodes, partition);
    const others = [0, 1, 2].filter((i) => i !== owner);
    const marketId = marketIdOnPartition(`storm-owner-kill-${attempt()}`, partition, PARTITIONS);
    await openDirectClaimMarket(nodes, others[0] as number, creator, marketId, capacity);
    const claimers = await provisionMany(nodes, `owner-kill-claimer-${attempt()}`, CLAIMERS);

    let successes = 0;
    let killedAtMs: number | undefined;
    let killing: Promise<void> | undefined;
    const outcomes = await claimStorm({
      cluster: nodes,
      marketId,
      claimers,
      through: others,
      concurrency: IN_FLIGHT,
      retryForMs: 60_000,
      commandPrefix: `owner-kill-claim-${attempt()}`,
      onAttempt: (attempt) => {
        if (attempt.status !== 200 || (successes += 1) !== FAULT_AFTER_SUCCESSES) return;
        killedAtMs = performance.now();
        killing = nodes.kill(owner);
      },
    });
    await killing;
    expect(killedAtMs, "the owner was killed mid-storm").toBeDefined();
    const summary = stormSummary(outcomes);
    const failover = firstSuccessAfter(outcomes, killedAtMs as number);
    console.info(`[figures] owner kill -9 mid-storm: kill → first success on the market ${failover.afterMs} ms; ${failover.count} successes sent after the kill; ${JSON.stringify(summary)}`);

    const problems = await stormProblems(nodes, creator, marketId, capacity, outcomes);
    expect(problems, `${problems.join("\n")}\n${clusterLog()}`).toEqual([]);
    expect(summary.ok).toBe(capacity);
    expect(failover.count).toBeGreaterThan(0);

    await nodes.restart(owner);
    await everyPartitionServedOnce(nodes, PARTITIONS);
  }, 170_000);

  it("keeps acknowledging when a NATS node (the partition stream's leader) is killed mid-storm, and loses nothing acknowledged", async () => {
    const capacity = 150;
    const partition = 4;
    const marketId = marketIdOnPartition(`storm-nats-kill-${attempt()}`, partition, PARTITIONS);
    await openDirectClaimMarket(nodes, 0, creator, marketId, capacity);
    const claimers = await provisionMany(nodes, `nats-kill-claimer-${attempt()}`, CLAIMERS);
    const leaderName = (await jsm.streams.info(partitionStream(partition))).cluster?.leader;
    expect(leaderName, "the partition stream has a leader").toBeDefined();
    const natsIndex = nats.indexOf(leaderName as string);

    let successes = 0;
    let killedAtMs: number | undefined;
    let killing: Promise<void> | undefined;
    const outcomes = await claimStorm({
      cluster: nodes,
      marketId,
      claimers,
      through: [0, 1, 2],
      concurrency: IN_FLIGHT,
      retryForMs: 60_000,
      commandPrefix: `nats-kill-claim-${attempt()}`,
      onAttempt: (attempt) => {
        if (attempt.status !== 200 || (successes += 1) !== FAULT_AFTER_SUCCESSES) return;
        killedAtMs = performance.now();
        killing = nats.kill(natsIndex);
      },
    });
    await killing;
    expect(killedAtMs, "the NATS node was killed mid-storm").toBeDefined();
    const summary = stormSummary(outcomes);
    const after = firstSuccessAfter(outcomes, killedAtMs as number);
    console.info(`[figures] NATS node ${leaderName} (stream leader of ${partitionStream(partition)}) kill -9 mid-storm: kill → first success sent after it ${after.afterMs} ms; ${after.count} successes sent after the kill; ${JSON.stringify(summary)}`);

    // The service kept acknowledging after the kill, and nothing acknowledged was lost.
    expect(after.count).toBeGreaterThan(0);
    const problems = await stormProblems(nodes, creator, marketId, capacity, outcomes);
    expect(problems, `${problems.join("\n")}\n${clusterLog()}`).toEqual([]);
    expect(summary.ok).toBe(capacity);

    await nats.restart(natsIndex);
    await everyPartitionServedOnce(nodes, PARTITIONS);
    // The restarted node catches up as a replica of the stream again.
    await eventually(async () => (await jsm.streams.info(partitionStream(partition))).cluster?.replicas?.filter((replica) => replica.current).length === 2, 60_000, "the restarted NATS node current again as the stream's replica");
  }, 170_000);
});
