/**
 * Construction, listen, close, TLS, exclusive ports and the plain-HTTP warning.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHttpServer, type HttpRoute, isLoopbackHost, type LogLevel } from "../../gateway/http/index.js";
import { startTestServer } from "./support/test-server.js";

const health: HttpRoute = { method: "GET", pattern: "/healthz", handler: () => ({ status: 200, body: { status: "ok" } }) };

function recorder(): { log: (level: LogLevel, message: string, fields: Readonly<Record<string, unknown>>) => void; entries: { level: LogLevel; message: string }[] } {
  const entries: { level: LogLevel; message: string }[] = [];
  return { entries, log: (level, message) => entries.push({ level, message }) };
}

describe("listen and close", () => {
  it("listens on port 0, reports the real port, and refuses connections after close", async () => {
    const server = createHttpServer({ routes: [health], log: () => {} });
    const port = await server.listen("127.0.0.1", 0);
    expect(port).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    server.close();
    server.close(); // idempotent
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    await expect(server.listen("127.0.0.1", 0)).rejects.toThrow(/once/);
  });

  it("rejects a second exclusive listener on the same port; shared listeners may coexist", async () => {
    const first = createHttpServer({ routes: [health], log: () => {} });
    const port = await first.listen("127.0.0.1", 0);
    const second = createHttpServer({ routes: [health], log: () => {} });
    await expect(second.listen("127.0.0.1", port)).rejects.toThrow(/cannot listen on 127\.0\.0\.1:/);
    first.close();
    second.close();

    // A port bound as 0 joins no SO_REUSEPORT group on Linux, so share the port found above.
    const a = createHttpServer({ routes: [health], log: () => {}, exclusivePort: false });
    const shared = await a.listen("127.0.0.1", port);
    const b = createHttpServer({ routes: [health], log: () => {}, exclusivePort: false });
    expect(await b.listen("127.0.0.1", shared)).toBe(shared);
    a.close();
    b.close();
  });

  it("survives close while a request is in flight", async () => {
    const t = await startTestServer();
    const pending = fetch(`${t.base}/slow/at-close`);
    await t.gates.entered("at-close");
    t.server.close();
    await expect(pending).rejects.toThrow();
    t.gates.open("at-close"); // the handler now finishes against an aborted response
    const next = await startTestServer();
    expect((await fetch(`${next.base}/healthz`)).status).toBe(200);
    next.server.close();
  });

  it("warns when serving plain HTTP beyond loopback, and only then", async () => {
    const loopback = recorder();
    const a = createHttpServer({ routes: [health], log: loopback.log });
    await a.listen("127.0.0.1", 0);
    a.close();
    expect(loopback.entries.filter((e) => e.level === "warn")).toEqual([]);

    const wide = recorder();
    const b = createHttpServer({ routes: [health], log: wide.log });
    await b.listen("0.0.0.0", 0);
    b.close();
    expect(wide.entries.filter((e) => e.level === "warn").map((e) => e.message)).toEqual([
      "serving plain HTTP on a non-loopback address; the spec requires TLS (§5.3)",
    ]);
    expect(isLoopbackHost("127.1.2.3")).toBe(true);
    expect(isLoopbackHost("::1")).toBe(true);
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("::")).toBe(false);
    expect(isLoopbackHost("10.0.0.1")).toBe(false);
  });
});

describe("route table validation", () => {
  const make = (routes: HttpRoute[], limits = {}) => () => createHttpServer({ routes, log: () => {}, limits });
  const handler = health.handler;

  it.each([
    ["empty table", [] as HttpRoute[], /route table is empty/],
    ["no leading slash", [{ method: "GET", pattern: "healthz", handler }], /must start with '\/'/],
    ["bad parameter name", [{ method: "GET", pattern: "/a/:", handler }], /bad parameter name/],
    ["repeated parameter", [{ method: "GET", pattern: "/a/:x/:x", handler }], /repeated parameter/],
    ["wildcard", [{ method: "GET", pattern: "/a/*", handler }], /bad segment/],
    ["duplicate", [health, health], /collide/],
    [
      "same shape",
      [
        { method: "GET", pattern: "/m/:a", handler },
        { method: "GET", pattern: "/m/:b", handler },
      ],
      /collide/,
    ],
    ["bad method", [{ method: "PUT" as "GET", pattern: "/x", handler }], /unsupported method/],
    ["body limit", [{ method: "POST", pattern: "/x", handler, maxBodyBytes: -1 }], /maxBodyBytes of \/x/],
  ] as [string, HttpRoute[], RegExp][])("refuses %s", (_label, routes, message) => {
    expect(make(routes)).toThrow(message);
  });

  it("refuses bad limits and half a TLS configuration", () => {
    expect(make([health], { maxBodyBytes: 1.5 })).toThrow(/maxBodyBytes/);
    expect(make([health], { maxHeaderBytes: 10 })).toThrow(/maxHeaderBytes/);
    expect(() => createHttpServer({ routes: [health], log: () => {}, tlsCertFile: "/x.pem" })).toThrow(/both tlsCertFile and tlsKeyFile/);
    expect(() => createHttpServer({ routes: [health], log: () => {}, tlsCertFile: "/no/cert.pem", tlsKeyFile: "/no/key.pem" })).toThrow(
      /TLS file \/no\/cert\.pem is not readable/,
    );
  });

  it("allows GET and POST on one pattern and answers 405 with both in Allow", async () => {
    const server = createHttpServer({
      log: () => {},
      routes: [
        { method: "GET", pattern: "/things/:id", handler: (r) => ({ status: 200, body: { get: r.params.id } }) },
        { method: "POST", pattern: "/things/:thingId", handler: (r) => ({ status: 200, body: { post: r.params.thingId } }) },
      ],
    });
    const port = await server.listen("127.0.0.1", 0);
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/things/a`)).json()).toEqual({ get: "a" });
      expect(await (await fetch(`http://127.0.0.1:${port}/things/b`, { method: "POST", body: "" })).json()).toEqual({ post: "b" });
      const put = await fetch(`http://127.0.0.1:${port}/things/c`, { method: "PUT" });
      expect(put.status).toBe(405);
      expect(put.headers.get("allow")).toBe("GET, POST");
    } finally {
      server.close();
    }
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasOpenssl())("TLS", () => {
  const dir = mkdtempSync(join(tmpdir(), "http-tls-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");

  it("serves HTTPS with an SSLApp and does not warn beyond loopback", async () => {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
      { stdio: "ignore" },
    );
    const log = recorder();
    const server = createHttpServer({ routes: [health], log: log.log, tlsCertFile: certFile, tlsKeyFile: keyFile });
    const port = await server.listen("0.0.0.0", 0);
    try {
      const { readFileSync } = await import("node:fs");
      const ca = readFileSync(certFile);
      const reply = await new Promise<{ status: number; body: string; requestId: string | undefined }>((resolve, reject) => {
        const req = httpsRequest({ host: "127.0.0.1", port, path: "/healthz", ca }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body, requestId: res.headers["x-request-id"] as string | undefined }));
        });
        req.on("error", reject);
        req.end();
      });
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({ status: "ok" });
      expect(reply.requestId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(log.entries.filter((e) => e.level === "warn")).toEqual([]);
    } finally {
      server.close();
    }
  });
});
