/**
 * Harness for the MCP suite: a real service (uWS, shard workers, durable logs in a temp dir) on a
 * ManualClock, reached through the official MCP SDK client (`Client` + Streamable HTTP transport)
 * exactly as an agent would, plus raw fetch for what the SDK hides (HTTP status, bodies, headers).
 *
 * Nothing here reaches into the service's internals except `publishTime()`, the documented test
 * hook that lets shards see the ManualClock's time (auction close, hold expiry).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { MarketClient, type Credentials, type IdentityFile, type ServiceResponse } from "@market-service/client";
import { ManualClock } from "../../../engine/clock.js";
import { startService, type RunningService } from "../../../gateway/service.js";
import { repeatAfterNoAnswer } from "../../support/repeat-after-no-answer.js";

export const OPERATOR_SECRET = "mcp-suite-operator-secret-0123456789-abcdef";
/** Static MCP token of actor `agent` (an actor that is never provisioned: self-action needs none). */
export const AGENT_TOKEN = "mcp-suite-static-token-agent-0123456789-abcdefgh";
export const AGENT = "agent";
/** Static MCP token of actor `twin`, which the cross-transport tests also provision (same actor id). */
export const TWIN_TOKEN = "mcp-suite-static-token-twin-0123456789-abcdefghi";
export const TWIN = "twin";
export const START_MS = Date.parse("2026-05-01T10:00:00.000Z");

export type ResponseMode = "json" | "sse";
export const MODES: readonly ResponseMode[] = ["json", "sse"];

export interface McpHarnessOptions {
  mode?: ResponseMode;
  env?: Record<string, string>;
}

export class McpHarness {
  private readonly clients: Client[] = [];

  private constructor(
    readonly service: RunningService,
    readonly clock: ManualClock,
    readonly dataDir: string,
    readonly mode: ResponseMode,
  ) {}

  static async start(options: McpHarnessOptions = {}): Promise<McpHarness> {
    const mode = options.mode ?? "json";
    const dataDir = mkdtempSync(path.join(tmpdir(), "mcp-suite-"));
    const clock = new ManualClock(START_MS);
    const service = await startService({
      env: {
        DATA_DIR: dataDir,
        PORT: "0",
        HOST: "127.0.0.1",
        SHARDS: "2",
        LOG_LEVEL: "silent",
        MCP_RESPONSE_MODE: mode,
        SERVICE_HMAC_SECRETS: `operator=${OPERATOR_SECRET}`,
        SERVICE_OPERATOR_ACTORS: "operator",
        MCP_STATIC_TOKENS: `${AGENT_TOKEN}=${AGENT},${TWIN_TOKEN}=${TWIN}`,
        // Tests move the ManualClock by hours; bearer tokens must outlive that.
        AUTH_TOKEN_TTL: "86400",
        ...options.env,
      },
      clock,
      controlledClock: true,
      onFatal: (message) => {
        throw new Error(`service lost durability: ${message}`);
      },
    });
    return new McpHarness(service, clock, dataDir, mode);
  }

  get url(): string {
    return this.service.url;
  }

  get mcpUrl(): URL {
    return new URL(`${this.service.url}/mcp`);
  }

  get http(): MarketClient {
    return new MarketClient({ baseUrl: this.service.url });
  }

  nowSeconds(): number {
    return Math.floor(this.clock.nowMs() / 1000);
  }

  isoIn(ms: number): string {
    return new Date(this.clock.nowMs() + ms).toISOString();
  }

  /** Moves the ManualClock and lets the shards fire what became due (auction close, expiry). */
  advance(ms: number): void {
    this.clock.advance(ms);
    this.service.publishTime();
  }

  operator(): Credentials {
    return { kind: "hmac", actorId: "operator", secret: OPERATOR_SECRET, timestampSeconds: this.nowSeconds() };
  }

  /** Provisions principal `principalId` with actor `actorId` (default: the same) and a bearer token. */
  async provision(principalId: string, actorId: string = principalId): Promise<{ identity: IdentityFile; token: string }> {
    const client = this.http;
    const identity = await client.provisionNewIdentity({ principalId, actorId }, { credentials: { kind: "hmac", actorId: "operator", secret: OPERATOR_SECRET, timestampSeconds: this.nowSeconds() } });
    const { accessToken } = await client.signIn(identity);
    return { identity, token: accessToken };
  }

