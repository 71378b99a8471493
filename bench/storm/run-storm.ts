/**
 * Claim-storm benchmark (issue 7). `npm run bench:storm [-- --participants 20000 --seconds 10 --connections 64]`
 *
 * Starts the real service the way a user runs it (built output, durable: every reply after its
 * fdatasync, default shard count, fresh data dir on the repository's disk), provisions participants
 * through the real API (HMAC admin + Ed25519 challenge → bearer token each), runs the floor (a no-op
 * uWS server) and then each storm with the same driver (wrk + claims.lua, one token and a fresh
 * commandId per request), verifies the outcome from the service itself, and writes
 * bench/results/<date>-storm.json. A run that fails a check reports the failure, not a number.
 */
import canonicalize from "canonicalize";
import { createHash, randomBytes } from "node:crypto";
import { execSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, release, totalmem } from "node:os";
import * as path from "node:path";
import { ServiceClient, type IdentityFile } from "../../gateway/client/service-client.js";
import { REPO, requireWrk, runWrk, startFloor, startService, type WrkResult } from "./processes.js";

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}
const PARTICIPANTS = arg("participants", 20_000);
const SECONDS = arg("seconds", 10);
const CONNECTIONS = arg("connections", 64);
const THREADS = arg("threads", 1);
const PORT = arg("port", 18_181);
const WORK = path.join(REPO, ".tmp", "storm");

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
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

