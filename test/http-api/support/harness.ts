/**
 * Black-box harness for the HTTP API suite: a real service (uWS, shard workers, durable logs in a
 * temp dir) on a ManualClock, a MarketClient, and helpers to provision principals and build
 * credentials. Everything goes over HTTP; nothing here reaches into the service's internals except
 * `publishTime()` (the documented test hook that lets shards see the ManualClock's time).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { MarketClient, type Credentials, type IdentityFile, type ServiceResponse } from "@market-service/client";
import { ManualClock } from "../../../engine/clock.js";
import { startService, type RunningService } from "../../../gateway/service.js";
import { conformingFetch } from "./openapi-conformance.js";
import { readOrCommand, repeatAfterNoAnswer } from "../../support/repeat-after-no-answer.js";

export const OPERATOR_SECRET = "operator-secret-0123456789-abcdefghijklmnop";
export const STATIC_MCP_TOKEN = "static-mcp-token-0123456789-abcdefghijklmnopq";
export const STATIC_MCP_ACTOR = "mcp-agent";
/** A fixed, round start time keeps timestamps in assertions readable. */
export const START_MS = Date.parse("2026-05-01T10:00:00.000Z");

/** Every reply checked against the OpenAPI document; a read or command that got no answer sent again (repeat-after-no-answer.ts). */
const harnessFetch = repeatAfterNoAnswer(conformingFetch, readOrCommand);

export type Env = Record<string, string | undefined>;

export interface Principal {
  id: string;
  identity: IdentityFile;
  /** Bearer credentials (token issued at provisioning time). */
  auth: Credentials & { kind: "bearer" };
}

export interface HarnessOptions {
  /** Extra or overriding settings; `undefined` removes a default. */
  env?: Env;
  startMs?: number;
  /** An existing data directory (restart tests); it is not removed by close(). */
  dataDir?: string;
}

export class Harness {
  private constructor(
    public service: RunningService,
    readonly clock: ManualClock,
    readonly dataDir: string,
    private readonly ownsDir: boolean,
    private readonly env: Env,
  ) {}

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const ownsDir = options.dataDir === undefined;
    const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "http-api-"));
    const clock = new ManualClock(options.startMs ?? START_MS);
    const env: Env = {
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      SHARDS: "2",
      LOG_LEVEL: "silent",
      SERVICE_HMAC_SECRETS: `operator=${OPERATOR_SECRET}`,
      SERVICE_OPERATOR_ACTORS: "operator",
      MCP_STATIC_TOKENS: `${STATIC_MCP_TOKEN}=${STATIC_MCP_ACTOR}`,
      // Tests move the ManualClock by hours; tokens must outlive that unless a test is about expiry.
      AUTH_TOKEN_TTL: "86400",
      ...options.env,
    };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const service = await startHarnessService(env, clock);
    return new Harness(service, clock, dataDir, ownsDir, env);
  }

  get url(): string {
    return this.service.url;
  }

  get port(): number {
    return this.service.port;
  }

  get client(): MarketClient {
    // Every reply is checked against GET /openapi.json's schemas (support/openapi-conformance.ts).
    return new MarketClient({ baseUrl: this.service.url, fetch: harnessFetch });
  }

  nowSeconds(): number {
    return Math.floor(this.clock.nowMs() / 1000);
  }

  nowIso(): string {
    return new Date(this.clock.nowMs()).toISOString();
  }

  isoIn(ms: number): string {
    return new Date(this.clock.nowMs() + ms).toISOString();
  }

  /** HMAC credentials of the configured operator, stamped with the ManualClock's current time. */
  operator(): Credentials {
    return this.hmac("operator", OPERATOR_SECRET);
  }

  hmac(actorId: string, secret: string, timestampSeconds = this.nowSeconds()): Credentials {
    return { kind: "hmac", actorId, secret, timestampSeconds };
  }

  /** Provisions principal = actor = `id` with a fresh key, and gets a bearer token for it. */
  async principal(id: string, actorId: string = id): Promise<Principal> {
    const client = this.client;
    const identity = await client.provisionNewIdentity({ principalId: id, actorId }, { credentials: { kind: "hmac", actorId: "operator", secret: OPERATOR_SECRET, timestampSeconds: this.nowSeconds() } });
    const { accessToken } = await client.signIn(identity);
    return { id, identity, auth: { kind: "bearer", token: accessToken } };
  }

  /** Several principals at once, typed as a tuple. */
  async principals<const Ids extends readonly string[]>(...ids: Ids): Promise<{ [K in keyof Ids]: Principal }> {
    const result: Principal[] = [];
    for (const id of ids) result.push(await this.principal(id));
    return result as unknown as { [K in keyof Ids]: Principal };
  }

  async freshToken(principal: Principal): Promise<Credentials & { kind: "bearer" }> {
    const { accessToken } = await this.client.signIn(principal.identity);
    return { kind: "bearer", token: accessToken };
  }

  post(pathAndQuery: string, body: unknown, credentials: Credentials, headers: Record<string, string> = {}): Promise<ServiceResponse> {
    return this.client.request("POST", pathAndQuery, { body, credentials, headers });
  }

  get(pathAndQuery: string, credentials: Credentials, headers: Record<string, string> = {}): Promise<ServiceResponse> {
    return this.client.request("GET", pathAndQuery, { credentials, headers });
  }

  /** Moves the ManualClock and lets the shards fire what became due. */
  advance(ms: number): void {
    this.clock.advance(ms);
    this.service.publishTime();
  }

  /** Close and start again on the same data directory and clock (durability tests). */
  async restart(): Promise<void> {
    await this.service.close();
    this.service = await startHarnessService(this.env, this.clock);
  }

  async close(): Promise<void> {
    await this.service.close();
    if (this.ownsDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export function startHarnessService(env: Env, clock: ManualClock): Promise<RunningService> {
  return startService({
    env,
    clock,
    controlledClock: true,
    onFatal: (message) => {
      throw new Error(`service lost durability: ${message}`);
    },
  });
}

/** Unique ids within a test file (the service is shared between tests of a file). */
let counter = 0;
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Asserts an error reply: status, `{error: {code, message}}` and nothing else in the body. */
export function expectError(response: ServiceResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.error?.code }, response.text).toEqual({ status, code });
  expect(Object.keys(response.body as object)).toEqual(["error"]);
  expect(Object.keys(response.body.error as object).sort()).toEqual(["code", "message"]);
  expect(typeof response.body.error.message).toBe("string");
  expect((response.body.error.message as string).length).toBeGreaterThan(0);
  expect(response.headers.get("content-type")).toBe("application/json");
}

