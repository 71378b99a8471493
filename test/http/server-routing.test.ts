/**
 * Routing, reply shape, request ids and crash-proof dispatch against a real server on 127.0.0.1:0.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closed, connect, rawExchange } from "./support/raw-http.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.server.close());

const GENERATED_ID = /^[A-Za-z0-9_-]{22}$/;

async function json(response: Response): Promise<unknown> {
  expect(response.headers.get("content-type")).toBe("application/json");
  return JSON.parse(await response.text());
}

describe("routing", () => {
  it("serves a GET route with status line, content-type, no-store and a request id", async () => {
    const response = await fetch(`${t.base}/healthz`);
    expect(response.status).toBe(200);
    expect(response.statusText).toBe("OK");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toMatch(GENERATED_ID);
    expect(await json(response)).toEqual({ status: "ok" });
  });

  it("answers an unknown path with 404 not_found", async () => {
    for (const path of ["/nope", "/", "/healthz/extra", "/markets", "/markets/", "/markets//x"]) {
      const response = await fetch(`${t.base}${path}`, { method: "POST", body: "{}" });
      expect(response.status, path).toBe(404);
      expect(response.statusText).toBe("Not Found");
      expect(await json(response)).toEqual({ error: { code: "not_found", message: "no such route" } });
    }
  });

  it("answers a known path with another method with 405 method_not_allowed and Allow", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const response = await fetch(`${t.base}/healthz`, { method });
      expect(response.status, method).toBe(405);
      expect(response.statusText).toBe("Method Not Allowed");
      expect(response.headers.get("allow")).toBe("GET");
      expect(response.headers.get("x-request-id")).toMatch(GENERATED_ID);
      expect(await json(response)).toEqual({
        error: { code: "method_not_allowed", message: `method ${method} is not allowed here` },
      });
    }
    const get = await fetch(`${t.base}/echo`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const head = await fetch(`${t.base}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(405);
  });

  it("passes url, path, query, params and headers to the handler", async () => {
    const response = await fetch(`${t.base}/markets/m-1?view=full&x=%20`, { headers: { "X-Probe": "hello" } });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({
      params: { marketId: "m-1" },
      url: "/markets/m-1?view=full&x=%20",
      path: "/markets/m-1",
      query: "view=full&x=%20",
      route: "/markets/:marketId",
      probe: "hello",
      bodyLength: 0,
    });
  });

  it("keeps an empty query distinct from no query in url (HMAC signs the exact URI)", async () => {
    const { responses } = await rawExchange(t.port, { send: "GET /markets/m?  HTTP/1.1\r\nHost: x\r\n\r\n".replace("  ", " ") });
    expect(JSON.parse(responses[0]?.body ?? "")).toMatchObject({ url: "/markets/m?", query: "" });
  });

  it("decodes several parameters", async () => {
    const response = await fetch(`${t.base}/markets/a%20b/items/%E2%82%AC`, { method: "POST", body: "{}" });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Created");
    expect(await json(response)).toEqual({ params: { marketId: "a b", itemId: "€" } });
  });

  it("sends pre-serialised replies as given", async () => {
    const text = await fetch(`${t.base}/serialized`);
    expect(text.status).toBe(200);
    expect(await text.text()).toBe('{"pre":"serialised"}');
    const buffer = await fetch(`${t.base}/serialized-buffer`);
    expect(buffer.status).toBe(201);
    expect(buffer.headers.get("content-type")).toBe("application/json");
    expect(await buffer.text()).toBe('{"pre":"buffer"}');
  });

  it("refuses a GET with a body", async () => {
    const { responses } = await rawExchange(t.port, {
      send: "GET /markets/m HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    });
    expect(responses[0]?.status).toBe(400);
    expect(JSON.parse(responses[0]?.body ?? "")).toEqual({
      error: { code: "invalid_request", message: "a GET request must not have a body" },
    });
  });
});

describe("x-request-id", () => {
  it("echoes a sane incoming id on success and on every kind of error", async () => {
    const requests: [string, RequestInit][] = [
      ["/healthz", {}],
      ["/nope", {}],
      ["/healthz", { method: "DELETE" }],
      ["/echo", { method: "POST", body: "not json" }],
      ["/throw", { method: "POST", body: "{}" }],
      ["/markets/%zz", {}],
      ["/small", { method: "POST", body: "x".repeat(17) }],
    ];
    for (const [path, init] of requests) {
      const id = `req.${path.length}:abc-XYZ_9`;
      const response = await fetch(`${t.base}${path}`, { ...init, headers: { "x-request-id": id } });
      expect(response.headers.get("x-request-id"), path).toBe(id);
      expect(response.headers.get("content-type"), path).toBe("application/json");
      await response.arrayBuffer();
    }
  });

  it("replaces an id that is too long or has unsafe characters", async () => {
    for (const bad of ["a".repeat(129), "has space", "semi;colon", "quote\"", "é"]) {
      const { responses } = await rawExchange(t.port, {
        send: Buffer.from(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${bad}\r\n\r\n`, "utf8"),
      });
      expect(responses[0]?.status, bad).toBe(200);
      expect(responses[0]?.headers.get("x-request-id"), bad).toMatch(GENERATED_ID);
    }
    const max = "a".repeat(128);
    const response = await fetch(`${t.base}/healthz`, { headers: { "x-request-id": max } });
    expect(response.headers.get("x-request-id")).toBe(max);
  });

  it("generates distinct ids", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const response = await fetch(`${t.base}/healthz`);
      ids.add(response.headers.get("x-request-id") ?? "");
      await response.arrayBuffer();
    }
    expect(ids.size).toBe(300);
  });
});

describe("header handling", () => {
  it("refuses a repeated singleton header", async () => {
    const { responses } = await rawExchange(t.port, {
      send: "GET /markets/m HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n",
    });
    expect(responses[0]?.status).toBe(400);
    expect(JSON.parse(responses[0]?.body ?? "")).toEqual({
      error: { code: "invalid_request", message: "header authorization must not be repeated" },
    });
  });

  it("combines other repeated headers", async () => {
    const { responses } = await rawExchange(t.port, {
      send: "GET /markets/m HTTP/1.1\r\nHost: x\r\nX-Probe: one\r\nx-probe: two\r\n\r\n",
    });
    expect(JSON.parse(responses[0]?.body ?? "")).toMatchObject({ probe: "one, two" });
  });

  it("refuses headers over 16 KiB with 400 and keeps serving", async () => {
    const response = await fetch(`${t.base}/markets/m`, { headers: { "x-big": "a".repeat(20_000) } });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-request-id")).toMatch(GENERATED_ID);
    expect(await json(response)).toEqual({ error: { code: "invalid_request", message: "request headers exceed 16384 bytes" } });
    expect((await fetch(`${t.base}/healthz`)).status).toBe(200);
  });

  it("survives a header block uWS itself refuses (over ≈100 KiB: connection reset)", async () => {
    const huge = await rawExchange(t.port, { send: `GET /markets/m HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(300_000)}\r\n\r\n` });
    expect(huge.responses).toEqual([]);
    expect(huge.closedBy).not.toBe("client");
    expect((await fetch(`${t.base}/healthz`)).status).toBe(200);
  });

  it("survives a request with more headers than uWS parses (it never answers it)", async () => {
    // uWS neither answers nor closes such a request until its ~10 s idle timeout; we only check
    // that the server is unharmed meanwhile, then hang up ourselves.
    const socket = await connect(t.port);
    socket.write(`GET /markets/m HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 100 }, (_, i) => `X-H${i}: v\r\n`).join("")}\r\n`);
    expect((await fetch(`${t.base}/healthz`)).status).toBe(200);
    const counted = t.calls.get("/markets/:marketId") ?? 0;
    socket.destroy();
    await closed(socket);
    expect((await fetch(`${t.base}/markets/after`)).status).toBe(200);
    expect(t.calls.get("/markets/:marketId")).toBe(counted + 1);
  });

  it("drops requests with both Content-Length and Transfer-Encoding (smuggling) without crashing", async () => {
    const result = await rawExchange(t.port, {
      send: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    });
    expect(result.responses.every((r) => r.status >= 400)).toBe(true);
    expect((await fetch(`${t.base}/healthz`)).status).toBe(200);
  });
});

describe("crash-proofing", () => {
  it("turns an async throw into a generic 500 and logs it with the request id", async () => {
    const response = await fetch(`${t.base}/throw`, { method: "POST", body: "{}", headers: { "x-request-id": "throw-1" } });
    expect(response.status).toBe(500);
    expect(response.statusText).toBe("Internal Server Error");
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: { code: "internal_error", message: "internal error" } });
    expect(text).not.toContain("secret");
    const entry = t.logs.find((e) => e.fields.requestId === "throw-1");
    expect(entry?.level).toBe("error");
    expect(entry?.fields.route).toBe("/throw");
    expect(String(entry?.fields.error)).toContain("secret internals 42");
  });

  it("turns a synchronous throw and a non-Error rejection into 500", async () => {
    const sync = await fetch(`${t.base}/throw-sync`, { method: "POST", body: "{}" });
    expect(sync.status).toBe(500);
    expect(await sync.text()).not.toContain("secret");
    const nonError = await fetch(`${t.base}/reject-non-error`);
    expect(nonError.status).toBe(500);
    expect(await json(nonError)).toEqual({ error: { code: "internal_error", message: "internal error" } });
  });

  it("replies with the HttpError's code, status and message", async () => {
    const cases: [string, number, string][] = [
      ["market_not_found", 404, "failed with market_not_found"],
      ["capacity_exhausted", 409, "failed with capacity_exhausted"],
      ["unknown_mechanism", 422, "failed with unknown_mechanism"],
      ["delegation_not_found", 403, "failed with delegation_not_found"],
      ["unauthenticated", 401, "request authentication failed"],
      ["internal_error", 500, "internal error"],
    ];
    for (const [code, status, message] of cases) {
      const response = await fetch(`${t.base}/fail/${code}`, { method: "POST", body: "{}" });
      expect(response.status, code).toBe(status);
      expect(await json(response)).toEqual({ error: { code, message } });
    }
    const revoke = await fetch(`${t.base}/fail/delegation_not_found_revoke`, { method: "POST", body: "{}" });
    expect(revoke.status).toBe(404);
    expect(await json(revoke)).toEqual({ error: { code: "delegation_not_found", message: "no delegation d1" } });
  });

  it("answers 500 for replies that are not valid (bad status, header injection, unserialisable)", async () => {
    for (const kind of ["status", "no-content", "header-injection", "reserved-header", "cycle", "bigint", "undefined", "null"]) {
      const response = await fetch(`${t.base}/bad-reply/${kind}`);
      expect(response.status, kind).toBe(500);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(await json(response)).toEqual({ error: { code: "internal_error", message: "internal error" } });
    }
    const ok = await fetch(`${t.base}/bad-reply/fine`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-extra")).toBe("yes");
  });

  it("isolates failures: 100 concurrent requests mixing throws, errors and echoes all get their own reply", async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const kind = i % 4;
        if (kind === 0) {
          const response = await fetch(`${t.base}/throw`, { method: "POST", body: "{}" });
          return response.status === 500 && (await response.text()).includes("internal_error");
        }
        if (kind === 1) {
          const response = await fetch(`${t.base}/echo`, { method: "POST", body: `{"n":${i},"a":1,"a":2}` });
          return response.status === 400;
        }
        const response = await fetch(`${t.base}/echo`, {
          method: "POST",
          body: JSON.stringify({ n: i, pad: "x".repeat(i * 37) }),
          headers: { "x-request-id": `c-${i}` },
        });
        const body = (await response.json()) as { n: number; pad: string };
        return response.status === 200 && body.n === i && body.pad.length === i * 37 && response.headers.get("x-request-id") === `c-${i}`;
      }),
    );
    expect(results.filter((ok) => !ok)).toEqual([]);
  });

  it("drops the reply of a client that went away, and other requests are unaffected", async () => {
    const socketResult = rawExchange(t.port, {
      send: async (socket) => {
        socket.write("GET /slow/gone HTTP/1.1\r\nHost: x\r\n\r\n");
        await t.gates.entered("gone");
        socket.destroy(); // abort while the handler is waiting
      },
    });
    expect((await socketResult).responses).toEqual([]);
    // Its reads are paused while the answer is pending, so uWS sees the client leave only when
    // reading resumes (maxPausedMs at the latest, docs/http.md): wait for that report.
    expect(await t.reported((info) => info.route === "/slow/:key" && info.aborted)).toMatchObject({ status: 0, aborted: true });
    const concurrent = fetch(`${t.base}/slow/stays`);
    await t.gates.entered("stays");
    t.gates.open("gone");
    t.gates.open("stays");
    const response = await concurrent;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ key: "stays" });
    expect(t.finished).toContain("gone"); // the handler did finish; only its reply was dropped
    // The dropped reply never touched the aborted uWS response (that would throw inside uWS).
    expect(t.logs.filter((e) => e.message === "writing a response failed")).toEqual([]);
    expect(t.logs.some((e) => e.level === "debug" && e.message === "client went away before the reply" && e.fields.route === "/slow/:key")).toBe(true);
  });

  it("keeps serving when the logger itself throws", async () => {
    const { startTestServerWithLog } = await import("./support/throwing-log.js");
    const other = await startTestServerWithLog();
    try {
      const response = await fetch(`http://127.0.0.1:${other.port}/throw`, { method: "POST", body: "{}" });
      expect(response.status).toBe(500);
      expect((await fetch(`http://127.0.0.1:${other.port}/healthz`)).status).toBe(200);
    } finally {
      other.server.close();
    }
  });
});
