/**
 * The service's access log and its request metrics match what the client received (issue 25 §3c):
 * replies uWS dropped with the connection are logged and counted as status 0 (aborted), with the
 * status that was written as `droppedStatus` in the log. Real service (shard workers, durable logs
 * in a temp dir), raw sockets, the log captured through startService's `log` option, metrics read
 * from GET /metrics. Also pipelining through the real service (issue 25 §3b): a shard-bound MCP call,
 * then a request written once the call is pending, both answered in order.
 */
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type RunningService } from "../../gateway/service.js";
import { parseResponses } from "./support/raw.js";

const STATIC_TOKEN = "delivery-static-token-0123456789-abcdefghij";
const METRICS_TOKEN = "delivery-metrics-token-0123456789-abcdefgh";
let service: RunningService;
let dataDir: string;
const requestLog: Record<string, unknown>[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "delivery-log-"));
  service = await startService({
    env: { DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", SHARDS: "1", MCP_STATIC_TOKENS: `${STATIC_TOKEN}=agent`, METRICS_TOKEN },
    log: (_level, message, fields) => {
      if (message === "request") requestLog.push({ ...fields });
    },
    onFatal: (message) => {
      throw new Error(`service lost durability: ${message}`);
    },
  });
});
afterAll(async () => {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function sendOnce(bytes: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = net.connect(service.port, "127.0.0.1");
    let raw = Buffer.alloc(0);
    const finish = (): void => {
      socket.destroy();
      resolve(raw);
    };
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (data) => (raw = Buffer.concat([raw, data])));
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", finish);
  });
}

/** Waits for the access-log line of a request id (the line is written when the report is known). */
async function logLine(requestId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const line = requestLog.find((entry) => entry["requestId"] === requestId);
    if (line !== undefined) return line;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function requestsCounted(route: string, method: string, status: number): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`market_http_requests_total{`) && l.includes(`route="${route}"`) && l.includes(`method="${method}"`) && l.includes(`status="${status}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

function createMarketCall(marketId: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "create_market",
      arguments: {
        commandId: `create-${marketId}`,
        marketId,
        principalId: "agent",
        subject: { schema: "table.v1", data: { seats: 4 } },
        mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
      },
    },
  });
}

function mcpPost(body: string, requestId: string): string {
  return (
    `POST /mcp HTTP/1.1\r\nHost: x\r\nx-request-id: ${requestId}\r\nauthorization: Bearer ${STATIC_TOKEN}\r\n` +
    `content-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

describe("the access log and metrics count only what was written", () => {
  it("a non-numeric Content-Length: nothing reached the client, and the log and metrics say status 0, not 400", async () => {
    const before400 = await requestsCounted("/v1/markets", "POST", 400);
    const before0 = await requestsCounted("/v1/markets", "POST", 0);
    const received = await sendOnce("POST /v1/markets HTTP/1.1\r\nHost: x\r\nx-request-id: svc-cl-abc\r\nContent-Length: abc\r\n\r\n");
    expect(received.length).toBe(0);
    expect(await logLine("svc-cl-abc")).toMatchObject({ route: "/v1/markets", method: "POST", status: 0, aborted: true });
    expect(await requestsCounted("/v1/markets", "POST", 0)).toBe(before0 + 1);
    expect(await requestsCounted("/v1/markets", "POST", 400)).toBe(before400);
  });

  it("a pipelined sync + shard-bound MCP call + sync in one read: nothing reached the client, and nothing is logged as delivered", async () => {
    const beforeHealth200 = await requestsCounted("/healthz", "GET", 200);
    const received = await sendOnce(
      "GET /healthz HTTP/1.1\r\nHost: x\r\nx-request-id: svc-kill-1\r\n\r\n" +
        mcpPost(createMarketCall("delivery-kill"), "svc-kill-2") +
        "GET /healthz HTTP/1.1\r\nHost: x\r\nx-request-id: svc-kill-3\r\n\r\n",
    );
    expect(parseResponses(received)).toEqual([]);
    expect(received.length).toBe(0);
    expect(await logLine("svc-kill-1")).toMatchObject({ route: "/healthz", status: 0, aborted: true, droppedStatus: 200 });
    expect(await logLine("svc-kill-2")).toMatchObject({ route: "/mcp", status: 0, aborted: true });
    expect(await requestsCounted("/healthz", "GET", 200)).toBe(beforeHealth200);
    expect(requestLog.some((entry) => entry["requestId"] === "svc-kill-3")).toBe(false);
  });

  it("an ordinary request is logged and counted with its status", async () => {
    const before = await requestsCounted("/healthz", "GET", 200);
    const received = await sendOnce("GET /healthz HTTP/1.1\r\nHost: x\r\nx-request-id: svc-ok\r\nConnection: close\r\n\r\n");
    expect(parseResponses(received).map((r) => r.status)).toEqual([200]);
    expect(await logLine("svc-ok")).toMatchObject({ route: "/healthz", status: 200 });
    expect((await logLine("svc-ok"))["aborted"]).toBeUndefined();
    expect(await requestsCounted("/healthz", "GET", 200)).toBe(before + 1);
  });
});

describe("pipelining through the real service", () => {
  it("an MCP tools/call that goes to a shard, then a sync request in a later write: both answered, in order", async () => {
    const shardWork = (): number => service.runtime.pendingByShard().reduce((sum, depth) => sum + depth, 0);
    for (let i = 0; i < 5; i++) {
      // Commands of earlier tests (whose connections were killed) may still be on the shard: let
      // them finish, so that the work seen below is this request's.
      while (shardWork() > 0) await new Promise((resolve) => setImmediate(resolve));
      const socket = net.connect(service.port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      let raw = Buffer.alloc(0);
      let closed = false;
      socket.on("data", (data) => (raw = Buffer.concat([raw, data])));
      socket.on("close", () => (closed = true));
      socket.on("error", () => undefined);
      socket.write(mcpPost(createMarketCall(`pipelined-${i}`), `pipe-${i}-a`));
      // Once the command waits on its shard (an fsync away), the answer is pending: write the next one.
      while (shardWork() === 0 && raw.length === 0) await new Promise((resolve) => setImmediate(resolve));
      socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nx-request-id: pipe-${i}-b\r\n\r\n`);
      while (parseResponses(raw).length < 2 && !closed) await new Promise((resolve) => setImmediate(resolve));
      const responses = parseResponses(raw);
      expect(responses.map((r) => [r.status, r.headers.get("x-request-id")]), `try ${i}`).toEqual([
        [200, `pipe-${i}-a`],
        [200, `pipe-${i}-b`],
      ]);
      expect(JSON.parse(responses[0]?.body ?? "{}").result?.structuredContent?.market?.state).toBe("draft");
      socket.destroy();
    }
  });
});
