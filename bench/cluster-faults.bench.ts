/**
 * `npm run bench:cluster-faults` (issue 27; docs/cluster.md, "What each failure costs"): what
 * clients see when NATS nodes fail under a 3 NATS + 3 service node cluster on this machine
 * (scripts/local-cluster.ts). Throughout, a prober sends claims on one market every 25 ms and
 * reads of it every 100 ms, through the three service nodes in turn, each without waiting for the
 * ones before, and records every answer (status, latency, message).
 *
 *   1. kill -9 of one NATS node, for each role it can have: one that leads neither the market's
 *      partition stream nor the lease bucket's stream (`KV_cluster-leases`), the leader of the
 *      partition stream, the leader of the lease bucket's stream (the roles of each node killed are
 *      recorded, the identity stream's too); the node is started again between kills. Per kill: how long
 *      no claim was decided, 503s, the slowest answer.
 *   2. kill -9 of the service node serving the market's partition (requests through the two others);
 *      it is started again afterwards.
 *   3. kill -9 of two of the three NATS nodes (no quorum) for `--quorum-seconds`: what claims,
 *      reads and identity writes (provisioning) are answered, second by second; then both are
 *      started again: from their start to the first claim decided and to every service node
 *      deciding claims again.
 *
 *   npm run bench:cluster-faults -- [--quorum-seconds 20] [--watch-seconds 15]
 *
 * Needs nats-server (bash scripts/fetch-nats-server.sh). Writes bench/results/<date>-cluster-faults.json.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import * as path from "node:path";
import { connectForJournals } from "../engine/messaging/nats/connect.js";
import { shardOfMarket } from "../engine/runtime/shard-routing.js";
import { MarketClient } from "../gateway/client/index.js";
import { LocalCluster } from "../scripts/local-cluster.js";
import { numberArg } from "./args.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";
import { REPO } from "./storm/processes.js";
import { createMarket } from "./storm/setup.js";

const QUORUM_SECONDS = numberArg("quorum-seconds", 20);
const WATCH_SECONDS = numberArg("watch-seconds", 15);
const PARTITIONS = 6;
const PARTICIPANTS = 200;
const CLAIM_EVERY_MS = 25;
const READ_EVERY_MS = 100;
const WORK = path.join(REPO, ".tmp", "cluster-faults");
const MARKET = "faults-market";

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (n: number): number => Math.round(n * 10) / 10;

interface Answer {
  kind: "claim" | "read" | "provision";
  node: number;
  sentAtMs: number;
  doneAtMs: number;
  status: string;
  message?: string;
}

function errorMessage(text: string): string {
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

/** Claims and reads sent at a steady pace, whatever the earlier ones are doing. */
class Prober {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly loops: Array<Promise<void>> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private count = 0;

  constructor(
    private readonly clients: readonly MarketClient[],
    private readonly participants: ReadonlyArray<{ principalId: string; token: string }>,
    private readonly creatorToken: string,
    private readonly provision?: () => Promise<unknown>,
  ) {
    this.loops.push(this.loop(CLAIM_EVERY_MS, (node) => this.claim(node)));
    this.loops.push(this.loop(READ_EVERY_MS, (node) => this.read(node)));
    if (provision !== undefined) this.loops.push(this.loop(500, () => this.record("provision", 0, () => provision().then(() => ({ status: 201, text: "" })))));
  }

  private async loop(everyMs: number, send: (node: number) => Promise<void>): Promise<void> {
    for (let n = 0; this.running; n += 1) {
      const sent = send(n % this.clients.length);
      this.inFlight.add(sent);
      void sent.finally(() => this.inFlight.delete(sent));
      await pause(everyMs);
    }
  }

  private async record(kind: Answer["kind"], node: number, call: () => Promise<{ status: number; text: string }>): Promise<void> {
    const sentAtMs = performance.now();
    let status: string;
    let message: string | undefined;
    try {
      const reply = await call();
      status = String(reply.status);
      if (reply.status >= 500) message = errorMessage(reply.text);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const refused = /status (\d{3})/.exec(text)?.[1] ?? /failed: (\d{3})/.exec(text)?.[1];
      status = refused ?? "no answer";
      message = text.slice(0, 200);
    }
    this.answers.push({ kind, node, sentAtMs, doneAtMs: performance.now(), status, ...(message === undefined ? {} : { message }) });
  }

