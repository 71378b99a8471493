import { Validator } from "@seriousme/openapi-schema-validator";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketClient } from "@market-service/client";
import { ManualClock } from "../../engine/clock.js";
import { startService, type RunningService } from "../../gateway/service.js";
import { CLI_JS, MAIN_JS } from "../process/support.js";
import { envExample, SETTINGS } from "../../gateway/settings.js";
import { loadServiceConfig } from "../../gateway/config.js";
import { ConfigError } from "../../gateway/auth/config-error.js";

const run = promisify(execFile);
const SECRET = "operator-secret-0123456789-abcdefghijklmnop";
const STATIC_TOKEN = "static-mcp-token-0123456789-abcdefghijklmnop";
const METRICS_TOKEN = "metrics-token-0123456789-abcdefghijklmnopqrs";
const lines: string[] = [];
let service: RunningService;
let dataDir: string;
const clock = new ManualClock(Date.parse("2026-05-01T10:00:00Z"));

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "ops-"));
  service = await startService({
    env: { DATA_DIR: dataDir, PORT: "0", SHARDS: "2", LOG_LEVEL: "debug", SERVICE_HMAC_SECRETS: `operator=${SECRET}`, SERVICE_OPERATOR_ACTORS: "operator", MCP_STATIC_TOKENS: `${STATIC_TOKEN}=agent`, METRICS_TOKEN },
    clock,
    controlledClock: true,
    log: (level, msg, fields) => lines.push(JSON.stringify({ level, msg, ...fields })),
    onFatal: (m) => {
      throw new Error(m);
    },
  });
});

