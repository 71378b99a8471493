/**
 * The whole service in one process: configuration, the identity store and authentication (gateway
 * thread), the market runtime (shard workers), the market API shared by the transports, and the
 * uWebSockets.js HTTP server. `npm start` (main.ts) and the tests both start it through here.
 */
import * as path from "node:path";
import { loadAuthConfig } from "./auth/config.js";
import { AuthService, operatorCheck } from "./auth/service.js";
import { systemClock, type Clock } from "./clock.js";
import { loadServiceConfig, type Env, type ServiceConfig } from "./config.js";
import { createHttpServer, type HttpServer } from "./http/server.js";
import type { LogFn } from "./http/log.js";
import { IdempotencyIndex } from "./idempotency/index.js";
import { IdentityStore } from "./identity/store.js";
import { createPinoLogger, logFnOf } from "./logger.js";
import { ServiceMetrics } from "./metrics.js";
import { operationsRoutes } from "./routes/operations-routes.js";
import type { HttpRoute } from "./http/route.js";
import { MarketApi } from "./market-api.js";
import { authRoutes } from "./routes/auth-routes.js";
import { healthRoutes } from "./routes/health-routes.js";
import { identityRoutes } from "./routes/identity-routes.js";
import { marketRoutes } from "./routes/market-routes.js";
import { mcpRoutes } from "./routes/mcp-routes.js";
import { McpEndpoint } from "./mcp/mcp-endpoint.js";
import { MarketRuntime } from "./runtime/market-runtime.js";
import type { ShardWorkerSource } from "./runtime/shard-host.js";
import { mkdirSync } from "node:fs";
import { SERVICE_VERSION } from "./version.js";

export { SERVICE_VERSION } from "./version.js";

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
}

export interface RunningService {
  readonly config: ServiceConfig;
  readonly port: number;
  /** `http://host:port` (or https). */
  readonly url: string;
  readonly runtime: MarketRuntime;
  readonly identity: IdentityStore;
  readonly auth: AuthService;
  readonly api: MarketApi;
  readonly mcp: McpEndpoint;
  readonly metrics: ServiceMetrics;
  /** Every route the server answers (method + uWS pattern), for the OpenAPI consistency check. */
  readonly routes: ReadonlyArray<{ method: string; pattern: string }>;
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
  const onFatal =
    options.onFatal ??
    ((message: string) => {
      log("error", "durability lost: stopping", { reason: message });
      flushLogs();
      process.exit(1);
    });
  mkdirSync(config.dataDir, { recursive: true });
  const authConfig = loadAuthConfig(options.env, config.dataDir);
  // The effective configuration, secrets reduced to who has one.
  log("info", "configuration", {
    host: config.host,
    port: config.port,
    dataDir: config.dataDir,
    shards: config.shards,
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
  const idempotency = new IdempotencyIndex();
  const identity = IdentityStore.open({
    dir: path.join(config.dataDir, "identity"),
    clock,
    idempotency,
    isOperator: operatorCheck(authConfig),
  });
  const auth = new AuthService(authConfig, identity);
  let runtime: MarketRuntime;
  // Created once the runtime exists (it samples it); batches before that are not counted.
  let metrics: ServiceMetrics | undefined;
  try {
    const opened = await MarketRuntime.open({
      dataDir: config.dataDir,
      shardCount: config.shards,
      clock,
      controlledClock: options.controlledClock ?? false,
      checkpointEveryCommands: config.checkpointEveryCommands,
      checkpointEverySeconds: config.checkpointEverySeconds,
      idempotency,
      onFatal,
      onBatch: (shardIndex, stats) => metrics?.observeBatch(shardIndex, stats),
      ...(options.workerSource === undefined ? {} : { workerSource: options.workerSource }),
    });
    runtime = opened.runtime;
    log("info", "recovered", {
      shards: config.shards,
      markets: opened.recovery.shards.reduce((sum, s) => sum + s.markets, 0),
      commandsReplayed: opened.recovery.shards.reduce((sum, s) => sum + s.framesReplayed, 0),
      idempotencyEntries: opened.recovery.idempotencyEntries,
      elapsedMs: opened.recovery.elapsedMs,
    });
  } catch (error) {
    identity.close();
    throw error;
  }
  const liveRuntime = runtime;
  metrics = new ServiceMetrics({
    pendingByShard: () => liveRuntime.pendingByShard(),
    idempotencyEntries: () => idempotency.size,
    recordCache: () => liveRuntime.recordCacheStats,
    outstandingChallenges: () => auth.outstandingChallenges,
    tokensKept: () => identity.state.tokens.size,
  });
  const serviceMetrics = metrics;
  const api = new MarketApi({ runtime, auth, clock });
  const mcp = new McpEndpoint({
    api,
    version: SERVICE_VERSION,
    responseMode: config.mcpResponseMode,
    onError: (error) => log("error", "mcp tool failed", { error: error instanceof Error ? error.message : String(error) }),
  });
  const parts = { auth, clock, identity, api, mcp, metrics: serviceMetrics, adminMounted: auth.operatorsConfigured() };
  const routes: HttpRoute[] = [
    ...healthRoutes(),
    ...authRoutes(parts),
    ...identityRoutes(parts),
    ...marketRoutes(parts),
    ...mcpRoutes(parts),
    ...operationsRoutes(parts),
  ];
  let server: HttpServer;
  let port: number;
  try {
    server = createHttpServer({
      routes,
      log,
      onResponse: (info) => {
        serviceMetrics.observeResponse(info);
        log("info", "request", {
          requestId: info.requestId,
          method: info.method,
          route: info.route,
          status: info.status,
          latencyMs: Math.round(info.durationMs * 1000) / 1000,
          ...(info.aborted ? { aborted: true } : {}),
        });
      },
      ...(config.tlsCertFile === undefined ? {} : { tlsCertFile: config.tlsCertFile }),
      ...(config.tlsKeyFile === undefined ? {} : { tlsKeyFile: config.tlsKeyFile }),
    });
    port = await server.listen(config.host, config.port);
  } catch (error) {
    await runtime.close();
    identity.close();
    throw error;
  }
  const scheme = config.tlsCertFile === undefined ? "http" : "https";
  const hostInUrl = config.host.includes(":") ? `[${config.host}]` : config.host;
  log("info", "listening", { url: `${scheme}://${hostInUrl}:${port}`, dataDir: config.dataDir, shards: config.shards, tls: scheme === "https" });
  let closing: Promise<void> | undefined;
  return {
    config,
    port,
    url: `${scheme}://${hostInUrl}:${port}`,
    runtime,
    identity,
    auth,
    api,
    mcp,
    metrics: serviceMetrics,
    routes: routes.map((route) => ({ method: route.method, pattern: route.pattern })),
    bootstrapNotice: authConfig.bootstrapNotice,
    publishTime: () => runtime.publishTime(),
    close: () => {
      closing ??= (async () => {
        // Graceful: stop accepting, let requests in flight finish (bounded), then drain the
        // shards (their inboxes are answered), snapshot, and close the logs.
        server.stopListening();
        const deadline = Date.now() + DRAIN_TIMEOUT_MS;
        while (server.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        if (server.inFlight > 0) log("warn", "stopping with requests still in flight", { inFlight: server.inFlight });
        server.close();
        await runtime.close();
        identity.close();
        log("info", "stopped", {});
        flushLogs();
      })();
      return closing;
    },
  };
}