  private claim(node: number): Promise<void> {
    const n = this.count++;
    const who = this.participants[n % this.participants.length] as { principalId: string; token: string };
    return this.record("claim", node, () =>
      (this.clients[node] as MarketClient).request("POST", `/v1/markets/${MARKET}/direct-claims`, { commandId: `probe-${randomBytes(6).toString("hex")}-${n}`, principalId: who.principalId }, { kind: "bearer", token: who.token }),
    );
  }

  private read(node: number): Promise<void> {
    return this.record("read", node, () => (this.clients[node] as MarketClient).request("GET", `/v1/markets/${MARKET}`, undefined, { kind: "bearer", token: this.creatorToken }));
  }

  /** Stops sending; resolves once every request sent has its answer. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await Promise.all([...this.inFlight]);
  }
}

/** Decided: the rules answered (a claim accepted, or refused because that participant holds one; a read 200). */
const decided = (answer: Answer): boolean => answer.status === "200" || (answer.kind === "claim" && answer.status === "409") || (answer.kind === "provision" && answer.status === "201");

/** The longest stretch after `fromMs` with no decided answer of `kind` (by answer time), and the first decided one sent after `fromMs`. */
function outage(answers: readonly Answer[], kind: Answer["kind"], fromMs: number, toMs: number): { firstDecidedAfterMs: number | null; longestGapMs: number; notDecided: Record<string, number>; slowestMs: number } {
  const mine = answers.filter((a) => a.kind === kind && a.sentAtMs >= fromMs - 5_000);
  const times = mine.filter((a) => decided(a) && a.doneAtMs >= fromMs).map((a) => a.doneAtMs).sort((a, b) => a - b);
  let longest = 0;
  let previous = fromMs;
  for (const t of [...times, toMs]) {
    longest = Math.max(longest, t - previous);
    previous = t;
  }
  const first = mine.filter((a) => decided(a) && a.sentAtMs >= fromMs).sort((a, b) => a.doneAtMs - b.doneAtMs)[0];
  const notDecided: Record<string, number> = {};
  for (const a of mine.filter((a) => !decided(a) && a.doneAtMs >= fromMs)) notDecided[a.status] = (notDecided[a.status] ?? 0) + 1;
  return {
    firstDecidedAfterMs: first === undefined ? null : round1(first.doneAtMs - fromMs),
    longestGapMs: round1(longest),
    notDecided,
    slowestMs: round1(Math.max(0, ...mine.filter((a) => a.doneAtMs >= fromMs).map((a) => a.doneAtMs - a.sentAtMs))),
  };
}

/** Per second since `fromMs`: answers of `kind` by status, and distinct messages of the undecided ones. */
function bySecond(answers: readonly Answer[], kind: Answer["kind"], fromMs: number, seconds: number): Array<{ second: number; statuses: Record<string, number>; slowestMs: number }> {
  return Array.from({ length: seconds }, (_, second) => {
    const inSecond = answers.filter((a) => a.kind === kind && a.sentAtMs >= fromMs + second * 1000 && a.sentAtMs < fromMs + (second + 1) * 1000);
    const statuses: Record<string, number> = {};
    for (const a of inSecond) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    return { second, statuses, slowestMs: round1(Math.max(0, ...inSecond.map((a) => a.doneAtMs - a.sentAtMs))) };
  });
}

function messages(answers: readonly Answer[], fromMs: number): string[] {
  return [...new Set(answers.filter((a) => a.sentAtMs >= fromMs && a.message !== undefined).map((a) => `${a.kind} ${a.status}: ${(a.message ?? "").replace(/\d+(\.\d+)?/g, "N")}`))].slice(0, 20);
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
    setup: "3 nats-server 2.10 (R3, sync_interval: always) + 3 service nodes (default lease and forwarding timings), one machine; claims every 25 ms and reads every 100 ms through the three nodes in turn",
  };
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
    await pause(500); // identities reach the other nodes within milliseconds (docs/cluster.md)
    const jsm = await jetstreamManager(connection);
    const leaderOf = async (stream: string): Promise<string | undefined> => (await jsm.streams.info(stream)).cluster?.leader;
    const partitionStream = `partition-${shardOfMarket(MARKET, PARTITIONS)}`;
    const watched = [partitionStream, "KV_cluster-leases", "identity"];

