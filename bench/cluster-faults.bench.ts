/**
 * `npm run bench:cluster-faults` (issues 27 and 35; docs/cluster.md, "What each failure costs"):
 * what clients see when nodes fail under a 3 NATS + 3 service node cluster on this machine
 * (scripts/local-cluster.ts). Throughout, a prober sends claims on one market every 25 ms and
 * reads of it every 100 ms, through the three service nodes in turn, each without waiting for the
 * ones before, and records every answer (status, latency, message). A claim answered 503 (or not
 * at all) is sent again with the same commandId every 200 ms until it is decided, as a client
 * would: those retries are counted apart (at most 40 claims retrying at once).
 *
 *   1. kill -9 of one NATS node, for each role it can have: one that leads neither the market's
 *      partition stream nor the lease bucket's stream (`KV_cluster-leases`), the leader of the
 *      partition stream, the leader of the lease bucket's stream, and one leading both (arranged by
 *      asking the partition stream's leader to step down until the two coincide); the roles of each
 *      node killed are recorded, the identity stream's too; the node is started again between kills.
 *      Per kill: how long no claim was decided, how long retries were refused, 503s, the slowest answer.
 *   2. kill -9 of the service node serving the market's partition (requests through the two others);
 *      it is started again afterwards.
 *   3. SIGSTOP of the service node serving the market's partition for `--pause-seconds`, then
 *      SIGCONT; claims on one market per partition through the two others. The partitions each node
 *      serves are sampled every 100 ms from /metrics: per partition, when another node served it
 *      after the pause, and the longest time no node served it after SIGCONT (the hand-back).
 *   4. kill -9 of two of the three NATS nodes (no quorum) for `--quorum-seconds`: what claims,
 *      reads and identity writes (provisioning) are answered, second by second; then both are
 *      started again: from their start to the first claim decided and to every service node
 *      deciding claims again.
 *
 * Every 503's message is checked against the plain-words rule of docs/errors.md
 * (plainWordsProblem, scripts/plain-words.ts); the ones that break it are listed.
 *
 *   npm run bench:cluster-faults -- [--quorum-seconds 20] [--watch-seconds 15] [--pause-seconds 8]
 *
 * Needs nats-server (bash scripts/fetch-nats-server.sh). Writes bench/results/<date>-cluster-faults.json.
 */
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import * as path from "node:path";
import { connectForJournals } from "../engine/messaging/nats/connect.js";
import { shardOfMarket } from "../engine/runtime/shard-routing.js";
import { MarketClient } from "@market-service/client";
import { LocalCluster } from "../scripts/local-cluster.js";
import { marketIdOnPartition } from "../engine/runtime/shard-routing.js";
import { numberArg } from "./args.js";
import { bySecond, decided, messages, notPlain, outage, Prober, retriesAfter, type Answer } from "./cluster-prober.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";
import { REPO } from "./storm/processes.js";
import { createMarket } from "./storm/setup.js";

const QUORUM_SECONDS = numberArg("quorum-seconds", 20);
const WATCH_SECONDS = numberArg("watch-seconds", 15);
const PAUSE_SECONDS = numberArg("pause-seconds", 8);
const PARTITIONS = 6;
const PARTICIPANTS = 200;
/** A claim answered 503 (or not at all) is sent again this often with its commandId, by at most 40 claims at once (cluster-prober.ts). */
const RETRY_EVERY_MS = 200;
const RETRYING_AT_MOST = 40;
const WORK = path.join(REPO, ".tmp", "cluster-faults");
const MARKET = "faults-market";

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (n: number): number => Math.round(n * 10) / 10;

/** Which node serves which partition, every 100 ms, by the nodes' /metrics. */
class OwnershipSampler {
  readonly samples: Array<{ atMs: number; served: Array<number[] | undefined> }> = [];
  /** A node not asked (paused: it would only time out); its partitions count as not served. */
  skip: number | undefined;
  private running = true;
  private readonly done: Promise<void>;

