/**
 * The whole service in one process: configuration, the identity store and authentication (gateway
 * thread), the market runtime (shard workers), the market API shared by the transports, and the
 * uWebSockets.js HTTP server. `npm start` (main.ts) and the tests both start it through here.
 */
import { emptyProofCacheStats } from "../engine/audit/proof-tree-cache.js";
import * as path from "node:path";
import { loadAuthConfig, type AuthConfig } from "./auth/config.js";
import { AuthService, operatorCheck } from "./auth/service.js";
import { systemClock, type Clock } from "../engine/clock.js";
import { loadServiceConfig, type Env, type ServiceConfig } from "./config.js";
import { createHttpServer, type HttpServer } from "./http/server.js";
import type { LogFn } from "./http/log.js";
import { IdempotencyIndex } from "../engine/idempotency/index.js";
import { IdentityStore } from "../engine/identity/store.js";
import { createPinoLogger, logFnOf } from "./logger.js";
import { ServiceMetrics } from "./metrics/metrics.js";
import { operationsRoutes } from "./routes/operations-routes.js";
import type { HttpRoute } from "./http/route.js";
import { MarketApi } from "./api/market-api.js";
import { authRoutes } from "./routes/auth-routes.js";
import { healthRoutes } from "./routes/health-routes.js";
import { identityRoutes } from "./routes/identity-routes.js";
import { marketRoutes } from "./routes/market-routes.js";
import { eventRoutes } from "./routes/event-routes.js";
import { EventHub } from "./events/event-hub.js";
import { auditRoutes } from "./routes/audit-routes.js";
import { auditLogRoutes } from "./routes/audit-log-routes.js";
import { loadAuditKeys, type AuditKeys } from "./audit-signing-key.js";
import { auditSignerWorkerData, type AuditSigner } from "../engine/audit/signing/audit-signer.js";
import type { ShardHeadsSpec } from "../engine/runtime/worker-messages.js";
import { historyPublicKeys } from "../engine/audit/signing/head-keys.js";
import type { KeyHistory } from "@market-service/client/audit";
import { mcpRoutes } from "./routes/mcp-routes.js";
import { pageRoutes } from "./routes/page-routes.js";
import { McpEndpoint } from "./mcp/mcp-endpoint.js";
import { MarketRuntime } from "../engine/runtime/market-runtime.js";
import type { ShardWorkerSource } from "../engine/runtime/shard-host.js";
import { lockDataDir, type DataDirLock } from "../storage/data-dir-lock.js";
import { Readiness } from "./http/readiness.js";
import { shardCountFor } from "../storage/data-dir-layout.js";
import { SERVICE_VERSION } from "./api/version.js";
import { IdentityCatchUp, retryUnknownTokens } from "./cluster-auth.js";
import type { Messaging } from "../engine/messaging/messaging.js";
import type { ClusterRuntime } from "../engine/cluster/cluster-runtime.js";
import type { ClusterConnection, ClusterRuntimeParts } from "./cluster-node.js";

export { SERVICE_VERSION } from "./api/version.js";

/** How long a graceful stop waits for requests in flight before closing connections. */
const DRAIN_TIMEOUT_MS = 10_000;

export interface ServiceOptions {
  env: Env;
  clock?: Clock;
  /** Tests: shard workers take their time from `clock`; call `publishTime()` after moving it. */
  controlledClock?: boolean;
  log?: LogFn;
  /** A shard or the identity log lost durability. Default: log and exit with status 1. */
  onFatal?: (message: string) => void;
  workerSource?: ShardWorkerSource;
  cwd?: string;
  /** The data directory's lock, when the caller took it already (main.ts does, before loading the rest). */
  lock?: DataDirLock;
}