    // 1. One NATS node.
    const single: unknown[] = [];
    for (const role of [`leads neither ${partitionStream} nor KV_cluster-leases`, `leads ${partitionStream}`, "leads KV_cluster-leases"] as const) {
      const leaders = new Map<string, string | undefined>();
      for (const stream of watched) leaders.set(stream, await leaderOf(stream));
      const names = cluster.nats.map((node) => node.name);
      const target =
        role === `leads neither ${partitionStream} nor KV_cluster-leases`
          ? names.find((name) => name !== leaders.get(partitionStream) && name !== leaders.get("KV_cluster-leases"))
          : leaders.get(role === `leads ${partitionStream}` ? partitionStream : "KV_cluster-leases");
      if (target === undefined) {
        log(`one NATS node (${role}): no such node now; skipped`);
        continue;
      }
      const index = names.indexOf(target);
      const roles = watched.filter((stream) => leaders.get(stream) === target);
      const prober = new Prober(clients, participants, creatorToken);
      await pause(1_000);
      const killedAt = performance.now();
      await cluster.killNats(index);
      await pause(WATCH_SECONDS * 1000);
      await prober.stop();
      const endMs = performance.now();
      const outcome = {
        role,
        killed: target,
        leadsNow: roles,
        claims: outage(prober.answers, "claim", killedAt, endMs),
        reads: outage(prober.answers, "read", killedAt, endMs),
        messages: messages(prober.answers, killedAt),
      };
      single.push(outcome);
      log(`one NATS node killed (${target}, leading ${roles.join(", ") || "none watched"}): claims ${JSON.stringify(outcome.claims)}; reads ${JSON.stringify(outcome.reads)}`);
      for (const line of outcome.messages) log(`  ${line}`);
      await cluster.startNats(index);
      await cluster.waitUntilServed(PARTITIONS, { timeoutMs: 60_000 });
      await pause(2_000);
    }
    result["oneNatsNode"] = single;

    // 1b. One service node: the owner of the market's partition.
    {
      const owner = await cluster.ownerOf(shardOfMarket(MARKET, PARTITIONS));
      if (owner === undefined) throw new Error("no single node serves the market's partition");
      const others = clients.filter((_, k) => k !== owner);
      const prober = new Prober(others, participants, creatorToken);
      await pause(1_000);
      const killedAt = performance.now();
      await cluster.killService(owner);
      await pause(WATCH_SECONDS * 1000);
      await prober.stop();
      const endMs = performance.now();
      const outcome = {
        killed: `service node ${cluster.services[owner]?.nodeId}, the owner of the market's partition (requests through the two others)`,
        claims: outage(prober.answers, "claim", killedAt, endMs),
        reads: outage(prober.answers, "read", killedAt, endMs),
        messages: messages(prober.answers, killedAt),
      };
      result["oneServiceNode"] = outcome;
      log(`${outcome.killed} killed: claims ${JSON.stringify(outcome.claims)}; reads ${JSON.stringify(outcome.reads)}`);
      for (const line of outcome.messages) log(`  ${line}`);
      await cluster.startService(owner);
      await cluster.waitUntilServed(PARTITIONS, { balanced: true, timeoutMs: 60_000 });
      await pause(2_000);
    }

    // 3. Two of three NATS nodes: no quorum.
    let provisioned = 0;
    const prober = new Prober(clients, participants, creatorToken, () => first.provisionNewIdentity({ principalId: `late-${provisioned++}` }, { credentials: { kind: "hmac", ...operator } }));
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
        marketPartition: shardOfMarket(MARKET, PARTITIONS),
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
  } finally {
    await connection.close();
    await cluster.stop();
  }
  const stem = freshResultStem("cluster-faults");
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
  log(`results: bench/results/${stem}.json`);
  rmSync(WORK, { recursive: true, force: true });
}

await main();