  constructor(private readonly cluster: LocalCluster) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const served = await this.cluster.servedByNode(this.skip);
      this.samples.push({ atMs: performance.now(), served });
      await pause(100);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  /** The first sample from `fromMs` on in which a node other than `except` serves `partition`: ms after `fromMs`. */
  servedAgainAfterMs(partition: number, fromMs: number, except: number): number | null {
    const sample = this.samples.find((s) => s.atMs >= fromMs && s.served.some((list, node) => node !== except && list?.includes(partition) === true));
    return sample === undefined ? null : round1(sample.atMs - fromMs);
  }

  /** The longest run of samples in [fromMs, toMs] in which no node served `partition` (from the last sample serving it to the next). */
  longestUnservedMs(partition: number, fromMs: number, toMs: number): number {
    let longest = 0;
    let lastServed = fromMs;
    let gap = false;
    for (const sample of this.samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs)) {
      if (sample.served.some((list) => list?.includes(partition) === true)) {
        if (gap) longest = Math.max(longest, sample.atMs - lastServed);
        lastServed = sample.atMs;
        gap = false;
      } else {
        gap = true;
      }
    }
    return round1(longest);
  }
}

/** Asks `stream`'s leader to step down until `target` leads it too (JetStream elects another replica each time). */
async function leadTogether(connection: NatsConnection, jsm: JetStreamManager, stream: string, target: string): Promise<string | undefined> {
  const leaderOf = async (name: string): Promise<string | undefined> => (await jsm.streams.info(name)).cluster?.leader;
  const together = async () => {
    const [a, b] = [await leaderOf(stream), await leaderOf(target)];
    return a !== undefined && a === b ? a : undefined;
  };
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const leader = await together();
    if (leader !== undefined) return leader;
    const before = await leaderOf(stream);
    await connection.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, new Uint8Array(0), { timeout: 5_000 }).catch(() => undefined);
    const deadline = performance.now() + 15_000;
    while (performance.now() < deadline) {
      const now = await leaderOf(stream).catch(() => undefined);
      if (now !== undefined && now !== before) break;
      await pause(200);
    }
  }
  return together();
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  const operatorSecret = randomBytes(32).toString("base64url");
  const cluster = await LocalCluster.start({
    dir: WORK,
    partitions: PARTITIONS,
    ports: { kind: "free" },
    operatorSecret,
    metricsToken: randomBytes(32).toString("base64url"),
    serviceEnv: { LOG_LEVEL: "warn", AUTH_TOKEN_TTL: "3600" },
    onUnexpectedExit: (name, code, signal) => log(`${name} exited unexpectedly (${signal ?? `code ${code}`})`),
  });
  const connection = await connectForJournals(cluster.natsUrls, "bench cluster-faults");
  const result: Record<string, unknown> = {
    bench: "cluster-faults",
    date: new Date().toISOString(),
    loadAverageAtStart: loadavg().map(round1),
    setup:
      "3 nats-server 2.10 (R3, sync_interval: always) + 3 service nodes (default lease and forwarding timings), one machine; claims every 25 ms and reads every 100 ms through the three nodes in turn; " +
      `a claim answered 503 or not at all retried with its commandId every ${RETRY_EVERY_MS} ms (at most ${RETRYING_AT_MOST} at once)`,
  };
  const allAnswers: Answer[] = [];
  try {
    await cluster.waitUntilServed(PARTITIONS, { balanced: true });
    const clients = cluster.services.map((node) => new MarketClient({ baseUrl: node.url, timeoutMs: 30_000 }));
    const operator = { actorId: "operator", secret: operatorSecret };
    const first = clients[0] as MarketClient;
    const creatorToken = (await first.signIn(await first.provisionNewIdentity({ principalId: "storm-creator" }, { credentials: { kind: "hmac", ...operator } }))).accessToken;
    const participants: Array<{ principalId: string; token: string }> = [];
    for (let i = 0; i < PARTICIPANTS; i += 1) {
      const principalId = `participant-${i}`;
      participants.push({ principalId, token: (await first.signIn(await first.provisionNewIdentity({ principalId }, { credentials: { kind: "hmac", ...operator } }))).accessToken });
    }
    await createMarket({ client: first, creatorToken }, MARKET, 1_000_000);
    const everyPartition = Array.from({ length: PARTITIONS }, (_, p) => marketIdOnPartition("faults-partition", p, PARTITIONS));
    for (const marketId of everyPartition) await createMarket({ client: first, creatorToken }, marketId, 1_000_000);
    await pause(500); // identities reach the other nodes within milliseconds (docs/cluster.md)
    const jsm = await jetstreamManager(connection);
    const leaderOf = async (stream: string): Promise<string | undefined> => (await jsm.streams.info(stream)).cluster?.leader;
    const marketPartition = shardOfMarket(MARKET, PARTITIONS);
    const partitionStream = `partition-${marketPartition}`;
    const watched = [partitionStream, "KV_cluster-leases", "identity"];
    const probing = { markets: [MARKET], readMarket: MARKET, claimEveryMs: 25, readEveryMs: 100, retryEveryMs: RETRY_EVERY_MS, retryingAtMost: RETRYING_AT_MOST };

    // 1. One NATS node.
    const single: unknown[] = [];
    const roles = [`leads neither ${partitionStream} nor KV_cluster-leases`, `leads ${partitionStream}`, "leads KV_cluster-leases", `leads ${partitionStream} and KV_cluster-leases`] as const;
    for (const role of roles) {
      if (role === roles[3] && (await leadTogether(connection, jsm, partitionStream, "KV_cluster-leases")) === undefined) {
        log(`one NATS node (${role}): could not arrange it; skipped`);
        continue;
      }
      const leaders = new Map<string, string | undefined>();
      for (const stream of watched) leaders.set(stream, await leaderOf(stream));
      const names = cluster.nats.map((node) => node.name);
      const target =
        role === roles[0]
          ? names.find((name) => name !== leaders.get(partitionStream) && name !== leaders.get("KV_cluster-leases"))
          : leaders.get(role === roles[2] ? "KV_cluster-leases" : partitionStream);
      if (target === undefined) {
        log(`one NATS node (${role}): no such node now; skipped`);
        continue;
      }
      const index = names.indexOf(target);
      const leading = watched.filter((stream) => leaders.get(stream) === target);
      const prober = new Prober(clients, participants, creatorToken, probing);
      await pause(1_000);
      const killedAt = performance.now();
      await cluster.killNats(index);
      await pause(WATCH_SECONDS * 1000);
      await prober.stop();
      const endMs = performance.now();
      allAnswers.push(...prober.answers);
      const outcome = {
        role,
        killed: target,
        leadsNow: leading,
        claims: outage(prober.answers, "claim", killedAt, endMs),
        retries: { ...retriesAfter(prober.answers, killedAt), notRetried: prober.notRetried },
        reads: outage(prober.answers, "read", killedAt, endMs),
        messages: messages(prober.answers, killedAt),
      };
      single.push(outcome);
      log(`one NATS node killed (${target}, leading ${leading.join(", ") || "none watched"}): claims ${JSON.stringify(outcome.claims)}; retries ${JSON.stringify(outcome.retries)}; reads ${JSON.stringify(outcome.reads)}`);
      for (const line of outcome.messages) log(`  ${line}`);
      await cluster.startNats(index);
      await cluster.waitUntilServed(PARTITIONS, { timeoutMs: 60_000 });
      await pause(2_000);
    }
    result["oneNatsNode"] = single;

    // 2. One service node killed: the owner of the market's partition.
    {
      const owner = await cluster.ownerOf(marketPartition);
      if (owner === undefined) throw new Error("no single node serves the market's partition");
      const others = clients.filter((_, k) => k !== owner);
      const prober = new Prober(others, participants, creatorToken, probing);
      await pause(1_000);
      const killedAt = performance.now();
      await cluster.killService(owner);
      await pause(WATCH_SECONDS * 1000);
      await prober.stop();
      const endMs = performance.now();
      allAnswers.push(...prober.answers);
      const outcome = {
        killed: `service node ${cluster.services[owner]?.nodeId}, the owner of the market's partition (requests through the two others)`,
        claims: outage(prober.answers, "claim", killedAt, endMs),
        retries: { ...retriesAfter(prober.answers, killedAt), notRetried: prober.notRetried },
        reads: outage(prober.answers, "read", killedAt, endMs),
        messages: messages(prober.answers, killedAt),
      };
      result["oneServiceNode"] = outcome;
      log(`${outcome.killed} killed: claims ${JSON.stringify(outcome.claims)}; retries ${JSON.stringify(outcome.retries)}; reads ${JSON.stringify(outcome.reads)}`);
      for (const line of outcome.messages) log(`  ${line}`);
      await cluster.startService(owner);
      await cluster.waitUntilServed(PARTITIONS, { balanced: true, timeoutMs: 60_000 });
      await pause(2_000);
    }

    // 3. One service node paused (SIGSTOP) past its lease, then resumed (SIGCONT).
    {
      const owner = await cluster.ownerOf(marketPartition);
      if (owner === undefined) throw new Error("no single node serves the market's partition");
      const itsPartitions = (await cluster.servedByNode())[owner] ?? [];
      const others = clients.filter((_, k) => k !== owner);
      const sampler = new OwnershipSampler(cluster);
      const prober = new Prober(others, participants, creatorToken, { ...probing, markets: everyPartition });
      await pause(1_000);
      sampler.skip = owner;
      const pausedAt = performance.now();
      cluster.pauseService(owner);
      await pause(PAUSE_SECONDS * 1000);
      const resumedAt = performance.now();
      sampler.skip = undefined;
      cluster.resumeService(owner);
      await pause(WATCH_SECONDS * 1000);
      await prober.stop();
      await sampler.stop();
      const endMs = performance.now();
      allAnswers.push(...prober.answers);
      const outcome = {
        paused: `service node ${cluster.services[owner]?.nodeId} for ${PAUSE_SECONDS} s, serving partitions ${itsPartitions.join(", ")} (claims on one market per partition, through the two others)`,
        whilePaused: itsPartitions.map((partition) => ({
          partition,
          servedByAnotherAfterMs: sampler.servedAgainAfterMs(partition, pausedAt, owner),
          claims: outage(prober.answers, "claim", pausedAt, resumedAt, everyPartition[partition]),
          retries: retriesAfter(prober.answers, pausedAt, everyPartition[partition]),
        })),
        afterResume: everyPartition.map((marketId, partition) => ({
          partition,
          longestUnservedMs: sampler.longestUnservedMs(partition, resumedAt, endMs),
          claimsLongestGapMs: outage(prober.answers, "claim", resumedAt, endMs, marketId).longestGapMs,
        })),
        servedAtEnd: sampler.samples.at(-1)?.served,
        notRetried: prober.notRetried,
        messages: messages(prober.answers, pausedAt),
      };
      result["pausedServiceNode"] = outcome;
      log(`${outcome.paused}:`);
      for (const line of outcome.whilePaused) log(`  paused, partition ${line.partition}: served by another node after ${line.servedByAnotherAfterMs} ms; claims ${JSON.stringify(line.claims)}; retries ${JSON.stringify(line.retries)}`);
      for (const line of outcome.afterResume) log(`  resumed, partition ${line.partition}: longest unserved ${line.longestUnservedMs} ms; claims' longest gap ${line.claimsLongestGapMs} ms`);
      log(`  claims not retried (${RETRYING_AT_MOST} retrying already): ${outcome.notRetried}`);
      for (const line of outcome.messages) log(`  ${line}`);
      await cluster.waitUntilServed(PARTITIONS, { balanced: true, timeoutMs: 60_000 });
      await pause(2_000);
    }

    // 4. Two of three NATS nodes: no quorum.
    let provisioned = 0;
    const prober = new Prober(clients, participants, creatorToken, {
      ...probing,
      provision: () => first.provisionNewIdentity({ principalId: `late-${provisioned++}` }, { credentials: { kind: "hmac", ...operator } }),
      retries: false,
    });
    await pause(1_000);
    const killedAt = performance.now();
    await Promise.all([cluster.killNats(1), cluster.killNats(2)]);
    await pause(QUORUM_SECONDS * 1000);
    const restartAt = performance.now();
    await Promise.all([cluster.startNats(1), cluster.startNats(2)]);
    const natsBackMs = performance.now() - restartAt;
    // Watch until every node decides claims again (or 60 s).
    const deadline = performance.now() + 60_000;
    const nodesBack = async () => {
      const after = prober.answers.filter((a) => a.kind === "claim" && a.sentAtMs >= restartAt && decided(a));
      return new Set(after.map((a) => a.node)).size === clients.length;
    };
    while (!(await nodesBack()) && performance.now() < deadline) await pause(100);
    await pause(1_000);
    await prober.stop();
    const endMs = performance.now();
    allAnswers.push(...prober.answers);
    // Which node serves which partition now, by each node's /metrics (a partition no node serves answers 503).
    const servedAfter = (await cluster.servedByNode()).map((partitions, node) => ({ node: cluster.services[node]?.nodeId, partitions }));
    const everyNodeBack = clients.map((_, node) => {
      const firstOk = prober.answers.filter((a) => a.kind === "claim" && a.node === node && a.sentAtMs >= restartAt && decided(a)).sort((a, b) => a.doneAtMs - b.doneAtMs)[0];
      return firstOk === undefined ? null : round1(firstOk.doneAtMs - restartAt);
    });
    const quorum = {
      seconds: QUORUM_SECONDS,
      claimsBySecond: bySecond(prober.answers, "claim", killedAt, QUORUM_SECONDS),
      readsBySecond: bySecond(prober.answers, "read", killedAt, QUORUM_SECONDS),
      provisionsBySecond: bySecond(prober.answers, "provision", killedAt, QUORUM_SECONDS),
      messages: messages(prober.answers, killedAt),
      restart: {
        natsHealthyAfterMs: round1(natsBackMs),
        firstClaimDecidedAfterMs: outage(prober.answers, "claim", restartAt, endMs).firstDecidedAfterMs,
        firstReadAfterMs: outage(prober.answers, "read", restartAt, endMs).firstDecidedAfterMs,
        eachNodeDecidingClaimsAfterMs: everyNodeBack,
        watchedForMs: round1(endMs - restartAt),
        servedAfter,
        marketPartition,
      },
    };
    result["twoNatsNodes"] = quorum;
    log(`two NATS nodes killed for ${QUORUM_SECONDS} s:`);
    for (const [i, second] of quorum.claimsBySecond.entries()) {
      log(`  second ${i}: claims ${JSON.stringify(second.statuses)} (slowest ${second.slowestMs} ms), reads ${JSON.stringify(quorum.readsBySecond[i]?.statuses)}, provisions ${JSON.stringify(quorum.provisionsBySecond[i]?.statuses)}`);
    }
    for (const line of quorum.messages) log(`  ${line}`);
    log(
      `  restarted: NATS healthy after ${quorum.restart.natsHealthyAfterMs} ms; first claim decided ${quorum.restart.firstClaimDecidedAfterMs} ms after the restart began; each node: ${JSON.stringify(everyNodeBack)}; ` +
        `partitions served ${quorum.restart.watchedForMs} ms after the restart: ${JSON.stringify(servedAfter)} (the market is in partition ${quorum.restart.marketPartition})`,
    );
  } catch (error) {
    // A step that cannot go on (NATS not healthy again in time, under load): the steps before it are kept.
    result["failedStep"] = error instanceof Error ? error.message : String(error);
    log(`stopped early: ${String(result["failedStep"])} (logs in ${path.join(WORK, "logs")})`);
  } finally {
    await connection.close();
    await cluster.stop();
  }
  result["notPlainMessages"] = notPlain(allAnswers);
  log(`503 messages breaking the plain-words rule: ${JSON.stringify(result["notPlainMessages"])}`);
  const stem = freshResultStem("cluster-faults");
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
  log(`results: bench/results/${stem}.json`);
  if (result["failedStep"] === undefined) rmSync(WORK, { recursive: true, force: true });
  else process.exitCode = 1;
}

await main();