export function expectUnauthenticated(response: ServiceResponse): void {
  expectError(response, 401, "unauthenticated");
  expect(response.body.error.message).toBe("request authentication failed");
}

export function expectStatus(response: ServiceResponse, status: number): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/json");
}

// ---------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------

export type Confirmation = "none" | "creator" | "participant" | "both";

export function directClaimMechanism(config: {
  capacity?: number;
  confirmation?: Confirmation;
  holdDurationSeconds?: number;
  pricing?: { mode: "free" } | { mode: "posted"; amountMinor: number; currency: string };
}): { presetId: string; config: Record<string, unknown> } {
  const confirmation = config.confirmation ?? "none";
  return {
    presetId: "direct-claim.v1",
    config: {
      capacity: config.capacity ?? 1,
      pricing: config.pricing ?? { mode: "free" },
      confirmation,
      ...(config.holdDurationSeconds !== undefined ? { holdDurationSeconds: config.holdDurationSeconds } : confirmation === "none" ? {} : { holdDurationSeconds: 60 }),
    },
  };
}

export function auctionMechanism(config: { currency?: string; closesAt: string; holdDurationSeconds?: number; reserveAmountMinor?: number }): {
  presetId: string;
  config: Record<string, unknown>;
} {
  return {
    presetId: "sealed-forward-auction.v1",
    config: {
      currency: config.currency ?? "EUR",
      ...(config.reserveAmountMinor === undefined ? {} : { reserveAmountMinor: config.reserveAmountMinor }),
      closesAt: config.closesAt,
      holdDurationSeconds: config.holdDurationSeconds ?? 60,
    },
  };
}

export const SUBJECT = { schema: "test.subject.v1", data: { name: "widget", tags: ["a", "b"] } };

/** Creates and publishes a market as `creator`; returns the publish response body. */
export async function openMarket(h: Harness, creator: Principal, marketId: string, mechanism: { presetId: string; config: Record<string, unknown> }): Promise<any> {
  const created = await h.post("/v1/markets", { commandId: uid("create"), marketId, principalId: creator.id, subject: SUBJECT, mechanism }, creator.auth);
  expect(created.status, created.text).toBe(201);
  const published = await h.post(`/v1/markets/${encodeURIComponent(marketId)}/publish`, { commandId: uid("publish"), principalId: creator.id, expectedVersion: 1 }, creator.auth);
  expect(published.status, published.text).toBe(200);
  return published.body;
}

/** Claims as `participant`; expects 200 and returns the action result. */
export async function claim(h: Harness, participant: Principal, marketId: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await h.post(`/v1/markets/${encodeURIComponent(marketId)}/direct-claims`, { commandId: uid("claim"), principalId: participant.id, ...extra }, participant.auth);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export function commitmentAction(h: Harness, who: Principal, commitmentId: string, action: "confirm" | "decline", extra: Record<string, unknown> = {}): Promise<ServiceResponse> {
  return h.post(`/v1/commitments/${encodeURIComponent(commitmentId)}/${action}`, { commandId: uid(action), principalId: who.id, ...extra }, who.auth);
}

/** The commitment id the service generates (docs/decisions.md D1). */
export function commitmentIdOf(marketId: string, ordinal: number): string {
  return `c.${Buffer.from(marketId, "utf8").toString("base64url")}.${ordinal}`;
}

export function bidIdOf(marketId: string, ordinal: number): string {
  return `b.${Buffer.from(marketId, "utf8").toString("base64url")}.${ordinal}`;
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** `sha256-canonical-json-v1` computed independently (docs/decisions.md E14). */
export { recordHashOf } from "./record-hash.js";
