/**
 * What this uWebSockets.js build (uws-js-unofficial 20.30, uWS v20.43.0) does at the HTTP/1.1 edge
 * that no application code can change, pinned against the real project server: each case sends
 * the exact bytes and asserts what comes back and how the connection ends. docs/http.md ("HTTP/1.1
 * at the edge") has the table. A
 * uWS upgrade that changes any of them (v20.44.0 adds 505/431/400 pages, for one) fails here: then
 * update the table, and check whether the proxy configuration in docs/deploy.md is still needed.
 *
 * "Silent" cases get no byte and are closed by uWS's idle timer (HTTP_IDLE_TIMEOUT_S = 10, checked
 * in 4 s steps: measured 8–11 s); they all start at once, so the file takes one idle period. The bands below separate "closed at once"
 * (while parsing the read) from "closed by the idle timer": they are classes of behaviour, not
 * performance figures, and far from both.
 */
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type RunningService } from "../../gateway/service.js";
import { parseResponses } from "./support/raw-http.js";

/** No close before this: the idle timer cannot have fired yet. */
const IDLE_CLOSE_AFTER_MS = 3_000;
/** The idle timer fires by then (10 s timeout, 4 s granularity, plus slack). */
const IDLE_CLOSE_BY_MS = 20_000;
const STATIC_TOKEN = "inherent-static-token-0123456789-abcdefghij";

/** Every probe's outcome; printed with INHERENT_REPORT=1 (the figures of docs/http.md's table). */
const measured: { label: string; bytes: number; end: string; ms: number }[] = [];
let service: RunningService;
let dataDir: string;
let port: number;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "uws-inherent-"));
  service = await startService({
    env: { DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", SHARDS: "1", LOG_LEVEL: "silent", MCP_STATIC_TOKENS: `${STATIC_TOKEN}=agent` },
    onFatal: (message) => {
      throw new Error(`service lost durability: ${message}`);
    },
  });
  port = service.port;
});
afterAll(async () => {
  if (process.env["INHERENT_REPORT"] !== undefined) console.log(JSON.stringify(measured, null, 1));
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Outcome {
  /** Everything received. */
  bytes: Buffer;
  /** "fin": the server closed; "reset": ECONNRESET/EPIPE; "open": still open when we stopped. */
  end: "fin" | "reset" | "open";
  /** From the last write to the end. */
  ms: number;
}

/**
 * Sends each part in its own write (a round trip on another connection between parts, so that
 * each lands in its own read), then waits until the server closes, `stopAfter` responses arrived,
 * or IDLE_CLOSE_BY_MS passed.
 */
async function probe(parts: (string | Buffer)[], stopAfter = Number.POSITIVE_INFINITY, label = expect.getState().currentTestName ?? "?"): Promise<Outcome> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  let bytes = Buffer.alloc(0);
  let lastWrite = performance.now();
  const outcome = new Promise<Outcome>((resolve) => {
    let done = false;
    const finish = (end: Outcome["end"]): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const result = { bytes, end, ms: performance.now() - lastWrite };
      measured.push({ label, bytes: bytes.length, end, ms: Math.round(result.ms) });
      resolve(result);
    };
    const timer = setTimeout(() => finish("open"), IDLE_CLOSE_BY_MS + 2_000);
    socket.on("data", (data) => {
      bytes = Buffer.concat([bytes, data]);
      if (parseResponses(bytes).length >= stopAfter) finish("open");
    });
    socket.on("end", () => finish("fin"));
    socket.on("close", () => finish("fin"));
    socket.on("error", () => finish("reset"));
  });
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    socket.write(parts[i] as string | Buffer);
    lastWrite = performance.now();
  }
  return outcome;
}

const EMPTY = Buffer.alloc(0);

/** No byte, and the connection closed while uWS parsed the read. */
async function expectClosedAtOnce(parts: (string | Buffer)[]): Promise<void> {
  const outcome = await probe(parts);
  expect(outcome.bytes).toEqual(EMPTY);
  expect(outcome.end).not.toBe("open");
  expect(outcome.ms).toBeLessThan(IDLE_CLOSE_AFTER_MS);
}

async function statusesOf(parts: (string | Buffer)[], responses = 1): Promise<number[]> {
  const outcome = await probe(parts, responses);
  return parseResponses(outcome.bytes).map((r) => r.status);
}

