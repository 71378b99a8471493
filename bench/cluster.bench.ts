/**
 * `npm run bench:cluster` (issue 27; docs/cluster.md, "Measured"): in one run on this machine,
 *
 *   1. the embedded default: one service (file journal, default SHARDS), a hot-market storm and a
 *      storm spread over `--markets` markets, driven by the storm's driver (wrk + claims.lua,
 *      bench/storm/), `--connections` connections;
 *   2. the cluster mode: 3 nats-server nodes (R3 streams, `sync_interval: always`) and
 *      `--service-nodes` service nodes (3 by default; scripts/local-cluster.ts), the same two storms
 *      with the same connections split over one driver per node, so requests arrive at every node
 *      and most are forwarded to the owner of their market's partition;
 *   3. failover: `--failover-rounds` times, during a storm on a fresh hot market (driven through the
 *      other nodes), kill -9 of the node serving that market's partition; from the kill to the
 *      first claim answered (accepted or refused by the rules) on that market and on one market of
 *      every other partition the killed node served, each claim sent after the kill. The killed
 *      node is started again and the partitions rebalanced before the next round.
 *
 * The ratio cluster ÷ single node is printed for both storms. Every process's CPU (service nodes,
 * NATS nodes) is read from /proc before and after each storm, and each storm's group commits from
 * the services' `market_shard_commit_seconds` (on a cluster node: the batch's publish until
 * JetStream's quorum ack), the NATS servers' message counters, every stream's writes by kind
 * (partition, keys, leases…) and the nodes' messages to owners (forwarded batches, binds, and the
 * requests each carried: their /metrics), to show where the time goes. Every storm is checked like the storm
 * bench's (no 5xx, no connection error, allocation = accepted replies + what was in flight, the
 * hot market's record holds every claim with its hash recomputed); in every failover round, every
 * claim acknowledged is in the allocation afterwards. A failed check fails the run (exit 1).
 *
 *   npm run bench:cluster -- [--participants 3000] [--markets 1000] [--seconds 10] [--warm-up 5]
 *     [--connections 63] [--partitions 6] [--failover-rounds 5] [--failover-storm-seconds 8]
 *     [--kill-after-ms 2000] [--key-homes K (the cluster's CLUSTER_KEY_HOMES; default: the service's)]
 *     [--snapshot-every N (the cluster's CLUSTER_SNAPSHOT_EVERY_COMMANDS; default: the service's)]
 *     [--batch-linger-ms N (the cluster's CLUSTER_BATCH_LINGER_MS, 0 for none; default: the service's)]
 *     [--lease-ms N (the cluster's CLUSTER_LEASE_MS, whose third is the lease round's period; default: the service's)]
 *     [--cluster-warm-up 30 (seconds of the cluster's warm-up; --warm-up is the single node's)]
 *     [--service-nodes 3 (the cluster's service nodes, one driver each, the connections split evenly; 1 only with --failover-rounds 0)]
 *     [--perf (each storm's CPU on the whole machine by Linux perf, per claim, by process and what ran: bench/storm/perf-breakdown.ts)]
 *     [--kill hot-owner|key-home (whose owner a failover round kills: the hot market's partition's, or
 *     partition 0's, a key home, with its hot market placed there)] [--log-level warn|info]
 *     [--keep-logs DIR (the nodes' and NATS servers' logs copied there before the work directory goes)]
 *
 * Needs wrk (apt-get install wrk) and nats-server (bash scripts/fetch-nats-server.sh). Writes
 * bench/results/<date>-cluster.{json,md} and two SVG charts.
 */
import { randomBytes } from "node:crypto";
import { execSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem } from "node:os";
import * as path from "node:path";
import { shardOfMarket } from "../engine/runtime/shard-routing.js";
import { MarketClient } from "@market-service/client";
import { LocalCluster } from "../scripts/local-cluster.js";
import { freePort } from "../scripts/free-port.js";
import { flagArg, numberArg, stringArg } from "./args.js";
import { percentile } from "./percentile.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";
import { allocatedOf, answered, recordChecks, transportChecks, type Check, type CheckTarget } from "./storm/checks.js";
import { commitLatencyBetween, parseCommitBuckets, readMetricsText, type CommitBuckets, type CommitLatency } from "./storm/commit-latency.js";
import { cpuSecondsOf, REPO, requireWrk, runWrk, type WrkResult } from "./storm/processes.js";
import type { ForwardingCounts, SentCount } from "../engine/cluster/forwarding.js";
import { svg } from "./storm/report.js";
import { perfSeconds, recordEveryCpu, requirePerf, type PerfRole, type PerfSeconds } from "./storm/perf-breakdown.js";
import { createMarket, pathsFile, pool, setUpService, warmUp } from "./storm/setup.js";

const PARTICIPANTS = numberArg("participants", 3_000);
const MARKETS = numberArg("markets", 1_000);
const SECONDS = numberArg("seconds", 10);
const WARM_UP_SECONDS = numberArg("warm-up", 5);
/**
 * The cluster's warm-up, longer than the single node's: every partition's worker and every node's
 * thread compiles its own hot code (V8 optimizes per thread), at the cluster's lower rate, and a
 * storm measured before that is done measures the optimizing compiler (docs/cluster.md, Measured,
 * "Where a claim's CPU goes, by perf").
 */
const CLUSTER_WARM_UP_SECONDS = numberArg("cluster-warm-up", 30);
/** Warm-up markets of the cluster per partition, so that every partition's worker is warmed. */
const CLUSTER_WARM_UP_MARKETS_PER_PARTITION = 3;
/** Record each storm's CPU on the whole machine with Linux perf (bench/storm/perf-breakdown.ts). */
const PERF = flagArg("perf");
/** perf records the storm's middle: from this long after its start to as long before its end. */
const PERF_MARGIN_SECONDS = 1;
const CONNECTIONS = numberArg("connections", 63);
const PARTITIONS = numberArg("partitions", 6);
const FAILOVER_ROUNDS = numberArg("failover-rounds", 5);
const FAILOVER_STORM_SECONDS = numberArg("failover-storm-seconds", 8);
const KILL_AFTER_MS = numberArg("kill-after-ms", 2_000);
/** The service nodes' LOG_LEVEL (info: their `partition acquired` lines give each takeover's steps). */
const LOG_LEVEL = stringArg("log-level", "warn");
/** Whose owner a failover round kills: the hot market's partition's, or partition 0's (a key home; the hot market is placed there). */
const KILL = stringArg("kill", "hot-owner");
if (KILL !== "hot-owner" && KILL !== "key-home") throw new Error(`--kill must be hot-owner or key-home, got ${KILL}`);
/** Where to copy the nodes' and NATS servers' logs before the work directory is removed ("": not kept). */
const KEEP_LOGS = stringArg("keep-logs", "");
/** CLUSTER_KEY_HOMES of the cluster the bench creates (0: the service's default). */
const KEY_HOMES = numberArg("key-homes", 0);
/** CLUSTER_SNAPSHOT_EVERY_COMMANDS of the cluster the bench creates (0: the service's default). */
const SNAPSHOT_EVERY = numberArg("snapshot-every", 0);
/** CLUSTER_BATCH_LINGER_MS of the cluster the bench creates (-1: the service's default). */
const BATCH_LINGER_MS = numberArg("batch-linger-ms", -1);
/** CLUSTER_LEASE_MS of the cluster the bench creates (0: the service's default). */
const LEASE_MS = numberArg("lease-ms", 0);
/** How long a failover round waits for the killed owner's markets before it counts as failed. */
const FAILOVER_GIVE_UP_MS = 30_000;
/** The cluster's service nodes; one only without failover rounds (a round kills one and drives the storm through the others). */
const NODES = numberArg("service-nodes", 3);
/** Every service node's index, in order. */
const ALL_NODES: readonly number[] = Array.from({ length: NODES }, (_, k) => k);
/** "3 service nodes", "1 service node": the cluster's service nodes in words. */
const SERVICE_NODES_TEXT = `${NODES} service node${NODES === 1 ? "" : "s"}`;
const WORK = path.join(REPO, ".tmp", "cluster-bench");
/** A capacity no storm reaches: every claim of a new principal is accepted. */
const UNBOUNDED = 1_000_000;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const round2 = (n: number): number => Math.round(n * 100) / 100;