export interface RunningService {
  readonly config: ServiceConfig;
  readonly port: number;
  /** `http://host:port` (or https). */
  readonly url: string;
  /** The embedded default's runtime, or a cluster node's. */
  readonly runtime: MarketRuntime | ClusterRuntime;
  readonly identity: IdentityStore;
  readonly auth: AuthService;
  readonly api: MarketApi;
  readonly mcp: McpEndpoint;
  /** The live market event streams of this node (docs/events.md). */
  readonly events: EventHub;
  readonly metrics: ServiceMetrics;
  /** Every route the server answers (method + uWS pattern), for the OpenAPI consistency check. */
  readonly routes: ReadonlyArray<{ method: string; pattern: string }>;
  /**
   * Signs audit log heads with the configured key (AUDIT_SIGNING_KEY_FILE, or the quick-start key).
   * Shard workers get it through auditSignerWorkerData (engine/audit/signing/audit-signer.ts).
   */
  readonly auditSigner: AuditSigner;
  /** The published key history (GET /v1/audit/keys), the signer's key last. */
  readonly auditKeyHistory: KeyHistory;
  /** Set on the first start without configured HMAC secrets: how to use the generated operator. */
  readonly bootstrapNotice: string | undefined;
  /** Controlled clock: tell the shards the clock's time (fires due deadlines). */
  publishTime(): void;
  close(): Promise<void>;
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const config = loadServiceConfig(options.env, options.cwd);
  const clock = options.clock ?? systemClock;
  const pinoLogger = options.log === undefined ? createPinoLogger(config.logLevel) : undefined;
  const log = options.log ?? logFnOf(pinoLogger as NonNullable<typeof pinoLogger>);
  const flushLogs = () => pinoLogger?.flush();
  // Before anything in the directory is read or written: one process per data directory.
  const lock = options.lock ?? (await lockDataDir(config.dataDir, "serve", clock.nowMs()));
  try {
    return await startLocked(options, config, { clock, log, flushLogs, lock });
  } catch (error) {
    lock.release();
    throw error;
  }
}

interface Basics {
  clock: Clock;
  log: LogFn;
  flushLogs: () => void;
  lock: DataDirLock;
}

async function startLocked(options: ServiceOptions, config: ServiceConfig, basics: Basics): Promise<RunningService> {
  const { clock, log, flushLogs, lock } = basics;
  const onFatal = options.onFatal ?? exitOnFatal(log, flushLogs);
  // First: a key the service must not sign with stops it before it touches anything else.
  const auditKeys = loadAuditKeys(config);
  logAuditKeys(log, auditKeys);
  // Cluster mode: NATS first (a node that cannot reach it exits naming the URLs), then the layout.
  // Loaded only in cluster mode: the embedded default never loads the NATS client.
  const clusterNode = config.cluster === undefined ? undefined : await import("./cluster-node.js");
  const cluster: ClusterConnection | undefined = config.cluster === undefined ? undefined : await clusterNode?.joinCluster(config.cluster, clock, auditKeys, log);
  // Cluster mode publishes the cluster's key history (the same on every node), checked against this node's key.
  const auditKeyHistory = cluster?.auditKeyHistory ?? auditKeys.history;
  const shards = cluster?.layout.partitions ?? shardCountFor(config.dataDir, config.shards, config.defaultShards);
  const authConfig = loadAuthConfig(options.env, config.dataDir);
  logConfiguration(log, config, shards, authConfig);
  if (config.acceptUnsignedTails.length > 0) {
    log("warn", "AUDIT_ACCEPT_UNSIGNED_TAIL is set: a log whose unsigned tail it names starts without a verified head over that tail", { tails: config.acceptUnsignedTails });
  }
  const idempotency = new IdempotencyIndex();
  // Cluster mode: challenges live in the cluster's KV bucket, so any node redeems what any node issued.
  const challenges = cluster === undefined || clusterNode === undefined ? undefined : await clusterNode.openChallengeStore(cluster, authConfig.maxChallenges);
  const identity = await IdentityStore.open({
    dir: path.join(config.dataDir, "identity"),
    clock,
    idempotency,
    isOperator: operatorCheck(authConfig),
    // Cluster mode: one identity log for the cluster, followed and appended to by every node.
    ...(cluster === undefined || clusterNode === undefined ? {} : { openJournal: clusterNode.identityJournalOpener(cluster) }),
  });
  // Cluster mode: what another node wrote a moment ago (a token, an identity) is looked up again once caught up.
  const catchUp = cluster === undefined ? undefined : new IdentityCatchUp(identity);
  const auth = new AuthService(authConfig, identity, {
    ...(challenges === undefined ? {} : { challenges }),
    ...(catchUp === undefined ? {} : { catchUp: () => catchUp.wait() }),
  });
  const readiness = new Readiness();
  const late: LateParts = {};
  const metrics = serviceMetrics(late, idempotency, auth, identity);
  const routes = serviceRoutes(readiness, late, { auth, clock, identity, metrics, adminMounted: auth.operatorsConfigured(), catchUp, auditKeyHistory });
  let server: HttpServer;
  let port: number;
  try {
    server = createServiceServer(config, routes, log, metrics);
    // Listening before recovery: /livez answers (and every other route 503s) while logs replay.
    port = await server.listen(config.host, config.port);
  } catch (error) {
    await identity.close();
    await cluster?.messaging.close();
    throw error;
  }
  let liveRuntime: MarketRuntime | ClusterRuntime;
  try {
    const heads: ShardHeadsSpec | undefined =
      config.auditHeads === undefined
        ? undefined
        : { signer: auditSignerWorkerData(auditKeys.signer), ...config.auditHeads, publicKeys: historyPublicKeys(auditKeyHistory), acceptUnsignedTails: config.acceptUnsignedTails };
    const parts = { shards, clock, idempotency, onFatal, metrics, log, heads };
    liveRuntime =
      cluster === undefined || clusterNode === undefined
        ? await openRuntime(options, config, parts)
        : await clusterNode.openClusterRuntime(cluster, clusterParts(options, config, parts));
  } catch (error) {
    server.close();
    await identity.close();
    await cluster?.messaging.close();
    throw error;
  }
  const { api, mcp, events } = openApis(late, liveRuntime, auth, clock, config, log);
  readiness.ready(() => liveRuntime.notAcceptingShards());
  const url = serviceUrl(config, port);
  log("info", "listening", { url, dataDir: config.dataDir, shards, tls: config.tlsCertFile !== undefined });
  const close = closeOnce({ readiness, server, runtime: liveRuntime, events, identity, lock, log, flushLogs, ...(cluster === undefined ? {} : { nats: cluster.messaging }) });
  return {
    config,
    port,
    url,
    runtime: liveRuntime,
    identity,
    auth,
    api,
    mcp,
    events,
    metrics,
    routes: routes.map((route) => ({ method: route.method, pattern: route.pattern })),
    auditSigner: auditKeys.signer,
    auditKeyHistory,
    bootstrapNotice: authConfig.bootstrapNotice,
    publishTime: () => liveRuntime.publishTime(),
    close,
  };
}