const request = (line: string, headers: string[] = ["Host: x"]): string => `${line}\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n`;
const fields = (count: number): string[] => ["Host: x", ...Array.from({ length: count - 1 }, (_, i) => `X-F${i}: v`)];

function mcpCreate(marketId: string): string {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "create_market",
      arguments: {
        commandId: `c-${marketId}`,
        marketId,
        principalId: "agent",
        subject: { schema: "table.v1", data: {} },
        mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
      },
    },
  });
  return `POST /mcp HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${STATIC_TOKEN}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Requests uWS never answers; a connection each, all started at once (each waits ~10 s). */
const SILENT_CASES: Record<string, () => (string | Buffer)[]> = {
  "HTTP/1.0 request (with Host)": () => [request("GET /healthz HTTP/1.0")],
  "HTTP/1.0 with Connection: keep-alive": () => [request("GET /healthz HTTP/1.0", ["Host: x", "Connection: keep-alive"])],
  "HTTP/2.0 in the request line": () => [request("GET /healthz HTTP/2.0")],
  "no HTTP version": () => ["GET /healthz\r\n\r\n"],
  "HTTP/1.1 with no header line at all": () => ["GET /healthz HTTP/1.1\r\n\r\n"],
  "absolute-form target": () => [request(`GET http://127.0.0.1:${port}/healthz HTTP/1.1`)],
  "OPTIONS * (asterisk-form)": () => [request("OPTIONS * HTTP/1.1")],
  "CONNECT host:port (authority-form)": () => [request("CONNECT example.com:443 HTTP/1.1")],
  "target without a leading slash": () => [request("GET healthz HTTP/1.1")],
  "49 header fields (head under 4 KiB)": () => [request("GET /healthz HTTP/1.1", fields(49))],
  "spaces in the target": () => [request("GET /a b c HTTP/1.1")],
  "bare LF line ends": () => ["GET /healthz HTTP/1.1\nHost: x\n\n"],
  "a header line without a colon": () => [request("GET /healthz HTTP/1.1", ["Host: x", "NoColonHere"])],
  "a space in a header name": () => [request("GET /healthz HTTP/1.1", ["Host: x", "Bad Name: v"])],
  "a space before the colon": () => [request("GET /healthz HTTP/1.1", ["Host: x", "X-A : v"])],
  "an obs-fold continuation line": () => [request("GET /healthz HTTP/1.1", ["Host: x", "X-A: v", " folded"])],
  "a garbage request line": () => ["HELLO\r\n\r\n"],
  "a chunk size with an extension that parses as hex (5;a=1): the body never completes": () => [
    request("POST /v1/markets HTTP/1.1", ["Host: x", "Transfer-Encoding: chunked"]) + "5;a=1\r\nhello\r\n0\r\n\r\n",
  ],
};

describe("silent, then closed by the idle timer", () => {
  // Started together (not one after the other: 18 × ~10 s), each test then checks its own.
  const outcomes = new Map<string, Promise<Outcome>>();
  beforeAll(() => {
    for (const [name, parts] of Object.entries(SILENT_CASES)) outcomes.set(name, probe(parts(), Number.POSITIVE_INFINITY, name));
  });
  for (const name of Object.keys(SILENT_CASES)) {
    it(name, async () => {
      const outcome = await (outcomes.get(name) as Promise<Outcome>);
      expect(outcome.bytes).toEqual(EMPTY);
      expect(outcome.end).not.toBe("open");
      expect(outcome.ms).toBeGreaterThanOrEqual(IDLE_CLOSE_AFTER_MS);
      expect(outcome.ms).toBeLessThanOrEqual(IDLE_CLOSE_BY_MS);
    }, IDLE_CLOSE_BY_MS + 10_000);
  }
});