/** One wrk per target, at once, the connections split evenly. */
interface Driver {
  readonly url: string;
  readonly tokensFile: string;
}

interface CpuSample {
  readonly service: number;
  readonly nats: number;
}

interface StormResult {
  name: string;
  mode: "single node" | "cluster";
  drivers: Array<{ url: string; requestsPerSecond: number; latencyUs: WrkResult["latencyUs"]; statuses: Record<string, number> }>;
  requests: number;
  requestsPerSecond: number;
  /** The worst driver's percentiles (wrk reports percentiles per process; they do not add up). */
  latencyUs: { p50: number; p99: number; p999: number };
  statuses: Record<string, number>;
  /** CPU seconds (user + system, all threads) during the storm, and per answered request. */
  cpu: { serviceSeconds: number; natsSeconds: number; serviceUsPerRequest: number; natsUsPerRequest: number };
  /** With --perf: CPU µs per answered request in the storm's middle, by process and what ran (perf-breakdown.ts). */
  perfUsPerRequest?: Record<string, number>;
  /** CPU per second of the same processes with no load, measured before the storms (what runs anyway: leases, heartbeats, tails). */
  idleCpuPerSecond: { service: number; nats: number };
  /** The services' group commits during the storm (summed over nodes). */
  commits: CommitLatency & { commandsPerCommit: number };
  /**
   * Messages and bytes the NATS servers received and sent during the storm (their /varz counters,
   * summed over the servers, so a message crossing a route counts at both ends), per answered
   * request; absent for a single node.
   */
  nats?: NatsTraffic;
  checks: Check[];
}

interface NatsCounters {
  inMsgs: number;
  outMsgs: number;
  inBytes: number;
  outBytes: number;
}

interface NatsTraffic {
  messagesInPerRequest: number;
  messagesOutPerRequest: number;
  bytesInPerRequest: number;
  bytesOutPerRequest: number;
  /**
   * JetStream writes (messages stored, each replicated and fsynced on a quorum) per answered
   * request, by kind of stream: a stream's name without its partition number (`partition`, `keys`,
   * `KV_cluster-leases`, `identity`…).
   */
  streamWritesPerRequest: Record<string, number>;
  /**
   * What the service nodes sent to partitions' owners (their market_cluster_messages_sent and
   * _requests_sent, summed): forwarded batches and bind messages per answered request, and how many
   * requests each carried.
   */
  toOwners: { forwardsPerRequest: number; requestsPerForward: number; bindMessagesPerRequest: number; bindsPerMessage: number };
}

/** The nodes' counts of what they sent to owners (engine/cluster/forwarding.ts), summed over them. */
type SentToOwners = Record<keyof ForwardingCounts, SentCount>;

/** What the service nodes' /metrics say, summed over them: their group commits, and what they sent to owners. */
interface NodeMetrics {
  commits: CommitBuckets;
  toOwners: SentToOwners;
}

/** Each node's /metrics, read once. */
async function nodeMetrics(urls: readonly string[], metricsToken: string): Promise<NodeMetrics> {
  const total: NodeMetrics = { commits: new Map(), toOwners: { forward: { messages: 0, requests: 0 }, bind: { messages: 0, requests: 0 } } };
  for (const text of await Promise.all(urls.map((url) => readMetricsText(url, metricsToken)))) {
    for (const [bound, count] of parseCommitBuckets(text)) total.commits.set(bound, (total.commits.get(bound) ?? 0) + count);
    for (const match of text.matchAll(/^market_cluster_(messages|requests)_sent\{kind="(forward|bind)"\} (\d+)$/gm)) {
      const count = total.toOwners[match[2] as keyof ForwardingCounts];
      if (match[1] === "messages") count.messages += Number(match[3]);
      else count.requests += Number(match[3]);
    }
  }
  return total;
}

/** Each stream's last sequence (messages ever stored), as the first server that answers has them. */
async function streamSequences(monitors: readonly string[]): Promise<Map<string, number>> {
  for (const monitor of monitors) {
    try {
      const jsz = (await (await fetch(`${monitor}/jsz?streams=true`)).json()) as {
        account_details?: Array<{ stream_detail?: Array<{ name: string; state: { last_seq: number } }> }>;
      };
      const sequences = new Map<string, number>();
      for (const account of jsz.account_details ?? []) for (const stream of account.stream_detail ?? []) sequences.set(stream.name, stream.state.last_seq);
      return sequences;
    } catch {
      // not running: ask the next
    }
  }
  return new Map();
}

function streamWritesPerRequest(before: Map<string, number>, after: Map<string, number>, requests: number): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const [name, last] of after) {
    const kind = name.replace(/-\d+$/, "");
    byKind[kind] = (byKind[kind] ?? 0) + last - (before.get(name) ?? 0);
  }
  return Object.fromEntries(Object.entries(byKind).filter(([, writes]) => writes > 0).map(([kind, writes]) => [kind, Number((writes / Math.max(1, requests)).toFixed(3))]));
}

/** The servers' /varz message and byte counters, summed (a server that does not answer counts 0: it was killed). */
async function natsCounters(monitors: readonly string[]): Promise<NatsCounters> {
  const total: NatsCounters = { inMsgs: 0, outMsgs: 0, inBytes: 0, outBytes: 0 };
  for (const monitor of monitors) {
    try {
      const varz = (await (await fetch(`${monitor}/varz`)).json()) as { in_msgs: number; out_msgs: number; in_bytes: number; out_bytes: number };
      total.inMsgs += varz.in_msgs;
      total.outMsgs += varz.out_msgs;
      total.inBytes += varz.in_bytes;
      total.outBytes += varz.out_bytes;
    } catch {
      // not running
    }
  }
  return total;
}