afterAll(async () => {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document listing exactly the routes the server answers", async () => {
    const response = await fetch(`${service.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
    const documented = Object.entries(document.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`)).sort();
    const routed = service.routes.map((r) => `${r.method} ${r.pattern.replace(/:([A-Za-z]+)/g, "{$1}")}`).sort();
    expect(documented).toEqual(routed);
  });

  it("describes bodies and responses with the typia schemas", async () => {
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as any;
    const claim = document.paths["/v1/markets/{marketId}/direct-claims"].post;
    expect(claim.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/DirectClaimBody" });
    expect(document.components.schemas.DirectClaimBody.required).toEqual(expect.arrayContaining(["commandId", "principalId"]));
    expect(claim.responses["409"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorBody" });
  });
});

describe("a full lifecycle: metrics and logs", () => {
  it("counts requests by route template and never logs tokens, secrets, private keys or open bid amounts", async () => {
    const client = new MarketClient({ baseUrl: service.url });
    const ts = () => Math.floor(clock.nowMs() / 1000);
    const operator = { actorId: "operator", secret: SECRET, timestampSeconds: ts() };
    const alice = await client.provisionNewIdentity({ principalId: "alice" }, { credentials: { kind: "hmac", ...operator } });
    const bob = await client.provisionNewIdentity({ principalId: "bob" }, { credentials: { kind: "hmac", ...operator, timestampSeconds: ts() } });
    const aliceToken = (await client.signIn(alice)).accessToken;
    const bobToken = (await client.signIn(bob)).accessToken;
    const a = { kind: "bearer" as const, token: aliceToken };
    const b = { kind: "bearer" as const, token: bobToken };
    const closesAt = new Date(clock.nowMs() + 60_000).toISOString();
    const secretMarket = "market-with-a-distinctive-id-777";
    expect((await client.request("POST", "/v1/markets", { body: { commandId: "c1", marketId: secretMarket, principalId: "alice", subject: { schema: "s.v1", data: {} }, mechanism: { presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt, holdDurationSeconds: 60 } } }, credentials: a })).status).toBe(201);
    expect((await client.request("POST", `/v1/markets/${secretMarket}/publish`, { body: { commandId: "c2", principalId: "alice", expectedVersion: 1 }, credentials: a })).status).toBe(200);
    const bidAmount = 918_273_645;
    expect((await client.request("POST", `/v1/markets/${secretMarket}/sealed-bids`, { body: { commandId: "b1", principalId: "bob", amountMinor: bidAmount, currency: "EUR" }, credentials: b })).status).toBe(200);
    expect((await client.request("POST", `/v1/markets/${secretMarket}/sealed-bids`, { body: { commandId: "b2", principalId: "bob", amountMinor: bidAmount + 1, currency: "EUR" }, credentials: b })).status).toBe(409);
    await client.request("GET", `/v1/markets/${secretMarket}/record`, { credentials: a });
    await client.request("POST", "/mcp", { body: { jsonrpc: "2.0", id: 1, method: "tools/list" }, credentials: { kind: "bearer", token: STATIC_TOKEN }, headers: { accept: "application/json, text/event-stream" } });
    await client.request("GET", "/v1/markets/nope", { credentials: { kind: "bearer", token: "wrong-token" } });

    const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toMatch(/market_http_requests_total\{route="\/v1\/markets\/:marketId\/sealed-bids",method="POST",status="200"\} 1/);
    expect(metrics).toMatch(/market_http_requests_total\{route="\/v1\/markets\/:marketId\/sealed-bids",method="POST",status="409"\} 1/);
    expect(metrics).toMatch(/market_http_request_duration_seconds_bucket\{le="0.01",route="\/v1\/markets",method="POST"\}/);
    expect(metrics).toMatch(/market_shard_commit_seconds_count\{shard="\d"\} \d+/);
    expect(metrics).toMatch(/market_shard_markets\{shard="\d"\} 1/);
    expect(metrics).toMatch(/market_process_resident_memory_bytes \d+/);
    // What the service keeps besides its state (bench:soak reads these against its memory).
    expect(metrics).toMatch(/market_shard_reply_cache_entries\{shard="\d"\} [1-9]\d*/);
    expect(metrics).toMatch(/market_shard_reply_cache_chars\{shard="\d"\} [1-9]\d*/);
    // The record read above is short: replayed, not kept (decision I22).
    expect(metrics).toMatch(/market_record_cache_entries 0\n/);
    expect(metrics).toMatch(/market_record_cache_bytes 0\n/);
    expect(metrics).toMatch(/market_auth_challenges_outstanding 0\n/);
    expect(metrics).toMatch(/market_auth_tokens_kept 2\n/);
    expect(metrics).not.toContain(secretMarket);
    expect(metrics).not.toContain(String(bidAmount));

    const log = lines.join("\n");
    expect(log).toContain('"msg":"request"');
    expect(log).toContain('"route":"/v1/markets/:marketId/sealed-bids"');
    for (const secret of [aliceToken, bobToken, SECRET, STATIC_TOKEN, METRICS_TOKEN, alice.privateKey, bob.privateKey, String(bidAmount), String(bidAmount + 1)]) {
      expect(log).not.toContain(secret);
    }
  });
});

