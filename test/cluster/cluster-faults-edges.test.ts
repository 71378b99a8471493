/**
 * The edges around failover (issue 35), on three real nats-server nodes and three real service
 * nodes, with clients that retry as a real one does (bench/cluster-prober.ts: a claim answered 503
 * or not at all is sent again with its commandId):
 *
 * - an owner paused with SIGSTOP: requests forwarded to it follow the lease to the node that takes
 *   its partitions over, instead of waiting out the forwarding timeout; after SIGCONT its share is
 *   handed back to it;
 * - the NATS server leading the lease bucket killed: while no lease can be renewed, commands go
 *   on, and so must the retries of commands that did execute (their original reply is read from
 *   the owner's log as a command is executed, not as a read of the current state);
 * - every 503 in plain words (plainWordsProblem, scripts/plain-words.ts).
 *
 * Timings are printed for the report ([figures]); what is asserted fails without the behaviour
 * (a request left on the paused owner waits out the whole forwarding timeout; a retry refused
 * while the lease lapsed is answered only after the lease is renewed).
 */
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { homeOf } from "../../engine/cluster/key-bindings.js";
import { partitionStream } from "../../engine/cluster/partition-host.js";
import { MarketClient } from "@market-service/client";
import { decided, outage, Prober, type Answer } from "../../bench/cluster-prober.js";
import { eventually } from "../process/support.js";
import { plainWordsProblem } from "../../scripts/plain-words.js";
import type { NatsCluster } from "../../scripts/nats-cluster.js";
import { startFaultCluster, stopFaultCluster } from "./support/fault-cluster.js";
import type { ServiceCluster } from "./support/service-cluster.js";
import { openDirectClaimMarket, provisionPrincipal, requestOnce, type ClusterPrincipal } from "./support/cluster-clients.js";
import { provisionMany, readRecord } from "./support/claim-storm.js";
import { marketIdOnPartition } from "../../engine/runtime/shard-routing.js";
import { everyPartitionServedOnce, ownerOnce } from "./support/partition-owners.js";

const PARTITIONS = 6;
/**
 * Longer than a takeover (the lease, 1.5 s, then the new owner's recovery), so that a request that
 * followed the lease is answered before it, and below uWebSockets.js's 10 s timer, which closes a
 * connection whose request is still unanswered (docs/http.md).
 */
const FORWARD_TIMEOUT_MS = 9_000;

/** Which run of the current test this is (vitest retries a failed test): ids differ per run. */
let runs = 0;
beforeEach(() => {
  runs += 1;
});
let nats: NatsCluster;
let nodes: ServiceCluster;
let creator: ClusterPrincipal;
let inspector: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  ({ nats, nodes, creator, inspector, jsm } = await startFaultCluster(
    PARTITIONS,
    // Every partition a key home: a test below needs a key whose home is a given market's partition.
    { CLUSTER_LEASE_MS: "1500", CLUSTER_FORWARD_TIMEOUT_MS: String(FORWARD_TIMEOUT_MS), CLUSTER_KEY_HOMES: String(PARTITIONS) },
    "edges-creator",
  ));
});

// KEEP_NODE_LOGS=1 keeps the nodes' logs after a pass too (to look at a run's figures in detail).
afterAll(() => stopFaultCluster({ inspector, nodes, nats }, "cluster-faults-edges", failed));

let failed = false;
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    failed = true;
  });
});

/** A node's log lines about partitions as objects, with their time on this process's `performance.now()` clock. */
function partitionLog(index: number): Array<{ msg: string; partition: number; atMs: number; elapsedMs?: number; reason?: string }> {
  const wallToPerf = Date.now() - performance.now();
  const entries: Array<{ msg: string; partition: number; atMs: number; elapsedMs?: number; reason?: string }> = [];
  for (const line of nodes.output(index).split("\n")) {
    if (!line.startsWith("{") || !line.includes('"partition ')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; partition?: number; time?: string; elapsedMs?: number; reason?: string };
      if (entry.msg === undefined || entry.partition === undefined || entry.time === undefined) continue;
      entries.push({ msg: entry.msg, partition: entry.partition, atMs: Date.parse(entry.time) - wallToPerf, ...(entry.elapsedMs === undefined ? {} : { elapsedMs: entry.elapsedMs }), ...(entry.reason === undefined ? {} : { reason: entry.reason }) });
    } catch {
      // a partial last line
    }
  }
  return entries;
}

