/**
 * The access log and the metrics count only replies that reached the client (issue 25 §3c,
 * gateway/http/delivery.ts). uWS drops a connection, and with it any reply still in its cork buffer,
 * when a Content-Length is not 1–9 digits and when a pipelined request arrives while an earlier
 * answer is pending; such replies must be reported as lost (status 0, aborted), never as the status
 * that was written. Real server, raw sockets: each test compares what the client received with what
 * the server's `onResponse` observer reported.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResponseInfo } from "../../gateway/http/route.js";
import { parseResponses } from "./support/raw-http.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.server.close());

/** Sends `bytes` in one write and collects everything until the server closes (or `responses` arrived). */
function sendOnce(bytes: string, responses = Number.POSITIVE_INFINITY): Promise<{ raw: Buffer; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(t.port, "127.0.0.1");
    let raw = Buffer.alloc(0);
    let done = false;
    const finish = (closedByServer: boolean): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ raw, closedByServer });
    };
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (data) => {
      raw = Buffer.concat([raw, data]);
      if (parseResponses(raw).length >= responses) finish(false);
    });
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
  });
}

const get = (path: string, id: string): string => `GET ${path} HTTP/1.1\r\nHost: x\r\nx-request-id: ${id}\r\n\r\n`;
const reportOf = (id: string): Promise<ResponseInfo> => t.reported((info) => info.requestId === id);

describe("replies uWS drops are reported as lost", () => {
  it("a non-numeric Content-Length: the client gets nothing, and the request is reported aborted, not 400", async () => {
    const result = await sendOnce("POST /echo HTTP/1.1\r\nHost: x\r\nx-request-id: cl-abc\r\nContent-Length: abc\r\n\r\n");
    expect(result).toEqual({ raw: Buffer.alloc(0), closedByServer: true });
    const info = await reportOf("cl-abc");
    expect(info).toMatchObject({ status: 0, aborted: true, route: "/echo" });
    expect(info.droppedStatus).toBeUndefined(); // nothing was written at all
    expect(t.responses.filter((r) => r.requestId === "cl-abc")).toHaveLength(1);
  });

  it("a Content-Length of 10 digits (uWS reads at most 9) and one on an unknown path: the same", async () => {
    expect(await sendOnce("POST /echo HTTP/1.1\r\nHost: x\r\nx-request-id: cl-10\r\nContent-Length: 1000000000\r\n\r\n")).toEqual({ raw: Buffer.alloc(0), closedByServer: true });
    expect(await reportOf("cl-10")).toMatchObject({ status: 0, aborted: true });
    expect(await sendOnce("POST /nope HTTP/1.1\r\nHost: x\r\nx-request-id: cl-404\r\nContent-Length: 1x\r\n\r\n")).toEqual({ raw: Buffer.alloc(0), closedByServer: true });
    expect(await reportOf("cl-404")).toMatchObject({ status: 0, aborted: true, route: "-" });
  });

  it("a reply given just before a bad Content-Length in the same read is reported lost, with the status it had", async () => {
    const result = await sendOnce(get("/healthz", "before-cl") + "POST /echo HTTP/1.1\r\nHost: x\r\nx-request-id: after-cl\r\nContent-Length: abc\r\n\r\n");
    expect(result).toEqual({ raw: Buffer.alloc(0), closedByServer: true });
    expect(await reportOf("before-cl")).toMatchObject({ status: 0, aborted: true, droppedStatus: 200, route: "/healthz" });
    expect(await reportOf("after-cl")).toMatchObject({ status: 0, aborted: true });
  });

  it("sync + async + sync pipelined in one read: uWS kills the connection; the first 200 is reported lost", async () => {
    const result = await sendOnce(get("/healthz", "kill-1") + get("/slow/kill-2", "kill-2") + get("/healthz", "kill-3"));
    expect(result).toEqual({ raw: Buffer.alloc(0), closedByServer: true });
    expect(await reportOf("kill-1")).toMatchObject({ status: 0, aborted: true, droppedStatus: 200 });
    expect(await reportOf("kill-2")).toMatchObject({ status: 0, aborted: true, route: "/slow/:key" });
    t.gates.open("kill-2");
    // The third request never reached a handler.
    expect(t.responses.some((r) => r.requestId === "kill-3")).toBe(false);
  });

  it("async + sync pipelined in one read: the async request is reported aborted", async () => {
    const result = await sendOnce(get("/slow/first-async", "first-async") + get("/healthz", "then-sync"));
    expect(result).toEqual({ raw: Buffer.alloc(0), closedByServer: true });
    expect(await reportOf("first-async")).toMatchObject({ status: 0, aborted: true });
    t.gates.open("first-async");
    expect(t.responses.some((r) => r.requestId === "then-sync")).toBe(false);
  });
});

describe("replies that reached the client are reported as delivered", () => {
  it("three sync requests pipelined in one read: three 200s, reported as such", async () => {
    const result = await sendOnce(get("/healthz", "ok-1") + get("/healthz", "ok-2") + get("/serialized", "ok-3"), 3);
    expect(parseResponses(result.raw).map((r) => r.status)).toEqual([200, 200, 200]);
    for (const id of ["ok-1", "ok-2", "ok-3"]) {
      const info = await reportOf(id);
      expect(info).toMatchObject({ status: 200, aborted: false });
      expect(info.droppedStatus).toBeUndefined();
    }
  });

  it("sync + sync + async in one read: all three answered and reported", async () => {
    const pending = sendOnce(get("/healthz", "ssa-1") + get("/healthz", "ssa-2") + get("/slow/ssa-3", "ssa-3"), 3);
    await t.gates.entered("ssa-3");
    t.gates.open("ssa-3");
    const result = await pending;
    expect(parseResponses(result.raw).map((r) => r.status)).toEqual([200, 200, 200]);
    for (const id of ["ssa-1", "ssa-2", "ssa-3"]) expect(await reportOf(id)).toMatchObject({ status: 200, aborted: false });
  });

  it("a 400 for an empty Content-Length (uWS reads it as no body) is delivered and reported as 400", async () => {
    const result = await sendOnce("POST /echo HTTP/1.1\r\nHost: x\r\nx-request-id: cl-empty\r\nContent-Length:\r\n\r\n", 1);
    expect(parseResponses(result.raw).map((r) => r.status)).toEqual([400]);
    expect(await reportOf("cl-empty")).toMatchObject({ status: 400, aborted: false });
  });

  it("every request is reported exactly once", () => {
    const ids = t.responses.map((r) => r.requestId);
    expect(ids.length).toBe(new Set(ids).size);
  });
});
