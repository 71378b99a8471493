/**
 * Request bodies: the 1 MiB limit, early refusal, truncated and aborted uploads, chunked bodies and
 * strict JSON through the echo route. Real server, raw sockets where fetch cannot misbehave enough.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closed, connect, rawExchange, writeFiller } from "./support/raw-http.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

const MiB = 1024 * 1024;
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.server.close());

const TOO_LARGE = { error: { code: "invalid_request", message: "request body exceeds 1 MiB" } };

async function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${t.base}${path}`, { method: "POST", body, headers });
  expect(response.headers.get("content-type")).toBe("application/json");
  expect(response.headers.get("x-request-id")).not.toBeNull();
  return { status: response.status, body: JSON.parse(await response.text()) };
}

describe("body size limit", () => {
  it("accepts exactly 1 MiB", async () => {
    const result = await post("/bytes", new Uint8Array(MiB).fill(0x61));
    expect(result).toEqual({ status: 200, body: { length: MiB, first: 0x61 } });
  });

  it("refuses 1 MiB + 1 byte with 400, does not run the handler, and keeps serving", async () => {
    const before = t.calls.get("/bytes") ?? 0;
    const result = await post("/bytes", new Uint8Array(MiB + 1));
    expect(result).toEqual({ status: 400, body: TOO_LARGE });
    expect(t.calls.get("/bytes") ?? 0).toBe(before);
    expect(await post("/echo", '{"still":"serving"}')).toEqual({ status: 200, body: { still: "serving" } });
  });

  it("reads a too-large declared body to its end without running the handler, then answers 400 and closes", async () => {
    const before = t.calls.get("/bytes") ?? 0;
    const result = await rawExchange(t.port, {
      send: async (socket) => {
        socket.write(`POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: ${2 * MiB}\r\n\r\n`);
        await writeFiller(socket, 2 * MiB);
      },
    });
    expect(result.responses[0]?.status).toBe(400);
    expect(JSON.parse(result.responses[0]?.body ?? "")).toEqual(TOO_LARGE);
    expect(result.responses[0]?.headers.get("connection")).toBe("close");
    expect(t.calls.get("/bytes") ?? 0).toBe(before);
  });

  it("answers a too-large declared body only once it has all arrived", async () => {
    // Half the body, then nothing: the server must still be reading (and dropping), not answering.
    const socket = await connect(t.port);
    const received: Buffer[] = [];
    socket.on("data", (data) => received.push(data));
    socket.write(`POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: ${2 * MiB}\r\n\r\n`);
    await writeFiller(socket, MiB);
    // A request on another connection is answered after ours was read: the server had its chance.
    expect(await post("/echo", "{}")).toEqual({ status: 200, body: {} });
    expect(Buffer.concat(received).length).toBe(0);
    await writeFiller(socket, MiB);
    await closed(socket);
    const text = Buffer.concat(received).toString("latin1");
    expect(text.startsWith("HTTP/1.1 400 Bad Request\r\n")).toBe(true);
    expect(text.endsWith(JSON.stringify(TOO_LARGE))).toBe(true);
  });

  it("refuses a declared length above the discard bound at once, and closes", async () => {
    const result = await rawExchange(t.port, {
      send: `POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: ${100 * MiB}\r\n\r\n`, // no body sent at all
    });
    expect(result.responses[0]?.status).toBe(400);
    expect(JSON.parse(result.responses[0]?.body ?? "")).toEqual(TOO_LARGE);
    expect(result.responses[0]?.headers.get("connection")).toBe("close");
  });

  it("reads a chunked 2 MiB body to its last chunk, dropping it past the limit, then answers 400 and closes", async () => {
    const result = await rawExchange(t.port, {
      send: async (socket) => {
        socket.write("POST /bytes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (let i = 0; i < 32 && !socket.destroyed; i++) {
          socket.write(`10000\r\n`);
          await writeFiller(socket, 0x10000);
          if (!socket.destroyed) socket.write("\r\n");
        }
        if (!socket.destroyed) socket.write("0\r\n\r\n");
      },
      expectResponses: 2, // never comes: resolves on the server's close
    });
    expect(result.responses[0]?.status).toBe(400);
    expect(JSON.parse(result.responses[0]?.body ?? "")).toEqual(TOO_LARGE);
    expect(result.responses[0]?.headers.get("connection")).toBe("close");
    expect(result.closedBy).toBe("server");
    expect(await post("/echo", "{}")).toEqual({ status: 200, body: {} });
  });

  it("applies a route's own limit", async () => {
    expect(await post("/small", "x".repeat(16))).toEqual({ status: 200, body: { length: 16 } });
    expect(await post("/small", "x".repeat(17))).toEqual({
      status: 400,
      body: { error: { code: "invalid_request", message: "request body exceeds 16 bytes" } },
    });
  });
});

describe("broken uploads", () => {
  it("survives a truncated body (Content-Length larger than sent, then close) next to a live request", async () => {
    const before = t.calls.get("/echo") ?? 0;
    const live = fetch(`${t.base}/slow/live-1`);
    await t.gates.entered("live-1");
    const socket = await connect(t.port);
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"partial":');
    socket.end(); // FIN with 990 bytes missing
    await closed(socket);
    t.gates.open("live-1");
    const response = await live;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ key: "live-1" });
    expect(t.calls.get("/echo") ?? 0).toBe(before);
    expect(await post("/echo", '{"after":1}')).toEqual({ status: 200, body: { after: 1 } });
  });

  it("survives a connection reset in the middle of a large body next to a live request", async () => {
    const live = fetch(`${t.base}/slow/live-2`);
    await t.gates.entered("live-2");
    const socket = await connect(t.port);
    socket.write(`POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: ${MiB}\r\n\r\n`);
    await writeFiller(socket, 300_000);
    socket.resetAndDestroy();
    await closed(socket);
    t.gates.open("live-2");
    expect((await live).status).toBe(200);
    expect(await post("/echo", '{"after":2}')).toEqual({ status: 200, body: { after: 2 } });
  });

  it("reads a POST without Content-Length or Transfer-Encoding as an empty body", async () => {
    const result = await rawExchange(t.port, { send: "POST /bytes HTTP/1.1\r\nHost: x\r\n\r\n" });
    expect(result.responses[0]?.status).toBe(200);
    expect(JSON.parse(result.responses[0]?.body ?? "")).toEqual({ length: 0, first: null });
  });

  it("echoes a chunked body byte for byte", async () => {
    const result = await rawExchange(t.port, {
      send: 'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n3\r\n:[1\r\n2\r\n]}\r\n0\r\n\r\n',
    });
    expect(result.responses[0]?.status).toBe(200);
    expect(result.responses[0]?.body).toBe('{"a":[1]}');
  });

  it("closes the connection after a 404 whose body it read and dropped", async () => {
    const result = await rawExchange(t.port, {
      expectResponses: 1,
      send: "POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    });
    expect(result.responses[0]?.status).toBe(404);
    // A refused request's connection is not reused (its body was read only to be dropped).
    expect(result.responses[0]?.headers.get("connection")).toBe("close");
  });

  it("serves pipelined requests in order", async () => {
    const result = await rawExchange(t.port, {
      expectResponses: 3,
      send:
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"n":1}' +
        "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" +
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"n":3}',
    });
    expect(result.responses.map((r) => [r.status, r.body])).toEqual([
      [200, '{"n":1}'],
      [200, '{"status":"ok"}'],
      [200, '{"n":3}'],
    ]);
  });
});

describe("strict JSON through the echo route", () => {
  const invalid = async (body: string | Uint8Array): Promise<string> => {
    const result = await post("/echo", body);
    expect(result.status).toBe(400);
    const error = (result.body as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("invalid_request");
    return error.message;
  };

  it("refuses malformed UTF-8", async () => {
    expect(await invalid(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]))).toBe(
      "request body is not valid UTF-8",
    );
    expect(await invalid(new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]))).toBe("request body is not valid UTF-8");
  });

  it("refuses deep nesting, huge and inexact numbers, lone surrogates, duplicates and non-objects", async () => {
    expect(await invalid(`{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`)).toMatch(/^JSON nested deeper than 32 levels at \$\.a/);
    expect(await invalid('{"amountMinor":1e400}')).toBe("number at $.amountMinor is out of range");
    expect(await invalid('{"amountMinor":9007199254740993}')).toMatch(/^number at \$\.amountMinor cannot be represented exactly/);
    expect(await invalid('{"s":"\\ud800"}')).toBe("string at $.s contains a lone UTF-16 surrogate");
    expect(await invalid('{"s":{"t":1,"t":2}}')).toBe("duplicate member at $.s.t");
    expect(await invalid("[1,2]")).toBe("request body must be a JSON object");
    expect(await invalid("")).toBe("request body is empty");
    expect(await invalid('{"a":1}{"b":2}')).toMatch(/unexpected data after the top-level object/);
    expect(await invalid('{"raw":"a\u0000b"}')).toMatch(/raw control character/);
  });

  it("accepts -0 (as 0) and escaped NUL", async () => {
    expect(await post("/echo", '{"v":-0,"s":"a\\u0000b"}')).toEqual({ status: 200, body: { v: 0, s: "a\u0000b" } });
  });

  it("keeps __proto__ as data", async () => {
    const result = await post("/echo", '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}');
    expect(result.status).toBe(200);
    expect(result.body).toEqual(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