/** The 503 messages among `answers` that break the plain-words rule, with what is wrong. */
function notPlainWords(answers: readonly Answer[]): string[] {
  const problems = new Set<string>();
  for (const answer of answers) {
    if (answer.status !== "503" || answer.message === undefined) continue;
    const problem = plainWordsProblem(answer.message);
    if (problem !== undefined) problems.add(`${JSON.stringify(answer.message)}: ${problem}`);
  }
  return [...problems];
}

/** A claim through `node`, sent again while it is answered 503 (bounded); resolves with the first other answer and the 503s' messages. */
async function claimUntilNot503(node: number, marketId: string, who: ClusterPrincipal, commandId: string): Promise<{ status: number; text: string; refusals: string[] }> {
  let answer = { status: 0, text: "" };
  const refusals: string[] = [];
  await eventually(async () => {
    const reply = await requestOnce(nodes, node, "POST", `/v1/markets/${marketId}/direct-claims`, who, { commandId, principalId: who.principalId });
    answer = { status: reply.status, text: reply.text };
    if (reply.status === 503) refusals.push((reply.body as { error: { message: string } }).error.message);
    return reply.status !== 503;
  }, 20_000, `a claim through node ${node} answered other than 503`).catch((error: unknown) => {
    throw new Error(`${String(error)}; last answer ${answer.status} ${answer.text}`);
  });
  return { ...answer, refusals };
}

