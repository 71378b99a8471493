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
import { createLogger } from "./logger.js";
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

/** The service version (MCP server info, --version). */
export const SERVICE_VERSION = "0.1.0";

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
  /** Set on the first start without configured HMAC secrets: how to use the generated operator. */
  readonly bootstrapNotice: string | undefined;
  /** Controlled clock: tell the shards the clock's time (fires due deadlines). */
  publishTime(): void;
  close(): Promise<void>;
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const config = loadServiceConfig(options.env, options.cwd);
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  const onFatal =
    options.onFatal ??
    ((message: string) => {
      log("error", "durability lost: stopping", { reason: message });
      process.exit(1);
    });
  mkdirSync(config.dataDir, { recursive: true });
  const authConfig = loadAuthConfig(options.env, config.dataDir);
  const idempotency = new IdempotencyIndex();
  const identity = IdentityStore.open({
    dir: path.join(config.dataDir, "identity"),
    clock,
    idempotency,
    isOperator: operatorCheck(authConfig),
  });
  const auth = new AuthService(authConfig, identity);
  let runtime: MarketRuntime;
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
  const api = new MarketApi({ runtime, auth, clock });
  const mcp = new McpEndpoint({
    api,
    version: SERVICE_VERSION,
    responseMode: config.mcpResponseMode,
    onError: (error) => log("error", "mcp tool failed", { error: error instanceof Error ? error.message : String(error) }),
  });
  const parts = { auth, clock, identity, api, mcp };
  let server: HttpServer;
  let port: number;
  try {
    server = createHttpServer({
      routes: [...healthRoutes(), ...authRoutes(parts), ...identityRoutes(parts), ...marketRoutes(parts), ...mcpRoutes(parts)],
      log,
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
    bootstrapNotice: authConfig.bootstrapNotice,
    publishTime: () => runtime.publishTime(),
    close: () => {
      closing ??= (async () => {
        server.close();
        await runtime.close();
        identity.close();
        log("info", "stopped", {});
      })();
      return closing;
    },
  };
}