/** Default `onFatal`: a shard or the identity log lost durability, so the process must not go on. */
function exitOnFatal(log: LogFn, flushLogs: () => void): (message: string) => void {
  return (message) => {
    log("error", "durability lost: stopping", { reason: message });
    flushLogs();
    process.exit(1);
  };
}

/**
 * The parts that need the recovered runtime. They exist only once it is open; every route that
 * uses them is behind the readiness gate, so no handler reads them before.
 */
interface LateParts {
  runtime?: MarketRuntime | ClusterRuntime;
  api?: MarketApi;
  mcp?: McpEndpoint;
  events?: EventHub;
}

function serviceMetrics(late: LateParts, idempotency: IdempotencyIndex, auth: AuthService, identity: IdentityStore): ServiceMetrics {
  return new ServiceMetrics({
    pendingByShard: () => late.runtime?.pendingByShard() ?? [],
    idempotencyEntries: () => {
      const runtime = late.runtime;
      // A cluster node keeps each owned partition's entries in an index of its own (decision I58).
      return idempotency.size + (runtime !== undefined && "partitionIdempotencyEntries" in runtime ? runtime.partitionIdempotencyEntries : 0);
    },
    recordCache: () => late.runtime?.recordCacheStats ?? { sizeBytes: 0, entries: 0 },
    proofCache: () => late.runtime?.proofCacheStats ?? emptyProofCacheStats(),
    ...(auth.outstandingChallenges === undefined ? {} : { outstandingChallenges: () => auth.outstandingChallenges ?? 0 }),
    tokensKept: () => identity.state.tokens.size,
    clusterPartitions: () => {
      const runtime = late.runtime;
      return runtime !== undefined && "partitionViews" in runtime ? runtime.partitionViews() : [];
    },
    clusterSent: () => {
      const runtime = late.runtime;
      return runtime !== undefined && "forwardingCounts" in runtime ? runtime.forwardingCounts() : undefined;
    },
  });
}

/** The parts every route can use from the start. */
interface EarlyParts {
  auth: AuthService;
  clock: Clock;
  identity: IdentityStore;
  metrics: ServiceMetrics;
  adminMounted: boolean;
  /** Cluster mode (identities arrive from other nodes): how a refused request catches up with them. */
  catchUp: IdentityCatchUp | undefined;
  auditKeyHistory: KeyHistory;
}