describe("an owner paused with SIGSTOP, then resumed", () => {
  it("forwarding follows the lease to the new owner; after SIGCONT the share is handed back; nothing acknowledged is lost or doubled; every 503 in plain words", async () => {
    const paused = await ownerOnce(nodes, 2);
    const others = [0, 1, 2].filter((i) => i !== paused);
    const markets = Array.from({ length: PARTITIONS }, (_, p) => marketIdOnPartition(`edges-paused-${runs}-${p}`, p, PARTITIONS));
    for (const marketId of markets) await openDirectClaimMarket(nodes, others[0] as number, creator, marketId, 1_000_000);
    const claimers = await provisionMany(nodes, `edges-claimer-${runs}`, 24);
    const clients = others.map((i) => new MarketClient({ baseUrl: nodes.url(i), timeoutMs: 2 * FORWARD_TIMEOUT_MS }));
    // Claims through the two other nodes on one market per partition, retried as a client would.
    const prober = new Prober(clients, claimers, creator.token, { markets, claimEveryMs: 40, retryEveryMs: 200, retryForMs: 2 * FORWARD_TIMEOUT_MS, retryingAtMost: 200 });
    const decidedOn = (marketId: string, sentAfterMs: number) => prober.answers.some((a) => a.marketId === marketId && decided(a) && a.sentAtMs > sentAfterMs);

    const itsPartitions = Array.from({ length: PARTITIONS }, (_, p) => p).filter((p) => nodes.serves(paused, p));
    let pausedAtMs = 0;
    let resumedAtMs = 0;
    const takeoverAtMs = new Map<number, number>();
    try {
      await eventually(() => markets.every((marketId) => decidedOn(marketId, 0)), 60_000, "a claim decided on every market before the pause");
      pausedAtMs = performance.now();
      nodes.pause(paused);
      await eventually(() => itsPartitions.every((p) => others.some((i) => nodes.serves(i, p))), 60_000, "the paused node's partitions served by the others");
      for (const p of itsPartitions) {
        const acquired = others.flatMap((i) => partitionLog(i)).filter((e) => e.msg === "partition acquired" && e.partition === p && e.atMs >= pausedAtMs);
        takeoverAtMs.set(p, Math.min(...acquired.map((e) => e.atMs)));
      }
      const lastTakeoverMs = Math.max(...takeoverAtMs.values());
      await eventually(() => itsPartitions.every((p) => decidedOn(markets[p] as string, lastTakeoverMs)), 60_000, "claims decided on the taken-over partitions");

      resumedAtMs = performance.now();
      nodes.resume(paused);
      // The resumed node takes its share back; then every market decides claims again.
      await eventually(() => Array.from({ length: PARTITIONS }, (_, p) => p).some((p) => partitionLog(paused).some((e) => e.msg === "partition acquired" && e.partition === p && e.atMs >= resumedAtMs)), 60_000, "the resumed node taking a partition back");
      await everyPartitionServedOnce(nodes, PARTITIONS, 60_000);
      const settledAtMs = performance.now();
      await eventually(() => markets.every((marketId) => decidedOn(marketId, settledAtMs)), 60_000, "claims decided on every market after the hand-back");
    } finally {
      await prober.stop();
    }
    const answers = prober.answers;
    const lastTakeoverMs = Math.max(...takeoverAtMs.values());

    // The figures: the clients' outage against the takeover, and the hand-back after SIGCONT.
    const firstDecidedAfter = (marketId: string, fromMs: number) => Math.round(Math.min(...answers.filter((a) => a.marketId === marketId && decided(a) && a.doneAtMs >= fromMs).map((a) => a.doneAtMs)) - fromMs);
    const paused_ = itsPartitions.map((p) => {
      const claims = outage(answers, "claim", pausedAtMs, resumedAtMs, markets[p]);
      return `partition ${p}: taken over after ${Math.round((takeoverAtMs.get(p) as number) - pausedAtMs)} ms, first claim decided after ${firstDecidedAfter(markets[p] as string, pausedAtMs)} ms (longest gap ${claims.longestGapMs} ms)`;
    });
    const handedBack = partitionLog(paused).filter((e) => e.msg === "partition acquired" && e.atMs >= resumedAtMs);
    const handBack = handedBack.map(({ partition, atMs }) => {
      const released = others.flatMap((i) => partitionLog(i)).filter((e) => e.msg === "partition released" && e.partition === partition && e.atMs >= resumedAtMs && e.atMs <= atMs).at(-1);
      const stoppedAtMs = released === undefined ? Number.NaN : released.atMs - (released.elapsedMs ?? 0);
      const claims = outage(answers, "claim", resumedAtMs, performance.now(), markets[partition]);
      return `partition ${partition}: no owner for ${Math.round(atMs - stoppedAtMs)} ms (released after ${released?.elapsedMs ?? "?"} ms of draining), claims' longest gap ${claims.longestGapMs} ms`;
    });
    console.info(`[figures] SIGSTOP of node ${nodes.nodeId(paused)} (partitions ${itsPartitions.join(", ")}): ${paused_.join("; ")}. After SIGCONT: ${handBack.join("; ")}. Answers: ${answers.length}, 503s: ${answers.filter((a) => a.status === "503").length}`);

    // No request was left waiting on the paused owner: none waited out the forwarding timeout (one
    // sent to the paused node before the takeover is sent again to the new owner once the lease moves).
    expect(lastTakeoverMs - pausedAtMs, "the takeover itself took about the forwarding timeout: nothing could follow the lease in time").toBeLessThan(FORWARD_TIMEOUT_MS - 1_000);
    const waited = answers.filter((a) => a.doneAtMs - a.sentAtMs >= FORWARD_TIMEOUT_MS - 500);
    expect(waited.map((a) => `${a.kind} on ${a.marketId} via node ${a.node}: sent ${Math.round(a.sentAtMs - pausedAtMs)} ms after the pause, answered ${Math.round(a.doneAtMs - a.sentAtMs)} ms later (${a.status} ${a.message ?? ""})`)).toEqual([]);
    expect(handedBack.length, "partitions handed back to the resumed node").toBeGreaterThan(0);

    // Every claim ended decided; what was acknowledged is in the records, once, and nothing else is.
    const chains = new Map<string, Answer[]>();
    for (const a of answers) if (a.commandId !== undefined) chains.set(a.commandId, [...(chains.get(a.commandId) ?? []), a]);
    const undecided = [...chains.entries()].filter(([, attempts]) => !attempts.some(decided)).map(([commandId]) => commandId);
    expect(undecided, "claims without a decided answer").toEqual([]);
    for (const marketId of markets) {
      const { record } = await readRecord(nodes, others[0] as number, creator, marketId);
      const accepted = answers.filter((a) => a.marketId === marketId && a.status === "200");
      const holders = new Set(record.commitments.map((c) => c.participantPrincipalId));
      expect(record.commitments.length, `${marketId}: one commitment per participant`).toBe(holders.size);
      expect(new Set(accepted.map((a) => a.principalId)), `${marketId}: the participants acknowledged are the holders`).toEqual(holders);
      const recorded = new Map<string, number>();
      for (const command of record.commands) if (command.type === "direct_claim.submit") recorded.set(String(command.request["commandId"]), (recorded.get(String(command.request["commandId"])) ?? 0) + 1);
      expect([...recorded.entries()].filter(([, times]) => times > 1), `${marketId}: commands recorded twice`).toEqual([]);
      for (const a of accepted) expect(recorded.get(a.commandId ?? ""), `${a.commandId} acknowledged`).toBe(1);
    }

    expect(notPlainWords(answers)).toEqual([]);
  }, 300_000);
});

