/**
 * Pipelining (issue 25 §3b, gateway/http/paused-reads.ts): while an answer waits on the event loop
 * the connection's reads are paused, so a request arriving in a later read waits in the kernel
 * instead of making uWS close the connection; the answer resumes reading in its cork. Requests in
 * the same read as the pending one are still lost (inherent, pinned in delivery.test.ts and
 * uws-inherent.test.ts). A paused connection whose client leaves is noticed within maxPausedMs; an
 * answer still pending maxAnswerMs after its pause is a 503, before uWS's idle timer cuts the connection.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpRoute } from "../../gateway/http/index.js";
import { parseResponses, type RawResponse } from "./support/raw-http.js";
import { Gates, startTestServer, type TestServer } from "./support/test-server.js";

const postGates = new Gates();
const slowPost: HttpRoute = {
  method: "POST",
  pattern: "/slow-post/:key",
  handler: async (request) => {
    await postGates.wait(request.params.key ?? "");
    return { status: 201, body: { key: request.params.key, length: request.bodyBytes.length } };
  },
};

const streamGates = new Gates();
const streamsDone: string[] = [];
/** A streamed reply (as `/mcp` and `/metrics` give) that comes only once its gate opens. */
const slowStream: HttpRoute = {
  method: "GET",
  pattern: "/slow-stream/:key",
  handler: async (request) => {
    const key = request.params.key ?? "";
    await streamGates.wait(key);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("late"));
        controller.close();
      },
    });
    return { status: 200, contentType: "text/plain", stream, onDone: () => void streamsDone.push(key) };
  },
};

let t: TestServer;
/** Pauses last at most 100 ms here, so that a client leaving a paused connection is seen soon. */
let short: TestServer;
/** And answers are due 300 ms after their pause here, so that one too slow is answered 503 soon. */
let due: TestServer;
beforeAll(async () => {
  t = await startTestServer([slowPost]);
  short = await startTestServer([], { limits: { maxPausedMs: 100 } });
  due = await startTestServer([slowStream], { limits: { maxPausedMs: 100, maxAnswerMs: 300 } });
});
afterAll(() => {
  t.server.close();
  short.server.close();
  due.server.close();
});

/** Resolves once `condition` holds, checked after each event-loop turn (bounded by the test timeout). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A full round trip on another connection: by its end the server has polled the sockets again, so a
 * request written to ours before it has been read, unless reading is paused. Handlers must answer
 * only after this, or the answer comes within the parse of the first request and nothing is pending.
 */
async function roundTrip(server: TestServer): Promise<void> {
  expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
}

/** A connection that collects responses; `next(n)` resolves when n responses arrived or it closed. */
async function open(port: number): Promise<{ socket: net.Socket; responses: () => RawResponse[]; closed: () => boolean; wait: (n: number) => Promise<RawResponse[]> }> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  let raw = Buffer.alloc(0);
  let isClosed = false;
  const listeners: (() => void)[] = [];
  const notify = (): void => {
    for (const listener of listeners.splice(0)) listener();
  };
  socket.on("data", (data) => {
    raw = Buffer.concat([raw, data]);
    notify();
  });
  socket.on("close", () => {
    isClosed = true;
    notify();
  });
  socket.on("error", () => undefined);
  const responses = (): RawResponse[] => parseResponses(raw);
  const wait = async (n: number): Promise<RawResponse[]> => {
    while (responses().length < n && !isClosed) await new Promise<void>((resolve) => listeners.push(resolve));
    return responses();
  };
  return { socket, responses, closed: () => isClosed, wait };
}