  /** An official SDK client connected to /mcp with `Authorization: Bearer <token>`, tools listed. */
  async connect(token: string, name = "mcp-suite"): Promise<Agent> {
    const client = new Client({ name, version: "1.0.0" });
    // Every /mcp request may be sent again after no answer (repeat-after-no-answer.ts): the tools are
    // reads, or commands whose required commandId makes a repeat return the first result.
    const transport = new StreamableHTTPClientTransport(this.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: repeatAfterNoAnswer(fetch, () => true) });
    await client.connect(transport);
    this.clients.push(client);
    // Listing the tools makes the SDK client validate every later structuredContent against the
    // tool's outputSchema (ajv), so every successful call below is also an output-schema check.
    await client.listTools();
    return new Agent(client);
  }

  /** One raw JSON-RPC POST to /mcp (no SDK): for statuses, headers and exact bodies. */
  async rawPost(body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
    const response = await fetch(this.mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  async close(): Promise<void> {
    for (const client of this.clients) await client.close().catch(() => undefined);
    await this.service.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** The JSON-RPC messages of a raw /mcp response, whether it came as JSON or as server-sent events. */
export function jsonRpcMessages(response: RawResponse): any[] {
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    return response.text
      .split("\n\n")
      .map((block) => block.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n"))
      .filter((data) => data.trim() !== "")
      .map((data) => JSON.parse(data));
  }
  const parsed = JSON.parse(response.text);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** An agent: one SDK client with helpers that check the shape of every tool result. */
export class Agent {
  constructor(readonly client: Client) {}

  /** Raw tool result from the SDK client. */
  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await this.client.callTool({ name, arguments: args })) as CallToolResult;
  }

  /**
   * Calls a tool that must succeed: not isError, one text content equal (as JSON) to
   * structuredContent. Returns the structured result.
   */
  async ok(name: string, args: Record<string, unknown>): Promise<any> {
    const result = await this.call(name, args);
    expect(result.isError ?? false, `${name} failed: ${textOf(result)}`).toBe(false);
    expect(result.structuredContent, `${name}: no structuredContent`).toBeDefined();
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    return result.structuredContent;
  }

  /**
   * Calls a tool that must fail as an application error: a tool result (never a JSON-RPC error)
   * with isError true, no structuredContent, and exactly `{"error":{"code","message"}}` as text.
   */
  async fails(name: string, args: Record<string, unknown>, code: string): Promise<{ code: string; message: string }> {
    const result = await this.call(name, args);
    const text = textOf(result);
    expect(result.isError, `${name} should fail with ${code}: ${text}`).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
    expect(body.error.code, text).toBe(code);
    expect(typeof body.error.message).toBe("string");
    expect(body.error.message.length).toBeGreaterThan(0);
    return body.error;
  }
}

export function textOf(result: CallToolResult): string {
  expect(result.content).toHaveLength(1);
  const first = result.content[0];
  expect(first?.type).toBe("text");
  return (first as { type: "text"; text: string }).text;
}

/** Unique ids within a test file (one service is shared by the tests of a file). */
let counter = 0;
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

export const SUBJECT = { schema: "mcp.subject.v1", data: { name: "freight slot", lane: "HAM-RTM" } };

export function directClaimMechanism(config: { capacity?: number; confirmation?: "none" | "creator" | "participant" | "both"; holdDurationSeconds?: number; pricing?: Record<string, unknown> } = {}) {
  const confirmation = config.confirmation ?? "participant";
  return {
    presetId: "direct-claim.v1",
    config: {
      capacity: config.capacity ?? 1,
      pricing: config.pricing ?? { mode: "posted", amountMinor: 2500, currency: "EUR" },
      confirmation,
      ...(confirmation === "none" ? {} : { holdDurationSeconds: config.holdDurationSeconds ?? 600 }),
    },
  };
}

export function auctionMechanism(closesAt: string, config: { reserveAmountMinor?: number; holdDurationSeconds?: number; currency?: string } = {}) {
  return {
    presetId: "sealed-forward-auction.v1",
    config: {
      currency: config.currency ?? "EUR",
      ...(config.reserveAmountMinor === undefined ? {} : { reserveAmountMinor: config.reserveAmountMinor }),
      closesAt,
      holdDurationSeconds: config.holdDurationSeconds ?? 600,
    },
  };
}

/** Creates and publishes a market through MCP; returns the publish result. */
export async function openMarket(agent: Agent, principalId: string, marketId: string, mechanism: unknown): Promise<any> {
  const created = await agent.ok("create_market", { commandId: uid("create"), marketId, principalId, subject: SUBJECT, mechanism });
  expect(created.market.state).toBe("draft");
  const published = await agent.ok("publish_market", { commandId: uid("publish"), marketId, principalId, expectedVersion: created.market.version });
  expect(published.market.state).toBe("open");
  return published;
}

/** `sha256-canonical-json-v1`, computed independently (docs/decisions.md E14). */
export function recordHashOf(record: { market: unknown; commands: unknown; commitments: unknown; events: unknown }): string {
  const text = canonicalize({ market: record.market, commands: record.commands, commitments: record.commitments, events: record.events });
  if (text === undefined) throw new Error("canonicalize returned undefined");
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

export function bearer(token: string): Credentials {
  return { kind: "bearer", token };
}

export function expectHttpStatus(response: ServiceResponse, status: number): void {
  expect(response.status, response.text).toBe(status);
}

/** Polls a read until the predicate holds (shards fire deadlines asynchronously after publishTime). */
export async function waitFor<T>(read: () => Promise<T>, predicate: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (predicate(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
