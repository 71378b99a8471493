/**
 * Prometheus metrics (prom-client), served at GET /metrics. Labels have bounded cardinality: route
 * templates (never paths with ids), methods, status codes, shard numbers. No ids, tokens or amounts.
 */
import { Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from "prom-client";
import type { ResponseInfo } from "../http/route.js";
import { RequestCounter, RequestHistogram } from "./request-metrics.js";
import type { RecordCacheStats } from "../../engine/runtime/record-cache.js";
import type { ProofCacheStats } from "../../engine/audit/proof-tree-cache.js";
import type { BatchStats } from "../../engine/shard-protocol/shard-protocol.js";
import type { ForwardingCounts } from "../../engine/cluster/forwarding.js";

/** Gauges read when /metrics is scraped. */
export interface ServiceMetricsSources {
  pendingByShard: () => number[];
  idempotencyEntries: () => number;
  recordCache: () => Pick<RecordCacheStats, "sizeBytes" | "entries">;
  /** The proof tree caches of the worker pool's threads, summed (engine/audit/proof-tree-cache.ts). */
  proofCache?: () => ProofCacheStats;
  /** Absent where the challenge store cannot count them (cluster mode: the cluster's KV bucket); the gauge is then not exposed. */
  outstandingChallenges?: () => number;
  tokensKept: () => number;
  /** Cluster mode: each partition's owner as this node last saw it; undefined on a single node. */
  clusterPartitions?: () => ReadonlyArray<ClusterPartitionView>;
  /** Cluster mode: what this node sent to partitions' owners; undefined on a single node. */
  clusterSent?: () => ForwardingCounts | undefined;
}

/** One partition as a cluster node sees it (metrics). */
export interface ClusterPartitionView {
  readonly partition: number;
  /** The owner's node id by the lease this node last read, or null when none holds it. */
  readonly ownerNode: string | null;
  readonly epoch: number;
  /** Whether this node serves the partition now. */
  readonly servedHere: boolean;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests = new RequestCounter<ResponseInfo>(
    "market_http_requests_total",
    "HTTP requests by route template, method and status the client got (0: none reached it: it left first, or the reply was dropped with the connection).",
    (info) => ({ route: info.route, method: info.method, status: String(info.status) }),
  );
  private readonly latency = new RequestHistogram<ResponseInfo>(
    "market_http_request_duration_seconds",
    "Time from request arrival to the reply written, by route template.",
    (info) => ({ route: info.route, method: info.method }),
    [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  private readonly batchSize = new Histogram({
    name: "market_shard_batch_commands",
    help: "Commands decided and logged per shard batch (group commit size).",
    labelNames: ["shard"] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    registers: [this.registry],
  });
  private readonly fsync = new Histogram({
    name: "market_shard_commit_seconds",
    help: "Duration of a shard batch's write + fdatasync.",
    labelNames: ["shard"] as const,
    buckets: [0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.1],
    registers: [this.registry],
  });
  private readonly logBytes = new Gauge({ name: "market_shard_log_bytes", help: "Bytes in the shard's log.", labelNames: ["shard"] as const, registers: [this.registry] });
  private readonly markets = new Gauge({ name: "market_shard_markets", help: "Markets owned by the shard.", labelNames: ["shard"] as const, registers: [this.registry] });
  private readonly commitments = new Gauge({ name: "market_shard_commitments", help: "Commitments held by the shard's markets.", labelNames: ["shard"] as const, registers: [this.registry] });
  private readonly inbox = new Gauge({
    name: "market_shard_inbox_depth",
    help: "Requests queued for or in flight to the shard.",
    labelNames: ["shard"] as const,
    registers: [this.registry],
  });
  private readonly idempotencyEntries = new Gauge({ name: "market_idempotency_entries", help: "Entries in the idempotency index.", registers: [this.registry] });
  // What the service keeps in memory besides its accepted state, each bounded: a soak
  // (bench:soak) sets memory against these to tell a cache filling up from a leak.
  private readonly replyCacheEntries = new Gauge({ name: "market_shard_reply_cache_entries", help: "Replies the shard keeps for fast retries.", labelNames: ["shard"] as const, registers: [this.registry] });
  private readonly replyCacheChars = new Gauge({ name: "market_shard_reply_cache_chars", help: "Characters of the replies the shard keeps for fast retries.", labelNames: ["shard"] as const, registers: [this.registry] });
  private readonly recordCacheBytes = new Gauge({ name: "market_record_cache_bytes", help: "Bytes of rendered market records kept for repeated reads.", registers: [this.registry] });
  private readonly recordCacheEntries = new Gauge({ name: "market_record_cache_entries", help: "Rendered market records kept for repeated reads.", registers: [this.registry] });
  /** Counts and sizes in one family by `stat`, so gauges (the counts only grow). */
  private readonly proofCache = new Gauge({
    name: "market_proof_cache",
    help: "The worker pool threads' proof tree caches, summed (docs/proofs.md, Cost): proofs answered, warm (tree kept), builds (from the first entry), entriesHashed, entriesSent (read by a shard for proofs), invalidated, evicted, bytes and logs held.",
    labelNames: ["stat"] as const,
    registers: [this.registry],
  });
  private readonly challenges: Gauge | undefined;
  private readonly liveTokens = new Gauge({ name: "market_auth_tokens_kept", help: "Access tokens the identity state holds (live, or expired and not yet dropped).", registers: [this.registry] });

  private readonly partitionServed = new Gauge({
    name: "market_cluster_partition_served",
    help: "Cluster mode: 1 when this node serves the partition now, else 0.",
    labelNames: ["partition"] as const,
    registers: [this.registry],
  });
  private readonly partitionEpoch = new Gauge({
    name: "market_cluster_partition_epoch",
    help: "Cluster mode: the partition lease's epoch as this node last read it (it grows by one per owner change).",
    labelNames: ["partition"] as const,
    registers: [this.registry],
  });
  private readonly partitionOwner = new Gauge({
    name: "market_cluster_partition_owner",
    help: "Cluster mode: 1 for the node that owns the partition by the lease this node last read (the node label is a node id: bounded by the cluster's size).",
    labelNames: ["partition", "node"] as const,
    registers: [this.registry],
  });

  /** Counts that only grow, sampled at scrape time (as market_proof_cache's). */
  private readonly messagesSent = new Gauge({
    name: "market_cluster_messages_sent",
    help: "Cluster mode: NATS messages this node sent to partitions' owners since it started: forwarded batches of commands and reads (kind forward), key binds (kind bind).",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  private readonly requestsSent = new Gauge({
    name: "market_cluster_requests_sent",
    help: "Cluster mode: the requests those messages carried (commands and reads, or binds); divided by market_cluster_messages_sent, how many share a message.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  constructor(private readonly sample: ServiceMetricsSources) {
    collectDefaultMetrics({ register: this.registry, prefix: "market_" });
    // Counted here, rendered by prom-client's registry at scrape time (request-metrics.ts).
    // prom-client types a registered metric as its own class; its Registry only calls get() (and
    // reads name, help, type), which these implement.
    this.registry.registerMetric(this.requests as unknown as Metric);
    this.registry.registerMetric(this.latency as unknown as Metric);
    this.challenges =
      sample.outstandingChallenges === undefined
        ? undefined
        : new Gauge({ name: "market_auth_challenges_outstanding", help: "Authentication challenges issued and neither used nor expired yet.", registers: [this.registry] });
  }

  observeResponse(info: ResponseInfo): void {
    const routeKey = `${info.method} ${info.route}`;
    this.requests.inc(`${routeKey} ${info.status}`, info);
    this.latency.observe(routeKey, info, info.durationMs / 1000);
  }

  observeBatch(shardIndex: number, stats: BatchStats): void {
    const shard = String(shardIndex);
    if (stats.commands > 0) {
      this.batchSize.observe({ shard }, stats.commands);
      this.fsync.observe({ shard }, stats.commitMs / 1000);
    }
    this.logBytes.set({ shard }, stats.logBytes);
    this.markets.set({ shard }, stats.markets);
    this.commitments.set({ shard }, stats.commitments);
    this.replyCacheEntries.set({ shard }, stats.replyCacheEntries);
    this.replyCacheChars.set({ shard }, stats.replyCacheChars);
  }

  private renderCluster(): void {
    const partitions = this.sample.clusterPartitions?.();
    if (partitions === undefined) return;
    this.partitionOwner.reset();
    for (const view of partitions) {
      const partition = String(view.partition);
      this.partitionServed.set({ partition }, view.servedHere ? 1 : 0);
      this.partitionEpoch.set({ partition }, view.epoch);
      if (view.ownerNode !== null) this.partitionOwner.set({ partition, node: view.ownerNode }, 1);
    }
    const sent = this.sample.clusterSent?.();
    if (sent === undefined) return;
    for (const kind of ["forward", "bind"] as const) {
      this.messagesSent.set({ kind }, sent[kind].messages);
      this.requestsSent.set({ kind }, sent[kind].requests);
    }
  }

  /** The text exposition, with the sampled gauges refreshed. */
  async render(): Promise<string> {
    this.sample.pendingByShard().forEach((depth, shard) => this.inbox.set({ shard: String(shard) }, depth));
    this.idempotencyEntries.set(this.sample.idempotencyEntries());
    this.renderCluster();
    const records = this.sample.recordCache();
    this.recordCacheBytes.set(records.sizeBytes);
    this.recordCacheEntries.set(records.entries);
    const proofs = this.sample.proofCache?.();
    if (proofs !== undefined) for (const [stat, value] of Object.entries(proofs)) this.proofCache.set({ stat }, value);
    if (this.sample.outstandingChallenges !== undefined) this.challenges?.set(this.sample.outstandingChallenges());
    this.liveTokens.set(this.sample.tokensKept());
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