describe("GET /metrics is not public (decisions.md T10)", () => {
  const metrics = (headers: Record<string, string> = {}) => fetch(`${service.url}/metrics`, { headers });
  const errorOf = async (response: Response) => ({ status: response.status, body: await response.json() });

  it("refuses a request without credentials, or with a wrong token, as 401 unauthenticated", async () => {
    for (const headers of [{}, { authorization: "Bearer not-the-metrics-token-0123456789-abcdef" }, { authorization: `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString("base64")}` }]) {
      expect(await errorOf(await metrics(headers))).toEqual({ status: 401, body: { error: { code: "unauthenticated", message: "request authentication failed" } } });
    }
  });

  it("serves the metrics token (Prometheus' bearer credential) and an operator's HMAC-signed request", async () => {
    const withToken = await metrics({ authorization: `Bearer ${METRICS_TOKEN}` });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await withToken.text()).toContain("market_http_requests_total");
    const ts = Math.floor(clock.nowMs() / 1000);
    const asOperator = await new MarketClient({ baseUrl: service.url }).request("GET", "/metrics", { credentials: { kind: "hmac", actorId: "operator", secret: SECRET, timestampSeconds: ts } });
    expect(asOperator.status).toBe(200);
    expect(asOperator.text).toContain("market_shard_commit_seconds");
  });

  it("refuses an authenticated actor that is no operator as 403 forbidden", async () => {
    const client = new MarketClient({ baseUrl: service.url });
    const ts = Math.floor(clock.nowMs() / 1000);
    const carol = await client.provisionNewIdentity({ principalId: "carol" }, { credentials: { kind: "hmac", actorId: "operator", secret: SECRET, timestampSeconds: ts } });
    const token = (await client.signIn(carol)).accessToken;
    expect(await errorOf(await metrics({ authorization: `Bearer ${token}` }))).toEqual({
      status: 403,
      body: { error: { code: "forbidden", message: "only the metrics token or an operator actor may read /metrics" } },
    });
  });

  it("accepts the metrics token nowhere else", async () => {
    const auth = { authorization: `Bearer ${METRICS_TOKEN}` };
    expect((await fetch(`${service.url}/v1/markets/any`, { headers: auth })).status).toBe(401);
    const mcp = await fetch(`${service.url}/mcp`, { method: "POST", headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(mcp.status).toBe(401);
  });

  it("reads METRICS_TOKEN_FILE and refuses a weak or reused token, naming the setting", async () => {
    const { loadAuthConfig } = await import("../../gateway/auth/config.js");
    const file = path.join(dataDir, "metrics.token");
    writeFileSync(file, `${METRICS_TOKEN}\n`);
    const fromFile = loadAuthConfig({ METRICS_TOKEN_FILE: file, SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dataDir);
    const inline = loadAuthConfig({ METRICS_TOKEN, SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dataDir);
    expect(fromFile.metricsTokenHash).toBeDefined();
    expect(fromFile.metricsTokenHash).toBe(inline.metricsTokenHash);
    expect(() => loadAuthConfig({ METRICS_TOKEN: "short", SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dataDir)).toThrow(/^METRICS_TOKEN: .*32 to 1024 visible ASCII/);
    expect(() => loadAuthConfig({ METRICS_TOKEN: SECRET, SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dataDir)).toThrow(/METRICS_TOKEN: the metrics token equals an HMAC secret/);
    expect(() => loadAuthConfig({ METRICS_TOKEN: STATIC_TOKEN, MCP_STATIC_TOKENS: `${STATIC_TOKEN}=agent`, SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dataDir)).toThrow(/equals a static MCP token/);
    expect(() => loadAuthConfig({ METRICS_TOKEN, METRICS_TOKEN_FILE: file, SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dataDir)).toThrow(/not both/);
    expect(() => loadAuthConfig({ METRICS_TOKEN_FILE: path.join(dataDir, "missing"), SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dataDir)).toThrow(/METRICS_TOKEN_FILE: file .* cannot be read/);
  });
});

describe("configuration", () => {
  it("names the setting and what is allowed for a bad value", () => {
    expect(() => loadServiceConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadServiceConfig({ PORT: "eighty" })).toThrow(/PORT: must be an integer from 0 to 65535/);
    expect(() => loadServiceConfig({ SHARDS: "0" })).toThrow(/SHARDS/);
    expect(() => loadServiceConfig({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL: must be one of/);
    expect(() => loadServiceConfig({ TLS_CERT_FILE: "/x.pem" })).toThrow(/TLS_KEY_FILE|TLS_CERT_FILE/);
    expect(() => loadServiceConfig({ MCP_RESPONSE_MODE: "xml" })).toThrow(/MCP_RESPONSE_MODE/);
  });

  it("exits with status 2 on a bad setting", async () => {
    await expect(run(process.execPath, [MAIN_JS], { env: { ...process.env, PORT: "99999", DATA_DIR: dataDir } })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("PORT"),
    });
  });

  it("documents every setting in .env.example and --help", async () => {
    expect(readFileSync(path.join(import.meta.dirname, "../../.env.example"), "utf8")).toBe(envExample());
    const help = await run(process.execPath, [CLI_JS, "serve", "--help"]);
    for (const setting of SETTINGS) expect(help.stdout).toContain(setting.name);
  });
});
