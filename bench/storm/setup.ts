/**
 * What every storm needs before the load: a fresh service (started as a user runs it), participants
 * provisioned through the real API (HMAC admin + Ed25519 challenge → one bearer token each, written
 * to a tokens file for the driver), and open direct-claim markets. Shared by the storm (run-storm.ts),
 * the ceiling (ceiling.ts) and the record-read bench.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { MarketClient } from "@market-service/client";
import { runWrk, startService, transportFailures, type Started } from "./processes.js";

export interface Setup {
  url: string;
  client: MarketClient;
  creatorToken: string;
  /** One "principalId token" pair per line (bench/storm/claims.lua reads it). */
  tokensFile: string;
  participants: number;
  /** The service's METRICS_TOKEN: GET /metrics is not public (docs/decisions.md T10). */
  metricsToken: string;
  /** The service process (its pid lets the ceiling read the service's CPU from /proc). */
  service: Started;
  stop: () => Promise<number | null>;
}

/** Runs `work` over `items` with at most `concurrency` in flight. */
export async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const index = next++;
        if (index >= items.length) return;
        await work(items[index] as T, index);
      }
    }),
  );
}

/** A fresh service in `workDir/label` with `participants` provisioned identities holding bearer tokens. */
export async function setUpService(options: {
  workDir: string;
  label: string;
  participants: number;
  port: number;
  env?: Record<string, string>;
  /** Another build's directory to run instead of `dist/` (processes.ts startService). */
  dist?: string;
  /** Node flags for the service (e.g. a CPU profile). */
  nodeArgs?: readonly string[];
  /** Where the service's log goes (else nowhere): set LOG_LEVEL in `env` for what it holds. */
  stdoutFile?: string;
}): Promise<Setup> {
  const { workDir, label, participants, port } = options;
  const dir = path.join(workDir, label);
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  const metricsToken = randomBytes(32).toString("base64url");
  const service = await startService(
    { DATA_DIR: path.join(dir, "data"), SERVICE_HMAC_SECRETS: `operator=${secret}`, SERVICE_OPERATOR_ACTORS: "operator", AUTH_TOKEN_TTL: "3600", METRICS_TOKEN: metricsToken, ...options.env },
    port,
    options.nodeArgs,
    options.dist,
    options.stdoutFile,
  );
  const client = new MarketClient({ baseUrl: service.url });
  const operator = { actorId: "operator", secret };
  const creator = await client.provisionNewIdentity({ principalId: "storm-creator" }, { credentials: { kind: "hmac", ...operator } });
  const creatorToken = (await client.signIn(creator)).accessToken;
  const started = performance.now();
  const lines: string[] = new Array(participants);
  await pool(
    Array.from({ length: participants }, (_, i) => `participant-${String(i).padStart(6, "0")}`),
    64,
    async (principalId, index) => {
      const identity = await client.provisionNewIdentity({ principalId }, { credentials: { kind: "hmac", ...operator } });
      lines[index] = `${principalId} ${(await client.signIn(identity)).accessToken}`;
    },
  );
  process.stderr.write(`[${label}] provisioned ${participants} participants with bearer tokens in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  const tokensFile = path.join(dir, "tokens.txt");
  writeFileSync(tokensFile, lines.join("\n"));
  return { url: service.url, client, creatorToken, tokensFile, participants, metricsToken, service, stop: () => service.stop() };
}

/** Creates and publishes a direct-claim.v1 market (confirmation none) as the storm's creator. */
export async function createMarket(setup: Pick<Setup, "client" | "creatorToken">, marketId: string, capacity: number): Promise<void> {
  const auth = { kind: "bearer" as const, token: setup.creatorToken };
  const created = await setup.client.request("POST", "/v1/markets", {
    body: {
      commandId: `create-${marketId}`,
      marketId,
      principalId: "storm-creator",
      subject: { schema: "table-booking.v1", data: { venue: "Harbour", seats: 4 } },
      mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
    },
    credentials: auth,
  });
  if (created.status !== 201) throw new Error(`create ${marketId}: ${created.status} ${created.text}`);
  const published = await setup.client.request("POST", `/v1/markets/${marketId}/publish`, { body: { commandId: `publish-${marketId}`, principalId: "storm-creator", expectedVersion: 1 }, credentials: auth });
  if (published.status !== 200) throw new Error(`publish ${marketId}: ${published.status} ${published.text}`);
}

/** Writes the driver's list of request paths (round-robin) and returns the file. */
export function pathsFile(workDir: string, name: string, paths: readonly string[]): string {
  const file = path.join(workDir, `${name}-paths.txt`);
  writeFileSync(file, `${paths.join("\n")}\n`);
  return file;
}

/** Markets a warm-up spreads its claims over: enough that every shard of a default service gets some. */
const WARM_UP_MARKETS = 16;

/**
 * Claims before a measured run, on markets of their own (capacity half the participants, so both
 * the accepted and the refused path run), same driver and connections. A cold service spends the
 * first seconds of load compiling its claim path (V8's optimizing compiler and GC threads take CPU
 * from the two cores); the floor (a no-op) has nothing to compile, so without a warm-up the ratio
 * would measure JIT start-up, not the service. Not reported; a transport failure during it fails
 * the run.
 */
export async function warmUp(setup: Setup, workDir: string, label: string, seconds: number, connections: number): Promise<void> {
  if (seconds <= 0) return;
  const ids = Array.from({ length: WARM_UP_MARKETS }, (_, i) => `warm-up-${label}-${i}`);
  await pool(ids, 4, (id) => createMarket(setup, id, Math.max(1, Math.floor(setup.participants / 2))));
  const result = await runWrk({
    url: setup.url,
    path: "/",
    threads: 1,
    connections,
    durationSeconds: seconds,
    env: { STORM_TOKENS: setup.tokensFile, STORM_PATHS: pathsFile(workDir, `warm-up-${label}`, ids.map((id) => `/v1/markets/${id}/direct-claims`)) },
  });
  const { fiveHundreds, connectionErrors } = transportFailures(result);
  if (fiveHundreds > 0 || connectionErrors > 0) throw new Error(`warm-up ${label} failed: ${fiveHundreds} responses ≥ 500, ${connectionErrors} connection errors`);
  process.stderr.write(`[${label}] warm-up: ${seconds} s, ${Math.round(result.requestsPerSecond)} req/s (not reported)\n`);
}