describe("the NATS server leading the lease bucket killed", () => {
  it("answers the retry of a command that executed while the lease cannot be renewed (as soon as a new command), every 503 in plain words", async () => {
    const leasesLeader = (await jsm.streams.info("KV_cluster-leases")).cluster?.leader;
    expect(leasesLeader, "the lease bucket has a leader").toBeDefined();
    // A partition whose stream another server leads: its commands go on while the bucket has none.
    let partition = -1;
    for (let p = 0; p < PARTITIONS && partition < 0; p += 1) if ((await jsm.streams.info(partitionStream(p))).cluster?.leader !== leasesLeader) partition = p;
    expect(partition, "a partition stream led by another server than the lease bucket").toBeGreaterThanOrEqual(0);
    const owner = await ownerOnce(nodes, partition);
    const marketId = marketIdOnPartition(`edges-lapse-${runs}`, partition, PARTITIONS);
    await openDirectClaimMarket(nodes, owner, creator, marketId, 100);
    const who = await provisionPrincipal(nodes, owner, `edges-lapse-claimer-${runs}`);
    // A commandId whose key's home is the market's partition: no binding at another home's stream.
    let n = 0;
    while (homeOf(who.principalId, `edges-lapse-claim-${n}`, PARTITIONS) !== partition) n += 1;
    const commandId = `edges-lapse-claim-${n}`;
    const natsIndex = nats.indexOf(leasesLeader as string);

    const bodies: Answer[] = [];
    const killedAtMs = performance.now();
    await nats.kill(natsIndex);
    try {
      // The owner's lease lapses by its clock: it answers no read of the current state. (A 503 for
      // another cause, such as its NATS connection moving off the killed server, is not that.)
      let lapsed = "";
      await eventually(async () => {
        const read = await requestOnce(nodes, owner, "GET", `/v1/markets/${marketId}`, creator);
        if (read.status === 503) lapsed = (read.body as { error: { message: string } }).error.message;
        return read.status === 503 && lapsed.includes("lapsed");
      }, 60_000, "the owner refusing reads because its lease lapsed");
      const lapsedAtMs = performance.now();
      bodies.push({ kind: "read", node: owner, sentAtMs: lapsedAtMs, doneAtMs: lapsedAtMs, status: "503", message: lapsed });

      // A new command executes (commands go on), and its retries, through every node, get its reply.
      const first = await claimUntilNot503(owner, marketId, who, commandId);
      expect(first.status, first.text).toBe(200);
      const retries = await Promise.all([0, 1, 2].map((node) => claimUntilNot503(node, marketId, who, commandId)));
      const retriedAtMs = performance.now();
      // ...while the lease still cannot be renewed: reads are still refused.
      const readAfter = await requestOnce(nodes, owner, "GET", `/v1/markets/${marketId}`, creator);
      const refusals = [...first.refusals, ...retries.flatMap((retry) => retry.refusals)];
      console.info(
        `[figures] lease bucket leader ${leasesLeader} killed: the owner's reads refused ${Math.round(lapsedAtMs - killedAtMs)} ms after the kill; ` +
          `a new claim and its retries through every node answered within ${Math.round(retriedAtMs - lapsedAtMs)} ms after that (503s met: ${JSON.stringify(refusals)}); a read then: ${readAfter.status}`,
      );
      for (const message of refusals) bodies.push({ kind: "retry", node: owner, sentAtMs: retriedAtMs, doneAtMs: retriedAtMs, status: "503", message });
      expect(retries.map((retry) => retry.status)).toEqual([200, 200, 200]);
      expect(retries.map((retry) => retry.text)).toEqual([first.text, first.text, first.text]);
      // Refused only where a new command is too: a node whose NATS connection moves to another server.
      expect(refusals.filter((message) => !message.includes("cut off from NATS"))).toEqual([]);
      expect(readAfter.status, "the lease was renewed before the retries were checked: they did not meet a lapsed lease").toBe(503);
      bodies.push({ kind: "read", node: owner, sentAtMs: retriedAtMs, doneAtMs: retriedAtMs, status: "503", message: (readAfter.body as { error: { message: string } }).error.message });
    } finally {
      await nats.restart(natsIndex);
    }
    await everyPartitionServedOnce(nodes, PARTITIONS, 60_000);
    expect(notPlainWords(bodies)).toEqual([]);
  }, 180_000);
});
