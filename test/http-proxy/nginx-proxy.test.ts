/**
 * The reverse-proxy configuration of docs/deploy.md (docs/nginx/market-service.conf, this very
 * file) in front of the real service, with Debian's nginx (scripts/fetch-nginx.sh puts it in
 * .tools/nginx; `npm test` runs it first). Every case this uWS build does not answer (docs/http.md, "HTTP/1.1
 * at the edge"; pinned in test/http/uws-inherent.test.ts) is replayed over TLS through the proxy
 * and must get a proper answer; then an authenticated round trip (HMAC signatures, Ed25519 bearer
 * tokens) must verify through it. No nginx binary is a failure, not a skip.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import tls from "node:tls";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketClient } from "@market-service/client";
import { startService, type RunningService } from "../../gateway/service.js";
import { parseResponses, type RawResponse } from "../http-api/support/raw.js";
import { freePort } from "../../scripts/free-port.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const NGINX = process.env["NGINX_BIN"] ?? path.join(ROOT, ".tools/nginx/nginx");
const CONF = path.join(ROOT, "docs/nginx/market-service.conf");
const OPERATOR_SECRET = "proxy-operator-secret-0123456789-abcdefghij";
const STATIC_TOKEN = "proxy-static-token-0123456789-abcdefghijklm";
const MiB = 1024 * 1024;

let service: RunningService;
let work: string;
let nginx: ChildProcess | undefined;
let nginxOutput = "";
let proxyPort: number;
let ca: Buffer;
const requestLog: Record<string, unknown>[] = [];


/** The documented file with its three "test:" lines pointed at this run; fails if they moved. */
function proxyConfiguration(servicePort: number, port: number, certFile: string, keyFile: string): string {
  const text = readFileSync(CONF, "utf8");
  const replaced = text
    .replace(/^( *)server 127\.0\.0\.1:8080;( +# test: upstream)$/m, `$1server 127.0.0.1:${servicePort};$2`)
    .replace(/^( *)listen 443 ssl;( +# test: listen)$/m, `$1listen 127.0.0.1:${port} ssl;$2`)
    .replace(/^( *)ssl_certificate +\/etc\/market-service\/tls\/cert\.pem;( +# test: certificate)$/m, `$1ssl_certificate ${certFile};$2`)
    .replace(/^( *)ssl_certificate_key +\/etc\/market-service\/tls\/key\.pem;( +# test: certificate)$/m, `$1ssl_certificate_key ${keyFile};$2`);
  const changed = replaced.split("\n").filter((line, i) => line !== text.split("\n")[i]);
  expect(changed, "the four lines marked 'test:' in docs/nginx/market-service.conf").toHaveLength(4);
  return replaced;
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 250; attempt++) {
    if (nginx?.exitCode !== null && nginx?.exitCode !== undefined) throw new Error(`nginx exited (${nginx.exitCode}): ${nginxOutput}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`nginx did not listen on ${port}: ${nginxOutput}`);
}

beforeAll(async () => {
  // `npm test` fetches nginx before the tests (pretest: scripts/fetch-test-tools.sh); a vitest run
  // of this file alone fetches it here. Either way a missing binary ends in a failure, never a skip.
  if (!existsSync(NGINX) && process.env["NGINX_BIN"] === undefined) {
    execFileSync("bash", [path.join(ROOT, "scripts/fetch-nginx.sh")], { stdio: "ignore", timeout: 120_000 });
  }
  expect(existsSync(NGINX), `${NGINX} is missing: scripts/fetch-nginx.sh did not provide it`).toBe(true);
  work = mkdtempSync(path.join(tmpdir(), "nginx-proxy-"));
  service = await startService({
    env: {
      DATA_DIR: path.join(work, "data"),
      PORT: "0",
      HOST: "127.0.0.1",
      SHARDS: "1",
      SERVICE_HMAC_SECRETS: `operator=${OPERATOR_SECRET}`,
      SERVICE_OPERATOR_ACTORS: "operator",
      MCP_STATIC_TOKENS: `${STATIC_TOKEN}=agent`,
    },
    log: (_level, message, fields) => {
      if (message === "request") requestLog.push({ ...fields });
    },
    onFatal: (message) => {
      throw new Error(`service lost durability: ${message}`);
    },
  });
  const certFile = path.join(work, "cert.pem");
  const keyFile = path.join(work, "key.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
  ca = readFileSync(certFile);
  proxyPort = await freePort();
  writeFileSync(path.join(work, "market-service.conf"), proxyConfiguration(service.port, proxyPort, certFile, keyFile));
  for (const dir of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(path.join(work, dir));
  // What a packaged nginx.conf provides around the http-context file (Debian: conf.d/ inside http).
  writeFileSync(
    path.join(work, "nginx.conf"),
    [
      "daemon off;",
      "master_process off;",
      "worker_processes 1;",
      `pid ${work}/nginx.pid;`,
      `error_log ${work}/error.log notice;`,
      "events { worker_connections 256; }",
      "http {",
      `  access_log ${work}/access.log;`,
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `  ${kind}_temp_path ${work}/${kind === "client_body" ? "body" : kind};`),
      `  include ${work}/market-service.conf;`,
      "}",
      "",
    ].join("\n"),
  );
  nginx = spawn(NGINX, ["-p", work, "-c", path.join(work, "nginx.conf"), "-e", path.join(work, "error.log")], { stdio: ["ignore", "pipe", "pipe"] });
  nginx.stdout?.on("data", (data: Buffer) => (nginxOutput += data.toString()));
  nginx.stderr?.on("data", (data: Buffer) => (nginxOutput += data.toString()));
  await waitForPort(proxyPort);
}, 180_000);

afterAll(async () => {
  if (nginx !== undefined && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx?.once("exit", resolve));
    nginx.kill("SIGTERM");
    await exited;
  }
  await service?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

interface Exchange {
  responses: RawResponse[];
  raw: Buffer;
}

/** One TLS connection through the proxy: writes `bytes`, resolves after `expect` responses or the close. */
function viaProxy(bytes: string | Buffer | ((socket: tls.TLSSocket) => Promise<void>), expectResponses = 1): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ port: proxyPort, host: "127.0.0.1", ca, servername: "localhost" });
    let raw = Buffer.alloc(0);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      try {
        resolve({ responses: parseResponses(raw), raw });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const timer = setTimeout(finish, 15_000); // a safety net: every case here is answered at once
    socket.on("secureConnect", () => {
      if (typeof bytes === "function") void bytes(socket).catch(() => undefined);
      else socket.write(bytes);
    });
    socket.on("data", (data) => {
      raw = Buffer.concat([raw, data]);
      try {
        if (parseResponses(raw).length >= expectResponses) finish();
      } catch {
        // HTTP/0.9 answers have no status line: wait for the close
      }
    });
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", finish);
  });
}

const request = (line: string, headers: string[] = ["Host: x"]): string => `${line}\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n`;
const fields = (count: number): string[] => ["Host: x", ...Array.from({ length: count - 1 }, (_, i) => `X-F${i}: v`)];
const mcpHeaders = ["Host: x", `authorization: Bearer ${STATIC_TOKEN}`, "content-type: application/json", "accept: application/json, text/event-stream"];
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

async function answer(bytes: string | Buffer): Promise<{ status: number; body: any; headers: Map<string, string> }> {
  const { responses } = await viaProxy(bytes);
  expect(responses.length, "an answer").toBeGreaterThanOrEqual(1);
  const first = responses[0] as RawResponse;
  return { status: first.status, body: first.body === "" ? undefined : JSON.parse(first.body), headers: first.headers };
}

const malformed = { error: { code: "invalid_request", message: "malformed HTTP request" } };

describe("what uWS never answers, answered by the proxy", () => {
  it("HTTP/1.0, with and without Host, and keep-alive: answered by the service", async () => {
    expect(await answer(request("GET /healthz HTTP/1.0"))).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await answer("GET /healthz HTTP/1.0\r\n\r\n")).toMatchObject({ status: 200, body: { status: "ok" } });
    const keepAlive = await viaProxy(request("GET /healthz HTTP/1.0", ["Host: x", "Connection: keep-alive"]).repeat(2), 2);
    expect(keepAlive.responses.map((r) => r.status)).toEqual([200, 200]);
  });

  it("HTTP/0.9 (no version): answered the HTTP/0.9 way, the body alone", async () => {
    const { raw } = await viaProxy("GET /healthz\r\n\r\n");
    expect(raw.toString()).toBe('{"status":"ok"}');
  });

  it("HTTP/2.0 in a request line: 505", async () => {
    expect(await answer(request("GET /healthz HTTP/2.0"))).toMatchObject({ status: 505, body: { error: { code: "invalid_request", message: "HTTP version not supported" } } });
  });

  it("absolute-form target: answered, and the service sees the origin-form path", async () => {
    const result = await answer(request(`GET https://127.0.0.1:${proxyPort}/healthz HTTP/1.1`, ["Host: x", "x-request-id: proxy-absolute"]));
    expect(result).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(requestLog.find((line) => line["requestId"] === "proxy-absolute")).toMatchObject({ route: "/healthz", status: 200 });
  });

  it("OPTIONS *, CONNECT and a target without a slash: 400 (nginx serves neither asterisk- nor authority-form)", async () => {
    expect(await answer(request("OPTIONS * HTTP/1.1"))).toMatchObject({ status: 400, body: malformed });
    expect(await answer(request("CONNECT example.com:443 HTTP/1.1"))).toMatchObject({ status: 400, body: malformed });
    expect(await answer(request("GET healthz HTTP/1.1"))).toMatchObject({ status: 400, body: malformed });
  });

  it("methods uWS does not route (PROPFIND, QUERY): 405 with Allow", async () => {
    for (const line of ["PROPFIND /healthz HTTP/1.1", "QUERY /v1/markets HTTP/1.1"]) {
      const result = await answer(request(line, ["Host: x", "Content-Length: 0"]));
      expect(result).toMatchObject({ status: 405, body: { error: { code: "method_not_allowed" } } });
      expect(result.headers.get("allow")).toBe("GET, POST");
    }
  });

  it("lowercase and mixed-case methods: 400", async () => {
    expect(await answer(request("get /healthz HTTP/1.1"))).toMatchObject({ status: 400, body: malformed });
    expect(await answer(request("Get /healthz HTTP/1.1"))).toMatchObject({ status: 400, body: malformed });
  });

  it("the seven other known methods still get the service's own 405 (HEAD without a body)", async () => {
    const put = await answer(request("PUT /healthz HTTP/1.1"));
    expect(put).toMatchObject({ status: 405, body: { error: { code: "method_not_allowed", message: "method PUT is not allowed here" } } });
    expect(put.headers.get("allow")).toBe("GET");
    const head = await viaProxy(request("HEAD /healthz HTTP/1.1"));
    expect(head.raw.toString("latin1")).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n[\s\S]*\r\n\r\n$/);
  });

  it("chunk extensions are decoded; the service gets the body with a Content-Length", async () => {
    const chunked = request("POST /mcp HTTP/1.1", [...mcpHeaders, "Transfer-Encoding: chunked"]) + `${PING.length.toString(16)};ext="a b"\r\n${PING}\r\n0;x=y\r\n\r\n`;
    expect(await answer(chunked)).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 1, result: {} } });
    const hexLike = request("POST /v1/markets HTTP/1.1", ["Host: x", "Transfer-Encoding: chunked"]) + "5;a=1\r\nhello\r\n0\r\n\r\n";
    expect(await answer(hexLike)).toMatchObject({ status: 401, body: { error: { code: "unauthenticated" } } });
  });

  it("49 and 100 header fields: answered (only the fields the service reads go on)", async () => {
    expect(await answer(request("GET /healthz HTTP/1.1", fields(49)))).toMatchObject({ status: 200 });
    expect(await answer(request("GET /healthz HTTP/1.1", fields(100)))).toMatchObject({ status: 200 });
  });

  it("heads over 4 KiB: HTTP/1.0 padded, 49 fields padded, a valid 8 KiB head in two writes", async () => {
    const pad = `X-Pad: ${"p".repeat(4200)}`;
    expect(await answer(request("GET /healthz HTTP/1.0", ["Host: x", pad]))).toMatchObject({ status: 200 });
    expect(await answer(request("GET /healthz HTTP/1.1", fields(49).map((f, i) => (i === 1 ? pad : f))))).toMatchObject({ status: 200 });
    const head = request("GET /healthz HTTP/1.1", ["Host: x", `X-Pad: ${"p".repeat(8 * 1024)}`]);
    const split = await viaProxy(async (socket) => {
      socket.write(head.slice(0, 4 * 1024));
      await new Promise((resolve) => setImmediate(resolve));
      socket.write(head.slice(4 * 1024));
    });
    expect(split.responses.map((r) => r.status)).toEqual([200]);
  });

  it("malformed request lines and fields, smuggling-shaped framing, no Host: 400", async () => {
    const cases = [
      request("GET /a b c HTTP/1.1"),
      request("GET /healthz HTTP/1.1", ["Host: x", "Bad Name: v"]),
      request("GET /healthz HTTP/1.1", ["Host: x", "X-A : v"]),
      request("GET /healthz HTTP/1.1", ["Host: x", "X-A: v", " folded"]),
      "HELLO\r\n\r\n",
      request("POST /v1/markets HTTP/1.1", ["Host: x", "Content-Length: 5", "Transfer-Encoding: chunked"]) + "5\r\nhello\r\n0\r\n\r\n",
      request("POST /v1/markets HTTP/1.1", ["Host: x", "Content-Length: abc"]),
      request("GET /healthz HTTP/1.1", ["Accept: */*"]),
      "GET /healthz HTTP/1.1\r\n\r\n",
    ];
    for (const bytes of cases) expect(await answer(bytes), JSON.stringify(bytes.slice(0, 60))).toMatchObject({ status: 400, body: malformed });
  });

  it("what nginx tolerates is answered, never forwarded as-is: a line without a colon, '(' in a name, bare LF", async () => {
    expect(await answer(request("GET /healthz HTTP/1.1", ["Host: x", "NoColonHere"]))).toMatchObject({ status: 200 });
    expect(await answer(request("GET /healthz HTTP/1.1", ["Host: x", "X(a): v"]))).toMatchObject({ status: 200 });
    expect(await answer("GET /healthz HTTP/1.1\nHost: x\n\n")).toMatchObject({ status: 200 });
  });

  it("pipelining: a shard-bound MCP call and two more requests in one write, all answered in order", async () => {
    const create = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "create_market",
        arguments: {
          commandId: "proxy-pipelined",
          marketId: "proxy-pipelined",
          principalId: "agent",
          subject: { schema: "table.v1", data: {} },
          mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
        },
      },
    });
    const bytes = request("POST /mcp HTTP/1.1", [...mcpHeaders, `content-length: ${Buffer.byteLength(create)}`]) + create + request("GET /healthz HTTP/1.1") + request("GET /v1/markets/proxy-pipelined HTTP/1.1", ["Host: x", `authorization: Bearer ${STATIC_TOKEN}`]);
    const { responses } = await viaProxy(bytes, 3);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401]); // the static token is for /mcp only
    expect(JSON.parse((responses[0] as RawResponse).body).result.structuredContent.market.state).toBe("draft");
  });

  it("bodies over the limit: the service's 400 reaches the client, declared or chunked, every time", async () => {
    const tooLarge = { error: { code: "invalid_request", message: "request body exceeds 1 MiB" } };
    for (let i = 0; i < 3; i++) {
      const declared = await viaProxy(async (socket) => {
        socket.write(request("POST /v1/markets HTTP/1.1", ["Host: x", `Content-Length: ${2 * MiB}`]));
        socket.write(Buffer.alloc(2 * MiB, 0x20));
      });
      expect(declared.responses.map((r) => [r.status, JSON.parse(r.body)])).toEqual([[400, tooLarge]]);
      const chunked = await viaProxy(async (socket) => {
        socket.write(request("POST /v1/markets HTTP/1.1", ["Host: x", "Transfer-Encoding: chunked"]));
        for (let chunk = 0; chunk < 32 && !socket.destroyed; chunk++) socket.write(`10000\r\n${" ".repeat(0x10000)}\r\n`);
        if (!socket.destroyed) socket.write("0\r\n\r\n");
      });
      expect(chunked.responses.map((r) => [r.status, JSON.parse(r.body)])).toEqual([[400, tooLarge]]);
    }
  });
});

