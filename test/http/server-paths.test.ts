/**
 * Path parameters through a real server: what reaches a handler, and what is 404 `not_found`.
 * Raw sockets, because fetch normalises `..` and percent-encodes what it sends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawExchange } from "./support/raw-http.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.server.close());

async function getTarget(target: string): Promise<{ status: number; body: { params?: { marketId: string }; error?: { code: string; message: string } } }> {
  const { responses } = await rawExchange(t.port, { send: Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`, "latin1") });
  const response = responses[0];
  if (response === undefined) throw new Error(`no response for ${target}`);
  expect(response.headers.get("content-type")).toBe("application/json");
  return { status: response.status, body: JSON.parse(response.body) as never };
}

describe("path parameters reaching the handler", () => {
  it.each([
    ["/markets/a%2Fb", "a/b"],
    ["/markets/..", ".."],
    ["/markets/%2E%2E", ".."],
    ["/markets/.", "."],
    ["/markets/a%252F", "a%2F"],
    ["/markets/caf%C3%A9", "café"],
    ["/markets/%F0%9F%98%80", "😀"],
    ["/markets/a+b", "a+b"],
    ["/markets/m-1.x_y~z:@!$&'()*,;=", "m-1.x_y~z:@!$&'()*,;="],
  ])("%s → %j", async (target, expected) => {
    const result = await getTarget(target);
    expect(result.status).toBe(200);
    expect(result.body.params).toEqual({ marketId: expected });
  });

  it("accepts an id of exactly 1024 characters", async () => {
    expect((await getTarget(`/markets/${"m".repeat(1024)}`)).status).toBe(200);
    expect((await getTarget(`/markets/${"%E2%82%AC".repeat(1024)}`)).body.params?.marketId).toBe("€".repeat(1024));
  });
});

describe("path parameters refused with 404 not_found", () => {
  it.each([
    ["NUL", "/markets/%00", "path parameter marketId contains a control character"],
    ["LF", "/markets/a%0Ab", "path parameter marketId contains a control character"],
    ["DEL", "/markets/a%7F", "path parameter marketId contains a control character"],
    ["%zz", "/markets/%zz", "path parameter marketId has a malformed percent-encoding"],
    ["lone %", "/markets/%", "path parameter marketId has a malformed percent-encoding"],
    ["invalid UTF-8 escape", "/markets/%C3%28", "path parameter marketId has a malformed percent-encoding"],
    ["escaped lone surrogate", "/markets/%ED%A0%80", "path parameter marketId has a malformed percent-encoding"],
    ["raw non-ASCII", "/markets/caf\u00e9", "path parameter marketId contains a character that must be percent-encoded"],
    ["raw DEL", "/markets/a\u007fb", "path parameter marketId contains a character that must be percent-encoded"],
    ["1025 chars", `/markets/${"m".repeat(1025)}`, "path parameter marketId is longer than 1024 characters"],
    ["1025 escaped chars", `/markets/${"%41".repeat(1025)}`, "path parameter marketId is longer than 1024 characters"],
    ["20000 chars", `/markets/${"m".repeat(20_000)}`, "path parameter marketId is longer than 1024 characters"],
  ])("%s", async (_label, target, message) => {
    const result = await getTarget(target);
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ error: { code: "not_found", message } });
  });

  it("never runs the handler for a refused parameter", async () => {
    const before = t.calls.get("/markets/:marketId") ?? 0;
    await getTarget("/markets/%zz");
    await getTarget("/markets/%00");
    expect(t.calls.get("/markets/:marketId") ?? 0).toBe(before);
  });
});