function natsTrafficPerRequest(before: NatsSnapshot, after: NatsSnapshot, nodes: { before: NodeMetrics; after: NodeMetrics }, requests: number): NatsTraffic {
  const per = (key: keyof NatsCounters, digits: number) => Number(((after.counters[key] - before.counters[key]) / Math.max(1, requests)).toFixed(digits));
  const sent = (kind: keyof ForwardingCounts) => ({
    messages: nodes.after.toOwners[kind].messages - nodes.before.toOwners[kind].messages,
    requests: nodes.after.toOwners[kind].requests - nodes.before.toOwners[kind].requests,
  });
  const forward = sent("forward");
  const bind = sent("bind");
  return {
    messagesInPerRequest: per("inMsgs", 2),
    messagesOutPerRequest: per("outMsgs", 2),
    bytesInPerRequest: per("inBytes", 0),
    bytesOutPerRequest: per("outBytes", 0),
    streamWritesPerRequest: streamWritesPerRequest(before.streams, after.streams, requests),
    toOwners: {
      forwardsPerRequest: Number((forward.messages / Math.max(1, requests)).toFixed(3)),
      requestsPerForward: round2(forward.requests / Math.max(1, forward.messages)),
      bindMessagesPerRequest: Number((bind.messages / Math.max(1, requests)).toFixed(3)),
      bindsPerMessage: round2(bind.requests / Math.max(1, bind.messages)),
    },
  };
}

interface NatsSnapshot {
  counters: NatsCounters;
  streams: Map<string, number>;
}

async function natsSnapshot(monitors: readonly string[]): Promise<NatsSnapshot> {
  return { counters: await natsCounters(monitors), streams: await streamSequences(monitors) };
}

/** The commits' p99 as the histogram tells it: at most a bucket bound, or above its last one (100 ms). */
function commitP99(commits: CommitLatency): string {
  return Number.isFinite(commits.p99AtMostMs) ? `≤ ${commits.p99AtMostMs} ms` : "> 100 ms";
}

function cpuOf(pids: { service: readonly number[]; nats: readonly number[] }): CpuSample {
  return { service: cpuSecondsOf(pids.service), nats: cpuSecondsOf(pids.nats) };
}

/** wrk results of several drivers as one (counts summed; percentiles: the worst driver's). */
function merge(results: readonly WrkResult[]): WrkResult {
  const statuses: Record<string, number> = {};
  for (const result of results) for (const [status, count] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const sum = (key: "requests" | "connectErrors" | "readErrors" | "writeErrors" | "timeouts" | "non2xx") => results.reduce((total, r) => total + r[key], 0);
  const worst = (key: keyof WrkResult["latencyUs"]) => Math.max(...results.map((r) => r.latencyUs[key]));
  return {
    requests: sum("requests"),
    durationUs: Math.max(...results.map((r) => r.durationUs)),
    connectErrors: sum("connectErrors"),
    readErrors: sum("readErrors"),
    writeErrors: sum("writeErrors"),
    timeouts: sum("timeouts"),
    non2xx: sum("non2xx"),
    latencyUs: { p50: worst("p50"), p90: worst("p90"), p99: worst("p99"), p999: worst("p999"), max: worst("max"), mean: worst("mean") },
    statuses,
    requestsPerSecond: results.reduce((total, r) => total + r.requestsPerSecond, 0),
  };
}

function drive(drivers: readonly Driver[], paths: string, seconds: number): Promise<WrkResult[]> {
  const each = Math.max(1, Math.floor(CONNECTIONS / drivers.length));
  return Promise.all(
    drivers.map((driver) =>
      runWrk({ url: driver.url, path: "/", threads: 1, connections: each, durationSeconds: seconds, env: { STORM_TOKENS: driver.tokensFile, STORM_PATHS: paths } }),
    ),
  );
}

interface StormSubject {
  mode: StormResult["mode"];
  /** The NATS servers' monitoring URLs (none for a single node). */
  natsMonitors: readonly string[];
  drivers: readonly Driver[];
  /** The node URLs whose metrics hold the commits. */
  urls: readonly string[];
  metricsToken: string;
  pids: () => { service: number[]; nats: number[] };
  /** Filled by `measureIdle` before the storms. */
  idle?: { service: number; nats: number };
}

/** CPU seconds per second the subject's processes use with no requests, over `seconds`. */
async function measureIdle(subject: StormSubject, seconds = 3): Promise<void> {
  const pids = subject.pids();
  const before = cpuOf(pids);
  await pause(seconds * 1000);
  const after = cpuOf(pids);
  subject.idle = { service: round2((after.service - before.service) / seconds), nats: round2((after.nats - before.nats) / seconds) };
  log(`${subject.mode}: idle CPU ${subject.idle.service} s/s (service), ${subject.idle.nats} s/s (NATS)`);
}

/** Runs one measured storm and reads what it cost; the checks are the caller's. */
async function storm(name: string, subject: StormSubject, paths: string): Promise<Omit<StormResult, "checks"> & { raw: WrkResult }> {
  const pids = subject.pids();
  const cpuBefore = cpuOf(pids);
  const nodesBefore = await nodeMetrics(subject.urls, subject.metricsToken);
  const natsBefore = await natsSnapshot(subject.natsMonitors);
  const [results, recorded] = await Promise.all([drive(subject.drivers, paths, SECONDS), PERF ? perfDuring(`${subject.mode}-${name}`.replace(/[^a-z0-9]+/gi, "-")) : undefined]);
  const cpuAfter = cpuOf(pids);
  const natsAfter = await natsSnapshot(subject.natsMonitors);
  const nodesAfter = await nodeMetrics(subject.urls, subject.metricsToken);
  const commits = commitLatencyBetween(nodesBefore.commits, nodesAfter.commits);
  const raw = merge(results);
  const done = answered(raw);
  const serviceSeconds = cpuAfter.service - cpuBefore.service;
  const natsSeconds = cpuAfter.nats - cpuBefore.nats;
  const result = {
    name,
    mode: subject.mode,
    drivers: results.map((r, i) => ({ url: subject.drivers[i]?.url ?? "", requestsPerSecond: Math.round(r.requestsPerSecond), latencyUs: r.latencyUs, statuses: r.statuses })),
    requests: raw.requests,
    requestsPerSecond: Math.round(raw.requestsPerSecond),
    latencyUs: { p50: raw.latencyUs.p50, p99: raw.latencyUs.p99, p999: raw.latencyUs.p999 },
    statuses: raw.statuses,
    cpu: {
      serviceSeconds: round2(serviceSeconds),
      natsSeconds: round2(natsSeconds),
      serviceUsPerRequest: Math.round((serviceSeconds * 1e6) / Math.max(1, done)),
      natsUsPerRequest: Math.round((natsSeconds * 1e6) / Math.max(1, done)),
    },
    idleCpuPerSecond: subject.idle ?? { service: Number.NaN, nats: Number.NaN },
    commits: { ...commits, commandsPerCommit: round2(done / Math.max(1, commits.commits)) },
    ...(subject.natsMonitors.length === 0 ? {} : { nats: natsTrafficPerRequest(natsBefore, natsAfter, { before: nodesBefore, after: nodesAfter }, done) }),
    ...(recorded === undefined ? {} : { perfUsPerRequest: perUs(recorded, pids, done / (raw.durationUs / 1e6)) }),
    raw,
  };
  log(
    `${subject.mode}, ${name}: ${result.requestsPerSecond} req/s, p50 ${(raw.latencyUs.p50 / 1000).toFixed(2)} ms, p99 ${(raw.latencyUs.p99 / 1000).toFixed(2)} ms (worst driver); ` +
      `CPU per request: service ${result.cpu.serviceUsPerRequest} µs, NATS ${result.cpu.natsUsPerRequest} µs; ${commits.commits} commits (${result.commits.commandsPerCommit} claims each), p99 ${commitP99(commits)}` +
      (result.nats === undefined ? "" : `; NATS per request: ${result.nats.messagesInPerRequest} messages in, ${result.nats.messagesOutPerRequest} out, ${result.nats.bytesInPerRequest} B in, ${result.nats.bytesOutPerRequest} B out; stream writes per request ${JSON.stringify(result.nats.streamWritesPerRequest)}; to owners per request ${JSON.stringify(result.nats.toOwners)}`),
  );
  if (result.perfUsPerRequest !== undefined) log(`${subject.mode}, ${name}: CPU per request by perf (µs): ${JSON.stringify(result.perfUsPerRequest)}`);
  return result;
}

/** A perf recording of the storm's middle, starting now with the storm: its file, once written. */
async function perfDuring(label: string): Promise<{ file: string; seconds: number }> {
  const file = path.join(WORK, `perf-${label}.data`);
  const seconds = SECONDS - 2 * PERF_MARGIN_SECONDS;
  await new Promise((resolve) => setTimeout(resolve, PERF_MARGIN_SECONDS * 1000));
  await recordEveryCpu(file, seconds);
  return { file, seconds };
}

/** `recorded`'s CPU of the subject's processes per request, answered at `requestsPerSecond` over the storm, in µs, largest first. */
function perUs(recorded: { file: string; seconds: number }, pids: { service: number[]; nats: number[] }, requestsPerSecond: number): Record<string, number> {
  const roles = new Map<number, PerfRole>([...pids.service.map((pid) => [pid, "service"] as const), ...pids.nats.map((pid) => [pid, "nats"] as const)]);
  const seconds: PerfSeconds = perfSeconds(recorded.file, roles);
  rmSync(recorded.file, { force: true });
  const requests = Math.max(1, requestsPerSecond * recorded.seconds);
  return Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]).map(([key, s]) => [key, Math.round((s * 1e6) / requests)]));
}