async function provisionParticipants(client: ServiceClient, operator: { actorId: string; secret: string }, count: number): Promise<Array<{ principalId: string; token: string }>> {
  const started = performance.now();
  const ids = Array.from({ length: count }, (_, i) => `participant-${String(i).padStart(6, "0")}`);
  const out: Array<{ principalId: string; token: string }> = new Array(count);
  await pool(ids, 64, async (principalId, index) => {
    const identity: IdentityFile = await client.provision(operator, { principalId });
    const grant = await client.token(identity);
    out[index] = { principalId, token: grant.accessToken };
  });
  process.stderr.write(`provisioned ${count} participants with bearer tokens in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return out;
}

async function createMarket(client: ServiceClient, token: string, marketId: string, capacity: number): Promise<void> {
  const auth = { kind: "bearer" as const, token };
  const created = await client.request("POST", "/v1/markets", {
    commandId: `create-${marketId}`,
    marketId,
    principalId: "storm-creator",
    subject: { schema: "table-booking.v1", data: { venue: "Harbour", seats: 4 } },
    mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
  }, auth);
  if (created.status !== 201) throw new Error(`create ${marketId}: ${created.status} ${created.text}`);
  const published = await client.request("POST", `/v1/markets/${marketId}/publish`, { commandId: `publish-${marketId}`, principalId: "storm-creator", expectedVersion: 1 }, auth);
  if (published.status !== 200) throw new Error(`publish ${marketId}: ${published.status} ${published.text}`);
}

function statusCount(result: WrkResult, status: number): number {
  return result.statuses[String(status)] ?? 0;
}

/** Verify a storm from the service: allocation, the record (every request), its hash, no 5xx, no errors. */
async function verifyStorm(client: ServiceClient, token: string, marketId: string, capacity: number, participants: number, result: WrkResult): Promise<Check[]> {
  const checks: Check[] = [];
  const accepted = statusCount(result, 200);
  const fiveHundreds = Object.entries(result.statuses).filter(([s]) => Number(s) >= 500).reduce((sum, [, n]) => sum + n, 0);
  checks.push({ name: "no 5xx", ok: fiveHundreds === 0, detail: `${fiveHundreds} responses ≥ 500` });
  const errors = result.connectErrors + result.readErrors + result.writeErrors + result.timeouts;
  checks.push({ name: "no connection errors", ok: errors === 0, detail: `connect ${result.connectErrors}, read ${result.readErrors}, write ${result.writeErrors}, timeout ${result.timeouts}` });
  const market = await client.request("GET", `/v1/markets/${marketId}`, undefined, { kind: "bearer", token });
  const allocated = market.body?.mechanismState?.allocated as number;
  checks.push({ name: "accepted = min(capacity, participants)", ok: accepted === Math.min(capacity, participants), detail: `accepted ${accepted}, capacity ${capacity}, participants ${participants}` });
  checks.push({ name: "allocated matches accepted", ok: allocated === accepted, detail: `allocated ${allocated}` });
  const record = await client.request("GET", `/v1/markets/${marketId}/record`, undefined, { kind: "bearer", token });
  if (record.status !== 200) {
    checks.push({ name: "record readable", ok: false, detail: `${record.status} ${record.text.slice(0, 200)}` });
    return checks;
  }
  const claims = (record.body.commands as Array<{ type: string; status: string }>).filter((c) => c.type === "direct_claim.submit");
  const answered = Object.values(result.statuses).reduce((a, b) => a + b, 0);
  // wrk stops counting at the deadline; up to one request per connection may still have been in flight.
  const inRecord = claims.length;
  checks.push({
    name: "record holds every request sent",
    ok: inRecord >= answered && inRecord <= answered + CONNECTIONS,
    detail: `${inRecord} claims recorded, ${answered} answered to the driver (+ ≤ ${CONNECTIONS} in flight at the deadline)`,
  });
  const acceptedInRecord = claims.filter((c) => c.status === "accepted").length;
  checks.push({ name: "record's accepted claims = allocated", ok: acceptedInRecord === allocated, detail: `${acceptedInRecord}` });
  const { integrity, ...view } = record.body as { integrity: { recordHash: string; stateReconstructed: boolean } };
  const recomputed = `sha256:${createHash("sha256").update(canonicalize(view) ?? "", "utf8").digest("hex")}`;
  checks.push({ name: "recordHash verifies (RFC 8785 + SHA-256, independent)", ok: recomputed === integrity.recordHash, detail: integrity.recordHash });
  checks.push({ name: "stateReconstructed", ok: integrity.stateReconstructed, detail: String(integrity.stateReconstructed) });
  return checks;
}

function machine(): Record<string, unknown> {
  let disk = "unknown";
  try {
    disk = execSync(`df -T ${JSON.stringify(REPO)} | tail -1`, { encoding: "utf8" }).trim().replace(/\s+/g, " ");
  } catch {
    // best effort
  }
  return { cores: availableParallelism(), cpu: cpus()[0]?.model ?? "?", memoryBytes: totalmem(), node: process.version, kernel: release(), disk };
}

async function main(): Promise<void> {
  requireWrk();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  const service = await startService(
    {
      DATA_DIR: path.join(WORK, "data"),
      SERVICE_HMAC_SECRETS: `operator=${secret}`,
      SERVICE_OPERATOR_ACTORS: "operator",
      AUTH_TOKEN_TTL: "3600",
    },
    PORT,
  );
  const report: Record<string, unknown> = { date: new Date().toISOString(), machine: machine(), settings: { participants: PARTICIPANTS, seconds: SECONDS, connections: CONNECTIONS, threads: THREADS } };
  const allChecks: Array<Check & { scenario: string }> = [];
  try {
    const client = new ServiceClient(service.url);
    const operator = { actorId: "operator", secret };
    const creator = await client.provision(operator, { principalId: "storm-creator" });
    const creatorToken = (await client.token(creator)).accessToken;
    const participants = await provisionParticipants(client, operator, PARTICIPANTS);
    const tokensFile = path.join(WORK, "tokens.txt");
    writeFileSync(tokensFile, participants.map((p) => `${p.principalId} ${p.token}`).join("\n"));

    const floor = await startFloor(PORT + 1);
    const floorPaths = path.join(WORK, "floor-paths.txt");
    writeFileSync(floorPaths, "/claim\n");
    let floorResult: WrkResult;
    try {
      floorResult = await runWrk({ url: floor.url, path: "/", threads: THREADS, connections: CONNECTIONS, durationSeconds: SECONDS, env: { STORM_TOKENS: tokensFile, STORM_PATHS: floorPaths } });
    } finally {
      await floor.stop();
    }
    report["floor"] = floorResult;
    process.stderr.write(`floor: ${Math.round(floorResult.requestsPerSecond)} req/s, p99 ${floorResult.latencyUs.p99} µs\n`);

    const only = process.argv.includes("--only") ? [arg("only", 1_000)] : undefined;
    for (const capacity of only ?? [1_000, PARTICIPANTS]) {
      const scenario = `P1 capacity ${capacity}`;
      const marketId = `hot-${capacity}`;
      await createMarket(client, creatorToken, marketId, capacity);
      const pathsFile = path.join(WORK, `${marketId}.txt`);
      writeFileSync(pathsFile, `/v1/markets/${marketId}/direct-claims\n`);
      const peak = await runWrk({ url: service.url, path: "/", threads: THREADS, connections: CONNECTIONS, durationSeconds: SECONDS, env: { STORM_TOKENS: tokensFile, STORM_PATHS: pathsFile } });
      const checks = await verifyStorm(client, creatorToken, marketId, capacity, PARTICIPANTS, peak);
      allChecks.push(...checks.map((c) => ({ ...c, scenario })));
      // p99 at half the peak rate, on a fresh market of the same kind.
      const halfId = `${marketId}-half`;
      await createMarket(client, creatorToken, halfId, capacity);
      const halfPaths = path.join(WORK, `${halfId}.txt`);
      writeFileSync(halfPaths, `/v1/markets/${halfId}/direct-claims\n`);
      const rate = Math.round(peak.requestsPerSecond / 2);
      const half = await runWrk({ url: service.url, path: "/", threads: THREADS, connections: CONNECTIONS, durationSeconds: SECONDS, env: { STORM_TOKENS: tokensFile, STORM_PATHS: halfPaths, STORM_RATE: String(rate), STORM_CONNECTIONS: String(CONNECTIONS) } });
      report[scenario] = { peak, halfRate: { offeredPerSecond: rate, ...half }, ratioToFloor: peak.requestsPerSecond / floorResult.requestsPerSecond, checks };
      process.stderr.write(
        `${scenario}: ${Math.round(peak.requestsPerSecond)} req/s (${(peak.requestsPerSecond / floorResult.requestsPerSecond).toFixed(2)} × floor), ` +
          `p50 ${peak.latencyUs.p50} µs, p99 ${peak.latencyUs.p99} µs, p99.9 ${peak.latencyUs.p999} µs; at ${rate}/s: p99 ${half.latencyUs.p99} µs; ` +
          `checks ${checks.every((c) => c.ok) ? "passed" : "FAILED"}\n`,
      );
      for (const c of checks.filter((x) => !x.ok)) process.stderr.write(`  FAILED ${c.name}: ${c.detail}\n`);
    }
  } finally {
    const code = await service.stop();
    report["serviceExit"] = code;
    if (code !== 0) process.stderr.write(`service exited with ${code}: ${service.stderr().slice(-2000)}\n`);
  }
  report["passed"] = allChecks.every((c) => c.ok);
  const resultsDir = path.join(REPO, "bench", "results");
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${new Date().toISOString().slice(0, 10)}-storm.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`report: ${path.relative(REPO, file)}\n`);
  rmSync(WORK, { recursive: true, force: true });
  if (report["passed"] !== true) process.exitCode = 1;
}

await main();