describe("a request in a later read waits for the pending answer", () => {
  it("async GET, then a sync GET written after the first was read: both answered, in order", async () => {
    const c = await open(t.port);
    c.socket.write("GET /slow/later-1 HTTP/1.1\r\nHost: x\r\n\r\n");
    await t.gates.entered("later-1");
    await until(() => t.server.pausedConnections > 0); // paused at the end of the turn that read it
    c.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    await roundTrip(t);
    t.gates.open("later-1");
    const responses = await c.wait(2);
    expect(responses.map((r) => [r.status, r.body])).toEqual([
      [200, '{"key":"later-1"}'],
      [200, '{"status":"ok"}'],
    ]);
    expect(c.closed()).toBe(false);
    expect(t.server.pausedConnections).toBe(0);
    c.socket.destroy();
  });

  it("async POST (paused once its body is complete), then two more requests in later writes", async () => {
    const c = await open(t.port);
    c.socket.write("POST /slow-post/later-2 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhel");
    // The body is incomplete: reads must go on (a pause now would never see the rest).
    await new Promise((resolve) => setImmediate(resolve));
    c.socket.write("lo");
    await postGates.entered("later-2");
    await until(() => t.server.pausedConnections > 0);
    c.socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"n":2}');
    c.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    await roundTrip(t);
    postGates.open("later-2");
    const responses = await c.wait(3);
    expect(responses.map((r) => [r.status, r.body])).toEqual([
      [201, '{"key":"later-2","length":5}'],
      [200, '{"n":2}'],
      [200, '{"status":"ok"}'],
    ]);
    c.socket.destroy();
  });

  it("several answers in a row on one keep-alive connection, each with the next request already waiting", async () => {
    const c = await open(t.port);
    for (let i = 0; i < 4; i++) {
      const key = `chain-${i}`;
      c.socket.write(`GET /slow/${key} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await t.gates.entered(key);
      await until(() => t.server.pausedConnections > 0);
      c.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      await roundTrip(t);
      t.gates.open(key);
      expect((await c.wait(2 * (i + 1))).length).toBe(2 * (i + 1));
    }
    expect(c.responses().map((r) => r.status)).toEqual(Array(8).fill(200));
    c.socket.destroy();
  });
});

describe("an answer slower than maxAnswerMs", () => {
  it("is answered 503 with Retry-After at its deadline; the handler's late answer is dropped, and the connection serves the next request", async () => {
    const c = await open(due.port);
    c.socket.write("GET /slow/too-late HTTP/1.1\r\nHost: x\r\n\r\n");
    await due.gates.entered("too-late");
    const [late] = await c.wait(1);
    expect(late?.status).toBe(503);
    expect(late?.headers.get("retry-after")).toBe("1");
    expect(JSON.parse(late?.body ?? "")).toEqual({
      error: { code: "service_unavailable", message: "no answer within 0.3 s: the service is slow right now; retry shortly (a command retried with the same commandId is not done twice)" },
    });
    due.gates.open("too-late");
    await until(() => due.finished.includes("too-late"));
    c.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    const responses = await c.wait(2);
    expect(responses.map((r) => [r.status, r.body])).toEqual([
      [503, late?.body],
      [200, '{"status":"ok"}'],
    ]);
    expect(c.closed()).toBe(false);
    await until(() => due.logs.some((entry) => entry.message === "answer after its deadline dropped"));
    expect(due.logs.filter((entry) => entry.level === "error")).toEqual([]);
    c.socket.destroy();
  });

  it("a streamed answer that comes after the 503 is dropped too: the stream is let go, nothing is written, nothing logged as an error", async () => {
    const c = await open(due.port);
    c.socket.write("GET /slow-stream/too-late HTTP/1.1\r\nHost: x\r\n\r\n");
    await streamGates.entered("too-late");
    expect((await c.wait(1)).map((r) => r.status)).toEqual([503]);
    streamGates.open("too-late");
    await until(() => streamsDone.includes("too-late"));
    c.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect((await c.wait(2)).map((r) => [r.status, r.body])).toEqual([
      [503, c.responses()[0]?.body],
      [200, '{"status":"ok"}'],
    ]);
    expect(c.closed()).toBe(false);
    expect(due.logs.filter((entry) => entry.level === "error")).toEqual([]);
    expect(due.logs.some((entry) => entry.message === "answer after its deadline dropped" && entry.fields["route"] === "/slow-stream/:key")).toBe(true);
    c.socket.destroy();
  });
});

describe("the same read is inherent", () => {
  it("async + sync in one write still loses the connection (uWS closes it while parsing)", async () => {
    const c = await open(t.port);
    c.socket.write("GET /slow/same-read HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await c.wait(1)).toEqual([]);
    expect(c.closed()).toBe(true);
    t.gates.open("same-read");
  });
});

describe("a paused connection whose client leaves is still noticed", () => {
  for (const how of ["reset", "FIN"] as const) {
    it(`client ${how}: onAborted fires within maxPausedMs and nothing stays in flight`, async () => {
      const key = `leave-${how}`;
      const c = await open(short.port);
      c.socket.write(`GET /slow/${key} HTTP/1.1\r\nHost: x\r\nx-request-id: ${key}\r\n\r\n`);
      await short.gates.entered(key);
      await until(() => short.server.pausedConnections > 0);
      if (how === "reset") c.socket.resetAndDestroy();
      else c.socket.end();
      // Paused, uWS does not poll the socket at all; the sweep resumes it after maxPausedMs.
      expect(await short.reported((info) => info.requestId === key)).toMatchObject({ status: 0, aborted: true, route: "/slow/:key" });
      expect(short.server.pausedConnections).toBe(0);
      expect(short.server.inFlight).toBe(0);
      short.gates.open(key); // the handler finishes against an aborted response: dropped, not thrown
      await until(() => short.finished.includes(key));
      await new Promise((resolve) => setImmediate(resolve));
      expect(short.logs.filter((e) => e.message === "writing a response failed")).toEqual([]);
      expect(short.responses.filter((r) => r.requestId === key)).toHaveLength(1);
    });
  }
});