/** fetch over https that trusts the test certificate (what MarketClient needs). */
function trustingFetch(): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const body = init?.body === undefined || init.body === null ? undefined : Buffer.from(String(init.body));
    const headers: Record<string, string> = { ...(init?.headers as Record<string, string> | undefined) };
    if (body !== undefined) headers["content-length"] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(url, { method: init?.method ?? "GET", headers, ca, servername: "localhost" }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") responseHeaders.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: responseHeaders }));
        });
      });
      req.on("error", reject);
      req.end(body);
    });
  }) as typeof fetch;
}

describe("an authenticated round trip through the proxy", () => {
  it("HMAC-signed provisioning, an Ed25519 challenge and token, bearer commands, an HMAC-signed read with a query", async () => {
    const client = new MarketClient({ baseUrl: `https://127.0.0.1:${proxyPort}`, fetch: trustingFetch() });
    const operator = { actorId: "operator", secret: OPERATOR_SECRET };
    const alice = await client.provisionNewIdentity({ principalId: "alice" }, { credentials: { kind: "hmac", ...operator } });
    const bob = await client.provisionNewIdentity({ principalId: "bob" }, { credentials: { kind: "hmac", ...operator } });
    const aliceToken = { kind: "bearer" as const, token: (await client.signIn(alice)).accessToken };
    const bobToken = { kind: "bearer" as const, token: (await client.signIn(bob)).accessToken };
    const created = await client.request(
      "POST",
      "/v1/markets",
      {
        body: {
          commandId: "proxy-c1",
          marketId: "proxy-table",
          principalId: "alice",
          subject: { schema: "table.v1", data: { seats: 4 } },
          mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } },
        },
        credentials: aliceToken,
      },
    );
    expect(created.status, created.text).toBe(201);
    const published = await client.request("POST", "/v1/markets/proxy-table/publish", { body: { commandId: "proxy-c2", principalId: "alice", expectedVersion: 1 }, credentials: aliceToken });
    expect(published.status, published.text).toBe(200);
    const claimed = await client.request("POST", "/v1/markets/proxy-table/direct-claims", { body: { commandId: "proxy-k1", principalId: "bob" }, credentials: bobToken });
    expect(claimed.status, claimed.text).toBe(200);
    // The signature covers the request target exactly as sent, query included, and the method.
    const read = await client.request("GET", "/v1/markets/proxy-table?view=full", { credentials: { kind: "hmac", ...operator } });
    expect(read.status, read.text).toBe(200);
    expect(read.body.id).toBe("proxy-table");
    // A wrong signature is still refused through the proxy.
    const forged = await client.request("GET", "/v1/markets/proxy-table", { credentials: { kind: "hmac", actorId: "operator", secret: `${OPERATOR_SECRET}-wrong` } });
    expect(forged.status).toBe(401);
  });
});

describe("the documented configuration is the tested one", () => {
  it("docs/deploy.md contains docs/nginx/market-service.conf verbatim", () => {
    const deploy = readFileSync(path.join(ROOT, "docs/deploy.md"), "utf8");
    expect(deploy.includes(readFileSync(CONF, "utf8").trimEnd())).toBe(true);
  });
});