/** Every route: the health routes and the live page's static files always answer, the others only once the service is ready. */
function serviceRoutes(readiness: Readiness, late: LateParts, early: EarlyParts): HttpRoute[] {
  const parts = {
    ...early,
    get api(): MarketApi {
      return opened(late.api);
    },
    get mcp(): McpEndpoint {
      return opened(late.mcp);
    },
    get events(): EventHub {
      return opened(late.events);
    },
  };
  const gated = [...authRoutes(parts), ...identityRoutes(parts), ...marketRoutes(parts), ...eventRoutes(parts), ...mcpRoutes(parts), ...operationsRoutes(parts), ...auditRoutes(early.auditKeyHistory), ...auditLogRoutes(parts)];
  // Cluster mode: a token another node just issued is checked again once this node has caught up.
  const retry = early.catchUp === undefined ? (route: HttpRoute) => route : retryUnknownTokens(early.catchUp);
  return [...healthRoutes(readiness), ...pageRoutes(), ...gated.map((route) => readiness.gate(retry(route)))];
}

/** The HTTP server, with one access-log line and the metrics for every response. */
function createServiceServer(config: ServiceConfig, routes: HttpRoute[], log: LogFn, metrics: ServiceMetrics): HttpServer {
  return createHttpServer({
    routes,
    log,
    onResponse: (info) => {
      metrics.observeResponse(info);
      const fields: Record<string, unknown> = { requestId: info.requestId, method: info.method, route: info.route, status: info.status, latencyMs: Math.round(info.durationMs * 1000) / 1000 };
      if (info.aborted) fields["aborted"] = true;
      // A reply written but dropped with its connection by uWS (docs/http.md): what it was.
      if (info.droppedStatus !== undefined) fields["droppedStatus"] = info.droppedStatus;
      log("info", "request", fields);
    },
    ...(config.tlsCertFile === undefined ? {} : { tlsCertFile: config.tlsCertFile }),
    ...(config.tlsKeyFile === undefined ? {} : { tlsKeyFile: config.tlsKeyFile }),
  });
}

interface RuntimeParts {
  shards: number;
  clock: Clock;
  idempotency: IdempotencyIndex;
  onFatal: (message: string) => void;
  metrics: ServiceMetrics;
  log: LogFn;
  /** Signed heads and receipts (AUDIT_HEADS); undefined: none. */
  heads: ShardHeadsSpec | undefined;
}

/** Opens the market runtime (recovers every shard from its log) and logs what was recovered. */
async function openRuntime(options: ServiceOptions, config: ServiceConfig, parts: RuntimeParts): Promise<MarketRuntime> {
  const { shards, clock, idempotency, onFatal, metrics, log } = parts;
  const recovered = await MarketRuntime.open({
    dataDir: config.dataDir,
    shardCount: shards,
    clock,
    controlledClock: options.controlledClock ?? false,
    checkpointEveryCommands: config.checkpointEveryCommands,
    checkpointEverySeconds: config.checkpointEverySeconds,
    proofCacheBytes: config.proofCacheBytes,
    idempotency,
    onFatal,
    onBatch: (shardIndex, stats) => metrics.observeBatch(shardIndex, stats),
    ...(options.workerSource === undefined ? {} : { workerSource: options.workerSource }),
    ...(parts.heads === undefined ? {} : { heads: parts.heads }),
  });
  for (const shard of recovered.recovery.shards) {
    const accepted = shard.acceptedUnsignedTail;
    if (accepted !== undefined) log("warn", "unsigned tail accepted (AUDIT_ACCEPT_UNSIGNED_TAIL): recorded in the log by a signed head", { shard: shard.shardIndex, ...accepted });
  }
  log("info", "recovered", {
    shards,
    headsChecked: recovered.recovery.shards.reduce((sum, s) => sum + s.headsChecked, 0),
    markets: recovered.recovery.shards.reduce((sum, s) => sum + s.markets, 0),
    commandsReplayed: recovered.recovery.shards.reduce((sum, s) => sum + s.framesReplayed, 0),
    idempotencyEntries: recovered.recovery.idempotencyEntries,
    elapsedMs: recovered.recovery.elapsedMs,
  });
  return recovered.runtime;
}

/** What the cluster runtime takes from the service's parts. */
function clusterParts(options: ServiceOptions, config: ServiceConfig, parts: RuntimeParts): ClusterRuntimeParts {
  return {
    clock: parts.clock,
    controlledClock: options.controlledClock ?? false,
    idempotency: parts.idempotency,
    checkpointEverySeconds: config.checkpointEverySeconds,
    proofCacheBytes: config.proofCacheBytes,
    log: parts.log,
    onBatch: (partition, stats) => parts.metrics.observeBatch(partition, stats),
    ...(options.workerSource === undefined ? {} : { workerSource: options.workerSource }),
    ...(parts.heads === undefined ? {} : { heads: parts.heads }),
  };
}