describe("closed at once, no byte", () => {
  it("a method outside the nine uWS knows (PROPFIND, QUERY)", async () => {
    await expectClosedAtOnce([request("PROPFIND /healthz HTTP/1.1")]);
    await expectClosedAtOnce([request("QUERY /v1/markets HTTP/1.1", ["Host: x", "Content-Length: 0"])]);
  });

  it("a lowercase or mixed-case method", async () => {
    await expectClosedAtOnce([request("get /healthz HTTP/1.1")]);
    await expectClosedAtOnce([request("Get /healthz HTTP/1.1")]);
  });

  it("a chunk extension (5;ext=1)", async () => {
    await expectClosedAtOnce([request("POST /v1/markets HTTP/1.1", ["Host: x", "Transfer-Encoding: chunked"]) + "5;ext=1\r\nhello\r\n0\r\n\r\n"]);
  });

  it("Content-Length and Transfer-Encoding together", async () => {
    await expectClosedAtOnce([request("POST /v1/markets HTTP/1.1", ["Host: x", "Content-Length: 5", "Transfer-Encoding: chunked"]) + "5\r\nhello\r\n0\r\n\r\n"]);
  });

  it("a Content-Length that is not 1–9 digits (the project's 400 would be dropped: it writes none)", async () => {
    await expectClosedAtOnce([request("POST /v1/markets HTTP/1.1", ["Host: x", "Content-Length: abc"])]);
    await expectClosedAtOnce([request("POST /v1/markets HTTP/1.1", ["Host: x", "Content-Length: 1000000000"])]);
  });

  it("HTTP/1.1 with header lines but no Host", async () => {
    await expectClosedAtOnce([request("GET /healthz HTTP/1.1", ["Accept: */*"])]);
  });

  it("an unparsable head over 4 KiB (HTTP/1.0; 49 fields)", async () => {
    await expectClosedAtOnce([request("GET /healthz HTTP/1.0", ["Host: x", `X-Pad: ${"p".repeat(4200)}`])]);
    await expectClosedAtOnce([request("GET /healthz HTTP/1.1", fields(49).map((f, i) => (i === 1 ? `X-Pad: ${"p".repeat(4200)}` : f)))]);
  });

  it("a valid 8 KiB head that arrives in two reads (only 4 KiB of a head is kept between reads)", async () => {
    const head = request("GET /healthz HTTP/1.1", ["Host: x", `X-Pad: ${"p".repeat(8 * 1024)}`]);
    await expectClosedAtOnce([head.slice(0, 4 * 1024), head.slice(4 * 1024)]);
    // The same head in one write is answered.
    expect(await statusesOf([head])).toEqual([200]);
  });

  it("pipelining in one read behind an answer that waits on the event loop: every answer lost", async () => {
    await expectClosedAtOnce([mcpCreate("inherent-1") + request("GET /healthz HTTP/1.1")]);
    await expectClosedAtOnce([request("GET /healthz HTTP/1.1") + mcpCreate("inherent-2") + request("GET /healthz HTTP/1.1")]);
  });
});

describe("accepted (pinned too: a stricter parser would change them)", () => {
  it("48 header fields", async () => {
    expect(await statusesOf([request("GET /healthz HTTP/1.1", fields(48))])).toEqual([200]);
  });

  it("an empty Host, a DEL byte in a value, an empty field name", async () => {
    expect(await statusesOf([request("GET /healthz HTTP/1.1", ["Host:"])])).toEqual([200]);
    expect(await statusesOf([request("GET /healthz HTTP/1.1", ["Host: x", "X-A: a\x7fb"])])).toEqual([200]);
    expect(await statusesOf([request("GET /healthz HTTP/1.1", ["Host: x", ": v"])])).toEqual([200]);
  });

  it("chunked bodies with a trailer, uppercase hex and a space after the size reach the route", async () => {
    const post = (body: string): string => request("POST /v1/markets HTTP/1.1", ["Host: x", "Transfer-Encoding: chunked"]) + body;
    expect(await statusesOf([post("5\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n")])).toEqual([401]);
    expect(await statusesOf([post(`A\r\n${"h".repeat(10)}\r\n0\r\n\r\n`)])).toEqual([401]);
    expect(await statusesOf([post("5 \r\nhello\r\n0\r\n\r\n")])).toEqual([401]);
  });

  it("the seven other known methods reach the app (405 from the project; HEAD without a body)", async () => {
    for (const method of ["PUT", "DELETE", "PATCH", "TRACE", "OPTIONS"]) {
      expect(await statusesOf([request(`${method} /healthz HTTP/1.1`)])).toEqual([405]);
    }
    const head = await probe([request("HEAD /healthz HTTP/1.1")], 1);
    expect(head.bytes.toString("latin1")).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n[\s\S]*\r\n\r\n$/);
  });

  it("pipelining of answers given within the parse (three sync requests in one read)", async () => {
    expect(await statusesOf([request("GET /healthz HTTP/1.1").repeat(3)], 3)).toEqual([200, 200, 200]);
  });
});
