/**
 * The HTTP side of /mcp (spec §4.3, §5.3, docs/decisions.md T7): authentication happens before any
 * MCP processing and fails as a plain HTTP 401 with the spec's error body; a static MCP token works
 * on /mcp only; Ed25519 bearer tokens and HMAC work on /mcp too; GET and DELETE are 405 (stateless,
 * no sessions); the actor of a tool call is the authenticated one and nothing in the request can
 * change it. This file's tokens live 60 s so that expiry can be tested by moving the clock.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signHmacRequest } from "@market-service/client";
import {
  AGENT,
  AGENT_TOKEN,
  McpHarness,
  OPERATOR_SECRET,
  SUBJECT,
  bearer,
  directClaimMechanism,
  jsonRpcMessages,
  openMarket,
  uid,
  type RawResponse,
} from "./support/harness.js";

const UNAUTHENTICATED = { error: { code: "unauthenticated", message: "request authentication failed" } };
const TOOLS_LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

let h: McpHarness;
let bobToken: string;
let marketId: string;

beforeAll(async () => {
  h = await McpHarness.start({ env: { AUTH_TOKEN_TTL: "60" } });
  bobToken = (await h.provision("bob")).token;
  marketId = uid("m");
  await openMarket(await h.connect(AGENT_TOKEN), AGENT, marketId, directClaimMechanism({ capacity: 5 }));
});

afterAll(async () => {
  await h?.close();
});

function expectUnauthenticated(response: RawResponse): void {
  expect(response.status, response.text).toBe(401);
  expect(response.headers.get("content-type")).toBe("application/json");
  expect(JSON.parse(response.text)).toEqual(UNAUTHENTICATED);
}

/** Connects an SDK client with the given headers; resolves with the error it failed with. */
async function connectError(headers: Record<string, string>): Promise<unknown> {
  const client = new Client({ name: "mcp-suite", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(h.mcpUrl, { requestInit: { headers } });
  try {
    await client.connect(transport);
  } catch (error) {
    return error;
  } finally {
    await client.close().catch(() => undefined);
  }
  throw new Error("connect unexpectedly succeeded");
}

describe("authentication on /mcp", () => {
  it("the SDK client gets a StreamableHTTPError 401 without a token or with a wrong one", async () => {
    for (const headers of [{}, { Authorization: "Bearer wrong-token-wrong-token-wrong-token-wrong" }, { Authorization: `Bearer ${AGENT_TOKEN}x` }, { Authorization: `Basic ${Buffer.from("agent:x").toString("base64")}` }]) {
      const error = await connectError(headers);
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(401);
      expect((error as Error).message).toContain("request authentication failed");
    }
  });

  it("raw requests get 401 with exactly the spec's body", async () => {
    expectUnauthenticated(await h.rawPost(TOOLS_LIST));
    expectUnauthenticated(await h.rawPost(TOOLS_LIST, { authorization: "Bearer " }));
    expectUnauthenticated(await h.rawPost(TOOLS_LIST, { authorization: `Bearer ${AGENT_TOKEN.slice(0, -1)}` }));
    expectUnauthenticated(await h.rawPost(TOOLS_LIST, { authorization: `Token ${AGENT_TOKEN}` }));
    expectUnauthenticated(await h.rawPost(TOOLS_LIST, { authorization: AGENT_TOKEN }));
    // An HMAC header set with a wrong signature.
    const signed = signHmacRequest({ actorId: "operator", secret: `${OPERATOR_SECRET}-wrong`, method: "POST", uri: "/mcp", body: JSON.stringify(TOOLS_LIST), timestampSeconds: h.nowSeconds() });
    expectUnauthenticated(await h.rawPost(TOOLS_LIST, { authorization: signed.Authorization, "x-service-actor": signed["X-Service-Actor"], "x-service-timestamp": signed["X-Service-Timestamp"] }));
  });

  it("refuses before any MCP processing: a malformed body or Accept header without credentials is still 401", async () => {
    expectUnauthenticated(await h.rawPost("{not json"));
    expectUnauthenticated(await h.rawPost(TOOLS_LIST, { accept: "text/html" }));
    expectUnauthenticated(await h.rawPost({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_market", arguments: {} } }, { authorization: "Bearer nope" }));
  });

  it("accepts the static MCP token, an Ed25519 bearer token and HMAC signing", async () => {
    for (const headers of [{ authorization: `Bearer ${AGENT_TOKEN}` }, { authorization: `bearer ${bobToken}` }]) {
      const response = await h.rawPost(TOOLS_LIST, headers);
      expect(response.status, response.text).toBe(200);
      expect(jsonRpcMessages(response)[0].result.tools).toHaveLength(9);
    }
    const body = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_my_market_outcome", arguments: { marketId } } });
    const signed = signHmacRequest({ actorId: "operator", secret: OPERATOR_SECRET, method: "POST", uri: "/mcp", body, timestampSeconds: h.nowSeconds() });
    const response = await h.rawPost(body, { authorization: signed.Authorization, "x-service-actor": signed["X-Service-Actor"], "x-service-timestamp": signed["X-Service-Timestamp"] });
    expect(response.status, response.text).toBe(200);
    expect(jsonRpcMessages(response)[0].result.structuredContent.principalId).toBe("operator");
  });

  it("a static MCP token does not authenticate plain HTTP routes (401), though it works on /mcp", async () => {
    const asStatic = bearer(AGENT_TOKEN);
    for (const response of [
      await h.http.request("GET", `/v1/markets/${marketId}`, { credentials: asStatic }),
      await h.http.request("GET", `/v1/markets/${marketId}/record`, { credentials: asStatic }),
      await h.http.request("GET", `/v1/markets/${marketId}/my-outcome`, { credentials: asStatic }),
      await h.http.request("POST", "/v1/markets", { body: { commandId: uid("c"), marketId: uid("m"), principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() }, credentials: asStatic }),
      await h.http.request("POST", `/v1/markets/${marketId}/direct-claims`, { body: { commandId: uid("c"), principalId: AGENT }, credentials: asStatic }),
    ]) {
      expect(response.status, response.text).toBe(401);
      expect(response.body).toEqual(UNAUTHENTICATED);
    }
    // ... while the Ed25519 bearer token works on both transports.
    expect((await h.http.request("GET", `/v1/markets/${marketId}`, { credentials: bearer(bobToken) })).status).toBe(200);
    const agent = await h.connect(AGENT_TOKEN);
    expect((await agent.ok("get_market", { marketId })).id).toBe(marketId);
  });

  it("the tool runs as the authenticated actor: headers and _meta cannot change it", async () => {
    const response = await h.rawPost(
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "submit_direct_claim", arguments: { commandId: uid("c"), marketId, principalId: "bob" }, _meta: { actorId: "agent" } } },
      { authorization: `Bearer ${bobToken}`, "x-service-actor": AGENT, "x-actor-id": AGENT },
    );
    const [message] = jsonRpcMessages(response);
    expect(message.result.isError ?? false, response.text).toBe(false);
    expect(message.result.structuredContent.events[0]).toMatchObject({ principalId: "bob", actorId: "bob" });
    // The static token's actor acting for bob needs a delegation: the header does not help.
    const spoof = await h.rawPost(
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "submit_direct_claim", arguments: { commandId: uid("c"), marketId, principalId: "bob" } } },
      { authorization: `Bearer ${AGENT_TOKEN}`, "x-service-actor": "bob" },
    );
    expect(JSON.parse(jsonRpcMessages(spoof)[0].result.content[0].text).error.code).toBe("authority_reference_required");
  });
});

describe("HTTP methods and transport-level refusals", () => {
  it("GET and DELETE /mcp answer 405 method_not_allowed with Allow: POST (stateless: no SSE stream, no sessions)", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      for (const headers of [{ authorization: `Bearer ${AGENT_TOKEN}`, accept: "text/event-stream" }, {}]) {
        const response = await fetch(h.mcpUrl, { method, headers });
        expect(response.status, method).toBe(405);
        expect(response.headers.get("allow")).toBe("POST");
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
      }
    }
  });

  it("the SDK client works against the 405 on GET (it probes for a standalone SSE stream)", async () => {
    const agent = await h.connect(AGENT_TOKEN);
    expect((await agent.client.listTools()).tools).toHaveLength(9);
    expect(agent.client.getServerVersion()?.name).toBe("market-service");
    await agent.client.ping();
  });

  it("after authentication, the Streamable HTTP rules: Accept (406), Content-Type (415), JSON (400 -32700)", async () => {
    const auth = { authorization: `Bearer ${AGENT_TOKEN}` };
    const notAcceptable = await h.rawPost(TOOLS_LIST, { ...auth, accept: "application/json" });
    expect(notAcceptable.status).toBe(406);
    expect(JSON.parse(notAcceptable.text).error.code).toBe(-32000);
    const wrongType = await h.rawPost(TOOLS_LIST, { ...auth, "content-type": "text/plain" });
    expect(wrongType.status).toBe(415);
    const malformed = await h.rawPost("{not json", auth);
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text).error.code).toBe(-32700);
    const notRpc = await h.rawPost({ hello: "world" }, auth);
    expect(notRpc.status).toBe(400);
    // A notification alone: 202 without a body.
    const notification = await h.rawPost({ jsonrpc: "2.0", method: "notifications/initialized" }, auth);
    expect(notification.status).toBe(202);
    expect(notification.text).toBe("");
  });

  it("strict JSON on /mcp: duplicate members and unsafe integers are a -32700 parse error, batches still parse", async () => {
    const auth = { authorization: `Bearer ${AGENT_TOKEN}` };
    const duplicate = await h.rawPost('{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"ping"}', auth);
    expect(duplicate.status).toBe(400);
    const duplicateError = JSON.parse(duplicate.text).error;
    expect(duplicateError.code).toBe(-32700);
    expect(duplicateError.message).toContain("method");
    const unsafe = await h.rawPost('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', auth);
    expect(unsafe.status).toBe(400);
    expect(JSON.parse(unsafe.text).error.code).toBe(-32700);
    const nestedDuplicate = await h.rawPost(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_market","arguments":{"marketId":"a","marketId":"b"}}}',
      auth,
    );
    expect(nestedDuplicate.status).toBe(400);
    expect(JSON.parse(nestedDuplicate.text).error.code).toBe(-32700);
    // The same bytes without the duplicate are an ordinary request.
    const fine = await h.rawPost('{"jsonrpc":"2.0","id":3,"method":"ping"}', auth);
    expect(fine.status).toBe(200);
    expect(JSON.parse(fine.text).result).toEqual({});
  });

  it("a body over 1 MiB is refused by the HTTP layer (400 invalid_request)", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_market", arguments: { marketId: "x".repeat(1024 * 1024) } } });
    const response = await h.rawPost(big, { authorization: `Bearer ${AGENT_TOKEN}` });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).error.code).toBe("invalid_request");
  });
});

describe("token expiry", () => {
  it("an expired Ed25519 bearer token is 401 on /mcp; a static token has no expiry", async () => {
    const token = (await h.provision("expiring")).token;
    expect((await h.rawPost(TOOLS_LIST, { authorization: `Bearer ${token}` })).status).toBe(200);
    h.advance(60_000); // AUTH_TOKEN_TTL=60: expired at exactly expiresAt
    expectUnauthenticated(await h.rawPost(TOOLS_LIST, { authorization: `Bearer ${token}` }));
    const error = await connectError({ Authorization: `Bearer ${token}` });
    expect((error as StreamableHTTPError).code).toBe(401);
    expect((await h.rawPost(TOOLS_LIST, { authorization: `Bearer ${AGENT_TOKEN}` })).status).toBe(200);
  });
});