/** The market API and the MCP endpoint over the open runtime, made reachable to the routes. */
function openApis(
  late: LateParts,
  runtime: MarketRuntime | ClusterRuntime,
  auth: AuthService,
  clock: Clock,
  config: ServiceConfig,
  log: LogFn,
): { api: MarketApi; mcp: McpEndpoint; events: EventHub } {
  const api = new MarketApi({ runtime, auth, clock });
  const events = new EventHub(runtime, { keepAliveMs: config.eventsKeepAliveMs, subscriberBufferBytes: config.eventsSubscriberBufferBytes, log });
  const mcp = new McpEndpoint({
    api,
    version: SERVICE_VERSION,
    responseMode: config.mcpResponseMode,
    onError: (error) => log("error", "mcp tool failed", { error: error instanceof Error ? error.message : String(error) }),
  });
  late.runtime = runtime;
  late.api = api;
  late.mcp = mcp;
  late.events = events;
  return { api, mcp, events };
}

/** `http://host:port` (or https); an IPv6 host in brackets. */
function serviceUrl(config: ServiceConfig, port: number): string {
  const scheme = config.tlsCertFile === undefined ? "http" : "https";
  const hostInUrl = config.host.includes(":") ? `[${config.host}]` : config.host;
  return `${scheme}://${hostInUrl}:${port}`;
}

interface OpenParts {
  readiness: Readiness;
  server: HttpServer;
  runtime: MarketRuntime | ClusterRuntime;
  /** Live event streams: ended (event: end) before the server waits for requests in flight. */
  events: EventHub;
  /** Cluster mode: the node's NATS connection, closed last. */
  nats?: Messaging;
  identity: IdentityStore;
  lock: DataDirLock;
  log: LogFn;
  flushLogs: () => void;
}

/** `close()` of the running service: the graceful stop, run once however often it is called. */
function closeOnce(parts: OpenParts): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= stop(parts);
    return closing;
  };
}

/**
 * Graceful: refuse new requests (503) and stop accepting connections, let requests in flight
 * finish (bounded), then drain the shards (their inboxes are answered), snapshot, close the logs,
 * and only then give up the data directory.
 */
async function stop({ readiness, server, runtime, events, identity, lock, log, flushLogs, nats }: OpenParts): Promise<void> {
  readiness.stopping();
  server.stopListening();
  // Open streams never finish by themselves: they end now, each with `event: end` (shutting_down).
  events.close();
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (server.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  if (server.inFlight > 0) log("warn", "stopping with requests still in flight", { inFlight: server.inFlight });
  server.close();
  await runtime.close();
  await identity.close();
  await nats?.close();
  lock.release();
  log("info", "stopped", {});
  flushLogs();
}

function opened<T>(part: T | undefined): T {
  if (part === undefined) throw new Error("the market runtime is not open yet (a route bypassed the readiness gate)");
  return part;
}

/** Which key signs (its id and file, never the key), and the quick-start warning at every start. */
function logAuditKeys(log: LogFn, keys: AuditKeys): void {
  if (keys.warning !== undefined) log("warn", keys.warning, { keyFile: keys.keyFile });
  log("info", "audit signing key", { keyId: keys.signer.keyId, keyFile: keys.keyFile, historyKeys: keys.history.keys.length });
}

/** The effective configuration, secrets reduced to who has one. */
function logConfiguration(log: LogFn, config: ServiceConfig, shards: number, authConfig: AuthConfig): void {
  log("info", "configuration", {
    host: config.host,
    port: config.port,
    dataDir: config.dataDir,
    shards,
    tls: config.tlsCertFile !== undefined,
    logLevel: config.logLevel,
    checkpointEveryCommands: config.checkpointEveryCommands,
    checkpointEverySeconds: config.checkpointEverySeconds,
    mcpResponseMode: config.mcpResponseMode,
    challengeTtlSeconds: authConfig.challengeTtlSeconds,
    tokenTtlSeconds: authConfig.tokenTtlSeconds,
    audience: authConfig.audience,
    hmacClockSkewSeconds: authConfig.hmacClockSkewSeconds,
    hmacActors: [...authConfig.hmacSecrets.keys()],
    staticMcpTokens: authConfig.staticMcpTokenHashes.size,
    operators: [...authConfig.operatorActors],
  });
}