/** The hot-market and spread storms against one subject, with their checks. */
async function storms(subject: StormSubject, target: CheckTarget, recordTarget: () => Promise<CheckTarget>, label: string, clients: readonly MarketClient[]): Promise<StormResult[]> {
  const out: StormResult[] = [];
  const hotId = `hot-${label}`;
  await createMarket(target, hotId, PARTICIPANTS);
  const hot = await storm("hot market", subject, pathsFile(WORK, `${label}-hot`, [`/v1/markets/${hotId}/direct-claims`]));
  const allocated = await allocatedOf(target, hotId);
  const accepted = hot.raw.statuses["200"] ?? 0;
  const hotChecks: Check[] = [
    ...transportChecks(hot.raw),
    { name: "accepted replies match the allocation (+ those in flight at the deadline)", ok: allocated >= accepted && allocated <= accepted + CONNECTIONS, detail: `${accepted} accepted replies, ${allocated} allocated` },
    ...(await recordChecks(await recordTarget(), hotId, allocated, answered(hot.raw), CONNECTIONS)),
  ];
  const { raw: _hotRaw, ...hotResult } = hot;
  out.push({ ...hotResult, checks: hotChecks });

  const ids = Array.from({ length: MARKETS }, (_, i) => `${label}-market-${String(i).padStart(4, "0")}`);
  await pool(ids, 16, (id, i) => createMarket({ client: clients[i % clients.length] as MarketClient, creatorToken: target.creatorToken }, id, UNBOUNDED));
  const spread = await storm(`${MARKETS.toLocaleString("en-US")} markets`, subject, pathsFile(WORK, `${label}-spread`, ids.map((id) => `/v1/markets/${id}/direct-claims`)));
  let total = 0;
  await pool(ids, 16, async (id) => {
    const marketAllocated = await allocatedOf(target, id);
    total += marketAllocated;
  });
  const spreadAccepted = spread.raw.statuses["200"] ?? 0;
  const { raw: _spreadRaw, ...spreadResult } = spread;
  out.push({
    ...spreadResult,
    checks: [
      ...transportChecks(spread.raw),
      { name: "total allocated = accepted claims (+ those in flight at the deadline)", ok: total >= spreadAccepted && total <= spreadAccepted + CONNECTIONS, detail: `allocated ${total} over ${MARKETS} markets, ${spreadAccepted} accepted replies` },
    ],
  });
  for (const result of out) for (const check of result.checks.filter((c) => !c.ok)) log(`  FAILED ${result.mode}, ${result.name}: ${check.name}: ${check.detail}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// 1. The embedded default.
// ---------------------------------------------------------------------------------------------

/** How much of a failed single node's stderr is printed. */
const STDERR_SHOWN_CHARS = 4_000;

async function singleNode(): Promise<StormResult[]> {
  const setup = await setUpService({ workDir: WORK, label: "single", participants: PARTICIPANTS, port: await freePort() });
  try {
    await warmUp(setup, WORK, "single", WARM_UP_SECONDS, CONNECTIONS);
    const pid = setup.service.process.pid as number;
    const subject: StormSubject = {
      mode: "single node",
      drivers: [{ url: setup.url, tokensFile: setup.tokensFile }],
      urls: [setup.url],
      natsMonitors: [],
      metricsToken: setup.metricsToken,
      pids: () => ({ service: [pid], nats: [] }),
    };
    await measureIdle(subject);
    return await storms(subject, setup, async () => setup, "single", [setup.client]);
  } catch (error) {
    // Whether the service died or only a connection closed: its state and last words, before it is stopped.
    const { exitCode, signalCode } = setup.service.process;
    log(`[single] failed; the service ${exitCode === null && signalCode === null ? "is still running" : `exited (code ${exitCode}, signal ${signalCode})`}; its stderr ends:\n${setup.service.stderr().slice(-STDERR_SHOWN_CHARS)}`);
    throw error;
  } finally {
    await setup.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. The cluster.
// ---------------------------------------------------------------------------------------------

interface ClusterSetup {
  cluster: LocalCluster;
  clients: MarketClient[];
  creatorToken: string;
  /** Every participant's principal id and token, in provisioning order. */
  participants: Array<{ principalId: string; token: string }>;
  /** Participants provisioned through node k, one "principalId token" per line (claims.lua). */
  tokensFiles: string[];
  metricsToken: string;
}

/** Resolves once `token` authenticates on every running node (identities reach the others through the identity stream). */
async function acceptedEverywhere(setup: ClusterSetup, token: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (const [i, client] of setup.clients.entries()) {
    if (!setup.cluster.serviceRunningNow(i)) continue;
    while ((await client.request("GET", "/v1/markets/no-such-market", { credentials: { kind: "bearer", token } })).status === 401) {
      if (performance.now() > deadline) throw new Error(`node ${i} does not accept a token issued on another node after 30 s`);
      await pause(20);
    }
  }
}

async function startCluster(): Promise<ClusterSetup> {
  const operatorSecret = randomBytes(32).toString("base64url");
  const metricsToken = randomBytes(32).toString("base64url");
  const started = performance.now();
  const cluster = await LocalCluster.start({
    dir: path.join(WORK, "cluster"),
    partitions: PARTITIONS,
    serviceNodes: NODES,
    ports: { kind: "free" },
    operatorSecret,
    metricsToken,
    serviceEnv: { LOG_LEVEL: LOG_LEVEL, AUTH_TOKEN_TTL: "3600", ...(KEY_HOMES > 0 ? { CLUSTER_KEY_HOMES: String(KEY_HOMES) } : {}), ...(SNAPSHOT_EVERY > 0 ? { CLUSTER_SNAPSHOT_EVERY_COMMANDS: String(SNAPSHOT_EVERY) } : {}), ...(BATCH_LINGER_MS >= 0 ? { CLUSTER_BATCH_LINGER_MS: String(BATCH_LINGER_MS) } : {}), ...(LEASE_MS > 0 ? { CLUSTER_LEASE_MS: String(LEASE_MS) } : {}) },
    // As the storm's services (bench/storm/processes.ts): STORM_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles every node.
    serviceNodeArgs: (process.env["STORM_NODE_ARGS"] ?? "").split(" ").filter((arg) => arg !== ""),
    onUnexpectedExit: (name, code, signal) => log(`cluster: ${name} exited unexpectedly (${signal ?? `code ${code}`})`),
  });
  await cluster.waitUntilServed(PARTITIONS, { balanced: true });
  log(`[cluster] 3 NATS + ${SERVICE_NODES_TEXT} up, ${PARTITIONS} partitions served, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const clients = cluster.services.map((node) => new MarketClient({ baseUrl: node.url, timeoutMs: 15_000 }));
  const operator = { actorId: "operator", secret: operatorSecret };
  const first = clients[0] as MarketClient;
  const creatorToken = (await first.signIn(await first.provisionNewIdentity({ principalId: "storm-creator" }, { credentials: { kind: "hmac", ...operator } }))).accessToken;
  const provisionStarted = performance.now();
  const participants: Array<{ principalId: string; token: string }> = new Array(PARTICIPANTS);
  await pool(
    Array.from({ length: PARTICIPANTS }, (_, i) => `participant-${String(i).padStart(6, "0")}`),
    96,
    async (principalId, index) => {
      const client = clients[index % NODES] as MarketClient;
      participants[index] = { principalId, token: (await client.signIn(await client.provisionNewIdentity({ principalId }, { credentials: { kind: "hmac", ...operator } }))).accessToken };
    },
  );
  log(`[cluster] provisioned ${PARTICIPANTS} participants with bearer tokens (each through one of the nodes) in ${((performance.now() - provisionStarted) / 1000).toFixed(1)} s`);
  const tokensFiles = clients.map((_, k) => {
    const file = path.join(WORK, `cluster-tokens-${k}.txt`);
    writeFileSync(file, participants.filter((_, i) => i % NODES === k).map((p) => `${p.principalId} ${p.token}`).join("\n"));
    return file;
  });
  const setup = { cluster, clients, creatorToken, participants, tokensFiles, metricsToken };
  // The last identity each node logged, accepted on every node: every earlier one is too (the stream is applied in order).
  await acceptedEverywhere(setup, creatorToken);
  for (let k = 0; k < NODES; k += 1) {
    const last = participants.filter((_, i) => i % NODES === k).at(-1);
    if (last !== undefined) await acceptedEverywhere(setup, last.token);
  }
  return setup;
}

function clusterSubject(setup: ClusterSetup, nodes: readonly number[] = ALL_NODES): StormSubject {
  const { cluster } = setup;
  return {
    mode: "cluster",
    drivers: nodes.map((k) => ({ url: cluster.services[k]?.url ?? "", tokensFile: setup.tokensFiles[k] ?? "" })),
    urls: cluster.services.filter((_, k) => cluster.serviceRunningNow(k)).map((node) => node.url),
    metricsToken: setup.metricsToken,
    natsMonitors: cluster.nats.map((node) => `http://127.0.0.1:${node.monitorPort}`),
    pids: () => ({
      service: cluster.services.flatMap((_, k) => cluster.servicePid(k) ?? []),
      nats: cluster.nats.flatMap((_, k) => cluster.natsPid(k) ?? []),
    }),
  };
}

async function clusterWarmUp(setup: ClusterSetup): Promise<void> {
  if (CLUSTER_WARM_UP_SECONDS <= 0) return;
  const target = { client: setup.clients[0] as MarketClient, creatorToken: setup.creatorToken };
  // Claims on markets of every partition, accepted (unbounded capacity) until each participant has
  // claimed each: both the refusals of the hot storm and the acceptances of the spread storm run
  // on every partition's worker before either storm is measured.
  const ids = Array.from({ length: PARTITIONS * CLUSTER_WARM_UP_MARKETS_PER_PARTITION }, (_, i) => marketIn(i % PARTITIONS, `warm-up-cluster-${Math.floor(i / PARTITIONS)}`));
  await pool(ids, 4, (id) => createMarket(target, id, UNBOUNDED));
  const results = await drive(clusterSubject(setup).drivers, pathsFile(WORK, "cluster-warm-up", ids.map((id) => `/v1/markets/${id}/direct-claims`)), CLUSTER_WARM_UP_SECONDS);
  const failed = results.flatMap((result) => transportChecks(result)).filter((check) => !check.ok);
  if (failed.length > 0) throw new Error(`cluster warm-up failed: ${failed.map((check) => check.detail).join("; ")}`);
  log(`[cluster] warm-up: ${CLUSTER_WARM_UP_SECONDS} s over ${ids.length} markets, ${Math.round(merge(results).requestsPerSecond)} req/s (not reported)`);
}

// ---------------------------------------------------------------------------------------------
// 3. Failover.
// ---------------------------------------------------------------------------------------------

interface FailoverRound {
  round: number;
  killedNode: string;
  /** The partitions the killed node served, and for each, kill → first claim answered on its market (ms). */
  partitions: Array<{ partition: number; marketId: string; firstAnswerMs: number | null }>;
  hotPartition: number;
  hotMarketMs: number | null;
  allMarketsMs: number | null;
  /** Statuses the storm's drivers (through the other nodes) and the probes got during the round. */
  stormStatuses: Record<string, number>;
  stormTimeouts: number;
  probeStatuses: Record<string, number>;
  /** The longest a probe claim waited for its answer in the round. */
  slowestProbeAnswerMs: number;
  checks: Check[];
}

/** A market id whose partition is `partition`. */
function marketIn(partition: number, prefix: string): string {
  for (let k = 0; ; k += 1) {
    const id = `${prefix}-${k}`;
    if (shardOfMarket(id, PARTITIONS) === partition) return id;
  }
}

interface Probe {
  /** Milliseconds from the kill to the first answer the rules decided (accepted or refused) to a claim sent after the kill. */
  firstAnswerMs: number | null;
  accepted: number;
  statuses: Record<string, number>;
  /** The longest any probe claim waited for its answer (a claim in flight to the killed owner waits for the forwarding timeout). */
  slowestMs: number;
}

/** How often a probe sends a claim, whatever the claims before it are doing. */
const PROBE_INTERVAL_MS = 25;

/**
 * Claims on `marketId` every PROBE_INTERVAL_MS through `clients` in turn, each from the next
 * participant with a fresh command id, without waiting for the ones before (a claim forwarded to
 * the owner just as it died waits for the forwarding timeout; the next ones must not wait behind
 * it), until a claim sent after the kill is decided (200, or 409: that participant already holds
 * one) or `giveUpAtMs`. A 503 or no answer: the partition not served. Resolves once every claim
 * sent has its answer.
 */
async function probe(marketId: string, clients: readonly MarketClient[], setup: ClusterSetup, kill: { atMs: number | undefined }, giveUpAtMs: () => number, next: () => number): Promise<Probe> {
  const result: Probe = { firstAnswerMs: null, accepted: 0, statuses: {}, slowestMs: 0 };
  const inFlight: Array<Promise<void>> = [];
  for (let n = 0; result.firstAnswerMs === null && performance.now() <= giveUpAtMs(); n += 1) {
    const participant = setup.participants[next() % setup.participants.length] as { principalId: string; token: string };
    const sentAtMs = performance.now();
    const claim = (clients[n % clients.length] as MarketClient)
      .request("POST", `/v1/markets/${marketId}/direct-claims`, { body: { commandId: `probe-${marketId}-${n}`, principalId: participant.principalId }, credentials: { kind: "bearer", token: participant.token } })
      .then(
        (reply) => String(reply.status),
        () => "no answer",
      )
      .then((status) => {
        const nowMs = performance.now();
        result.slowestMs = Math.max(result.slowestMs, round2(nowMs - sentAtMs));
        result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        if (status === "200") result.accepted += 1;
        const decided = status === "200" || status === "409";
        if (decided && result.firstAnswerMs === null && kill.atMs !== undefined && sentAtMs >= kill.atMs) result.firstAnswerMs = round2(nowMs - kill.atMs);
      });
    inFlight.push(claim);
    await pause(PROBE_INTERVAL_MS);
  }
  await Promise.all(inFlight);
  return result;
}

/** Creates a market, retrying while its partition has no owner yet (a node restarted by the previous round is rejoining). */
async function createMarketWhenServed(target: Parameters<typeof createMarket>[0], marketId: string, capacity: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await createMarket(target, marketId, capacity);
      return;
    } catch (error) {
      if (!(error instanceof Error && / 503 /.test(error.message)) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function failoverRound(setup: ClusterSetup, round: number, participantCounter: { n: number }): Promise<FailoverRound> {
  const { cluster, clients } = setup;
  const target = { client: clients[0] as MarketClient, creatorToken: setup.creatorToken };
  const hotId = KILL === "key-home" ? marketIn(0, `failover-${round}`) : `failover-${round}`;
  const hotPartition = shardOfMarket(hotId, PARTITIONS);
  await createMarketWhenServed(target, hotId, UNBOUNDED);
  const victim = await cluster.ownerOf(hotPartition);
  if (victim === undefined) throw new Error(`round ${round}: no single node serves partition ${hotPartition}`);
  const victimPartitions = (await cluster.servedByNode())[victim] ?? [hotPartition];
  const markets = victimPartitions.map((partition) => ({ partition, marketId: partition === hotPartition ? hotId : marketIn(partition, `failover-${round}-p${partition}`) }));
  for (const { marketId } of markets) if (marketId !== hotId) await createMarketWhenServed(target, marketId, UNBOUNDED);
  const survivors = ALL_NODES.filter((k) => k !== victim);
  const survivorClients = survivors.map((k) => clients[k] as MarketClient);
  const kill: { atMs: number | undefined } = { atMs: undefined };
  const giveUpAt = () => (kill.atMs === undefined ? Number.POSITIVE_INFINITY : kill.atMs + FAILOVER_GIVE_UP_MS);
  const next = () => participantCounter.n++;

  const stormDone = drive(clusterSubject(setup, survivors).drivers, pathsFile(WORK, `failover-${round}`, [`/v1/markets/${hotId}/direct-claims`]), FAILOVER_STORM_SECONDS);
  const probes = Promise.all(markets.map(({ marketId }) => probe(marketId, survivorClients, setup, kill, giveUpAt, next)));
  await pause(KILL_AFTER_MS);
  kill.atMs = performance.now();
  const killedAt = new Date().toISOString();
  await cluster.killService(victim);
  const probed = await probes;
  const stormResults = await stormDone;
  const storm = merge(stormResults);

  const hotIndex = markets.findIndex(({ marketId }) => marketId === hotId);
  const acknowledged = (storm.statuses["200"] ?? 0) + (probed[hotIndex]?.accepted ?? 0);
  const allocated = await allocatedOf({ client: survivorClients[0] as MarketClient, creatorToken: setup.creatorToken }, hotId);
  const partitions = markets.map(({ partition, marketId }, i) => ({ partition, marketId, firstAnswerMs: probed[i]?.firstAnswerMs ?? null }));
  const times = partitions.map((p) => p.firstAnswerMs);
  const probeStatuses: Record<string, number> = {};
  for (const p of probed) for (const [status, count] of Object.entries(p.statuses)) probeStatuses[status] = (probeStatuses[status] ?? 0) + count;
  const result: FailoverRound = {
    round,
    killedNode: cluster.services[victim]?.nodeId ?? String(victim),
    partitions,
    hotPartition,
    hotMarketMs: probed[hotIndex]?.firstAnswerMs ?? null,
    allMarketsMs: times.some((t) => t === null) ? null : Math.max(...(times as number[])),
    stormStatuses: storm.statuses,
    stormTimeouts: storm.timeouts,
    probeStatuses,
    slowestProbeAnswerMs: Math.max(...probed.map((p) => p.slowestMs)),
    checks: [
      { name: "every killed owner's market answered again", ok: times.every((t) => t !== null), detail: partitions.map((p) => `partition ${p.partition}: ${p.firstAnswerMs ?? "never"} ms`).join(", ") },
      { name: "every acknowledged claim is allocated after the failover", ok: allocated >= acknowledged, detail: `${acknowledged} claims acknowledged (storm + probe), ${allocated} allocated` },
    ],
  };
  log(
    `failover round ${round}: killed node ${result.killedNode} at ${killedAt} (partitions ${victimPartitions.join(", ")}); hot market answered after ${result.hotMarketMs ?? "—"} ms, all its markets after ${result.allMarketsMs ?? "—"} ms; slowest probe answer ${result.slowestProbeAnswerMs} ms; ` +
      `storm through the others: ${JSON.stringify(storm.statuses)}${storm.timeouts > 0 ? `, ${storm.timeouts} timeouts` : ""}; checks ${result.checks.every((c) => c.ok) ? "passed" : "FAILED"}`,
  );
  for (const check of result.checks.filter((c) => !c.ok)) log(`  FAILED ${check.name}: ${check.detail}`);

  await cluster.startService(victim);
  await cluster.waitUntilServed(PARTITIONS, { balanced: true });
  await acceptedEverywhere(setup, setup.creatorToken);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Report.
// ---------------------------------------------------------------------------------------------

function machine(): Record<string, unknown> {
  let disk = "unknown";
  try {
    disk = execSync(`df -T ${JSON.stringify(REPO)} | tail -1`, { encoding: "utf8" }).trim().replace(/\s+/g, " ");
  } catch {
    // best effort
  }
  return { cores: availableParallelism(), cpu: cpus()[0]?.model ?? "?", memoryBytes: totalmem(), node: process.version, kernel: release(), disk, loadAverageAtStart: loadavg().map(round2) };
}

function summary(values: ReadonlyArray<number | null>): { samples: number; failed: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null } {
  const ok = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  return { samples: values.length, failed: values.length - ok.length, p50Ms: ok.length === 0 ? null : percentile(ok, 50), p99Ms: ok.length === 0 ? null : percentile(ok, 99), maxMs: ok.at(-1) ?? null };
}

async function charts(stem: string, stormResults: readonly StormResult[], rounds: readonly FailoverRound[]): Promise<void> {
  const throughput = await svg({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: `Claims/s at saturation: one node (file journal) vs ${SERVICE_NODES_TEXT} on 3 NATS (one machine)`,
    width: 520,
    height: 160,
    data: { values: stormResults.map((s) => ({ storm: s.name, mode: s.mode, rps: s.requestsPerSecond })) },
    mark: { type: "bar", tooltip: true },
    encoding: {
      y: { field: "storm", type: "nominal", title: null },
      yOffset: { field: "mode" },
      x: { field: "rps", type: "quantitative", title: "requests/s" },
      color: { field: "mode" },
    },
  });
  writeFileSync(path.join(RESULTS_DIR, `${stem}-throughput.svg`), throughput);
  const failover = await svg({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "kill -9 of a hot market's owner → first claim answered (ms)",
    width: 520,
    height: 160,
    data: {
      values: rounds.flatMap((r) => [
        { round: r.round, what: "hot market", ms: r.hotMarketMs },
        { round: r.round, what: "all its markets", ms: r.allMarketsMs },
      ]),
    },
    mark: { type: "bar", tooltip: true },
    encoding: {
      x: { field: "round", type: "ordinal" },
      xOffset: { field: "what" },
      y: { field: "ms", type: "quantitative", title: "ms" },
      color: { field: "what" },
    },
  });
  writeFileSync(path.join(RESULTS_DIR, `${stem}-failover.svg`), failover);
}

function markdown(stem: string, result: Record<string, unknown>, stormResults: readonly StormResult[], rounds: readonly FailoverRound[], ratios: Record<string, number>): string {
  const ms = (us: number) => (us / 1000).toFixed(2);
  const rows = stormResults.map(
    (s) =>
      `| ${s.mode} | ${s.name} | ${s.checks.every((c) => c.ok) ? s.requestsPerSecond.toLocaleString("en-US") : "FAILED"} | ${ms(s.latencyUs.p50)} | ${ms(s.latencyUs.p99)} | ${s.cpu.serviceUsPerRequest} | ${s.cpu.natsUsPerRequest} | ${s.commits.commits.toLocaleString("en-US")} (${s.commits.commandsPerCommit}/commit, p99 ${commitP99(s.commits)}) | ${s.nats === undefined ? "" : `${s.nats.messagesInPerRequest} / ${s.nats.messagesOutPerRequest}`} | ${s.nats === undefined ? "" : `${s.nats.bytesInPerRequest} / ${s.nats.bytesOutPerRequest}`} | ${s.nats === undefined ? "" : Object.entries(s.nats.streamWritesPerRequest).map(([kind, writes]) => `${kind} ${writes}`).join(", ")} |`,
  );
  const failover = result["failover"] as { hotMarket: ReturnType<typeof summary>; allMarkets: ReturnType<typeof summary> };
  return [
    `# Cluster bench ${stem}`,
    "",
    `Machine: ${JSON.stringify(result["machine"])}`,
    `Settings: ${JSON.stringify(result["settings"])}`,
    "",
    "| mode | storm | req/s | p50 ms | p99 ms | service CPU µs/req | NATS CPU µs/req | group commits | NATS messages in / out per req | NATS bytes in / out per req | stream writes per req |",
    "|---|---|---:|---:|---:|---:|---:|---|---|---|---|",
    ...rows,
    "",
    `CPU with no requests (leases, heartbeats, the identity stream's tail, timers): ${stormResults.map((s) => `${s.mode} service ${s.idleCpuPerSecond.service} s/s${s.mode === "cluster" ? `, NATS ${s.idleCpuPerSecond.nats} s/s` : ""}`).filter((line, i, all) => all.indexOf(line) === i).join("; ")}.`,
    "",
    `Cluster ÷ single node: hot market **${ratios["hotMarket"]?.toFixed(2)}×**, ${MARKETS.toLocaleString("en-US")} markets **${ratios["spread"]?.toFixed(2)}×**.`,
    "",
    `Failover (${rounds.length} round${rounds.length === 1 ? "" : "s"}; kill -9 of the owner of a hot market's partition during a storm through the other nodes): ` +
      `first claim answered on the hot market p50 ${failover.hotMarket.p50Ms} ms, p99 ${failover.hotMarket.p99Ms} ms; on every market of the killed node p50 ${failover.allMarkets.p50Ms} ms, p99 ${failover.allMarkets.p99Ms} ms` +
      `${rounds.length < 100 ? ` (with ${rounds.length} rounds the p99 is the slowest round)` : ""}.`,
    "",
    "| round | killed | partitions → ms | hot market ms | all markets ms | slowest probe answer ms | storm statuses | checks |",
    "|---|---|---|---:|---:|---:|---|---|",
    ...rounds.map(
      (r) =>
        `| ${r.round} | ${r.killedNode} | ${r.partitions.map((p) => `${p.partition} → ${p.firstAnswerMs ?? "never"}`).join(", ")} | ${r.hotMarketMs ?? "—"} | ${r.allMarketsMs ?? "—"} | ${r.slowestProbeAnswerMs} | ${JSON.stringify(r.stormStatuses)} | ${r.checks.every((c) => c.ok) ? "passed" : "FAILED"} |`,
    ),
    "",
    ...stormResults.flatMap((s) => [`## ${s.mode}, ${s.name}`, "", ...s.checks.map((c) => `- ${c.ok ? "✔" : "✘"} ${c.name}: ${c.detail}`), ""]),
    `![throughput](${stem}-throughput.svg)`,
    "",
    `![failover](${stem}-failover.svg)`,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  requireWrk();
  if (PERF) {
    requirePerf();
    if (SECONDS <= 2 * PERF_MARGIN_SECONDS + 1) throw new Error(`--perf records a storm's middle: --seconds must be above ${2 * PERF_MARGIN_SECONDS + 1}`);
  }
  if (!Number.isSafeInteger(NODES) || NODES < 1) throw new Error("--service-nodes must be a positive integer");
  if (NODES < 2 && FAILOVER_ROUNDS > 0) throw new Error("--service-nodes 1 needs --failover-rounds 0 (a round kills one node and drives the storm through the others)");
  if (CONNECTIONS % NODES !== 0) throw new Error(`--connections must be a multiple of ${NODES} (the cluster's drivers split them evenly)`);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const settings = {
    participants: PARTICIPANTS,
    markets: MARKETS,
    seconds: SECONDS,
    warmUpSeconds: WARM_UP_SECONDS,
    clusterWarmUpSeconds: CLUSTER_WARM_UP_SECONDS,
    connections: CONNECTIONS,
    partitions: PARTITIONS,
    serviceNodes: NODES,
    keyHomes: KEY_HOMES > 0 ? KEY_HOMES : "service default",
    snapshotEveryCommands: SNAPSHOT_EVERY > 0 ? SNAPSHOT_EVERY : "service default",
    batchLingerMs: BATCH_LINGER_MS >= 0 ? BATCH_LINGER_MS : "service default",
    perf: PERF,
    failoverRounds: FAILOVER_ROUNDS,
    failoverStormSeconds: FAILOVER_STORM_SECONDS,
    killAfterMs: KILL_AFTER_MS,
    kill: KILL,
    leaseMs: LEASE_MS > 0 ? LEASE_MS : "service default",
  };
  const startedAt = new Date();
  const machineInfo = machine();
  log(`[single] the embedded default: one service, file journal`);
  const single = await singleNode();

  const setup = await startCluster();
  let clustered: StormResult[];
  const rounds: FailoverRound[] = [];
  try {
    await clusterWarmUp(setup);
    const ownerTarget = async (): Promise<CheckTarget> => {
      // A hot market's record is read from its owner: forwarded, a reply larger than the NATS
      // servers' max_payload could not travel (docs/cluster.md).
      const owner = await setup.cluster.ownerOf(shardOfMarket("hot-cluster", PARTITIONS));
      return { client: setup.clients[owner ?? 0] as MarketClient, creatorToken: setup.creatorToken };
    };
    const subject = clusterSubject(setup);
    await measureIdle(subject);
    clustered = await storms(subject, { client: setup.clients[0] as MarketClient, creatorToken: setup.creatorToken }, ownerTarget, "cluster", setup.clients);
    const counter = { n: 0 };
    for (let round = 1; round <= FAILOVER_ROUNDS; round += 1) rounds.push(await failoverRound(setup, round, counter));
  } finally {
    await setup.cluster.stop();
  }

  const stormResults = [...single, ...clustered];
  const ratio = (name: string) => (clustered.find((s) => s.name === name)?.requestsPerSecond ?? Number.NaN) / (single.find((s) => s.name === name)?.requestsPerSecond ?? Number.NaN);
  const spreadName = `${MARKETS.toLocaleString("en-US")} markets`;
  const ratios = { hotMarket: round2(ratio("hot market")), spread: round2(ratio(spreadName)) };
  const failover = { hotMarket: summary(rounds.map((r) => r.hotMarketMs)), allMarkets: summary(rounds.map((r) => r.allMarketsMs)) };
  const passed = stormResults.every((s) => s.checks.every((c) => c.ok)) && rounds.every((r) => r.checks.every((c) => c.ok));
  const stem = freshResultStem("cluster", startedAt);
  const result = {
    bench: "cluster",
    date: startedAt.toISOString(),
    machine: machineInfo,
    setup: `single node: the built service, file journal, default SHARDS; cluster: 3 nats-server 2.10 (R3, sync_interval: always) + ${SERVICE_NODES_TEXT}, all on this machine with the drivers (wrk)`,
    settings,
    storms: stormResults,
    ratioClusterToSingle: ratios,
    failover: { ...failover, rounds },
    passed,
  };
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), markdown(stem, result, stormResults, rounds, ratios));
  await charts(stem, stormResults, rounds);
  log("");
  log(`cluster ÷ single node: hot market ${ratios.hotMarket}×, ${spreadName} ${ratios.spread}×`);
  log(`failover: hot market p50 ${failover.hotMarket.p50Ms} ms, p99 ${failover.hotMarket.p99Ms} ms; all the killed node's markets p50 ${failover.allMarkets.p50Ms} ms, p99 ${failover.allMarkets.p99Ms} ms (${rounds.length} round${rounds.length === 1 ? "" : "s"})`);
  log(`results: bench/results/${stem}.{json,md} (+ -throughput.svg, -failover.svg); checks ${passed ? "passed" : "FAILED"}`);
  if (LOG_LEVEL === "info") printTakeovers(path.join(WORK, "cluster", "logs"));
  if (KEEP_LOGS !== "") {
    cpSync(path.join(WORK, "cluster", "logs"), KEEP_LOGS, { recursive: true });
    log(`logs: ${KEEP_LOGS}`);
  }
  rmSync(WORK, { recursive: true, force: true });
  if (!passed) process.exitCode = 1;
}

/** The nodes' `partition acquired` lines (kept at `--log-level info`), before their logs are removed with the work directory. */
function printTakeovers(logsDir: string): void {
  for (const file of readdirSync(logsDir).filter((name) => name.startsWith("node-")).sort()) {
    for (const line of readFileSync(path.join(logsDir, file), "utf8").split("\n")) {
      if (line.includes('"partition acquired"')) log(`${file}: ${line}`);
    }
  }
}

await main();
