/**
 * The MCP endpoint reuses SDK Servers between requests (gateway/mcp/mcp-endpoint.ts: one shared
 * JSON Schema validator, a pool of Servers each connected to one fresh stateless transport per
 * request). These tests pin what that must never change: each request runs as its own actor,
 * whatever the previous request on the same Server was (an `initialize`, another actor, a failure,
 * a client that went away mid-request), in both response modes.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT, AGENT_TOKEN, McpHarness, MODES, SUBJECT, directClaimMechanism, jsonRpcMessages, openMarket, uid, waitFor, type Agent } from "./support/harness.js";

describe.each(MODES)("MCP_RESPONSE_MODE=%s", (mode) => {
  let h: McpHarness;
  let agent: Agent;
  let bobToken: string;
  let marketId: string;

  beforeAll(async () => {
    h = await McpHarness.start({ mode });
    agent = await h.connect(AGENT_TOKEN);
    bobToken = (await h.provision("bob")).token;
    marketId = uid("m");
    await openMarket(agent, AGENT, marketId, directClaimMechanism({ capacity: 100, confirmation: "none" }));
  });

  afterAll(async () => {
    await h?.close();
  });

  const call = async (token: string, name: string, args: Record<string, unknown>, id = 1) => {
    const response = await h.rawPost({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }, { authorization: `Bearer ${token}` });
    expect(response.status, response.text).toBe(200);
    const [message] = jsonRpcMessages(response);
    expect(message.id).toBe(id);
    return message;
  };

  it("alternating actors, initialize, protocol errors and tool errors in sequence: every request sees only its own actor", async () => {
    for (let i = 0; i < 30; i++) {
      switch (i % 5) {
        case 0: {
          const init = await h.rawPost(
            { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: { sampling: {} }, clientInfo: { name: `client-${i}`, version: "1" } } },
            { authorization: `Bearer ${AGENT_TOKEN}` },
          );
          expect(jsonRpcMessages(init)[0].result.serverInfo.name).toBe("market-service");
          break;
        }
        case 1:
          expect((await call(bobToken, "get_my_market_outcome", { marketId })).result.structuredContent.principalId).toBe("bob");
          break;
        case 2:
          expect((await call(AGENT_TOKEN, "get_my_market_outcome", { marketId })).result.structuredContent.principalId).toBe(AGENT);
          break;
        case 3:
          expect((await call(AGENT_TOKEN, "no_such_tool", {})).error.code).toBe(-32602);
          break;
        case 4:
          expect(JSON.parse((await call(bobToken, "get_market", { marketId: 1 })).result.content[0].text).error.code).toBe("invalid_request");
          break;
      }
    }
    const created = await call(bobToken, "create_market", { commandId: uid("c"), marketId: uid("m"), principalId: "bob", subject: SUBJECT, mechanism: directClaimMechanism() }, 77);
    expect(created.result.structuredContent.market.creator).toEqual({ principalId: "bob", actorId: "bob" });
  });

  it("a client that disconnects mid-request leaves the endpoint healthy, and its command is applied at most once", async () => {
    const commandId = uid("gone");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "submit_direct_claim", arguments: { commandId, marketId, principalId: "bob" } } });
    const { port } = new URL(h.url);
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(
            `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${bobToken}\r\ncontent-type: application/json\r\n` +
              `accept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          // Gone before the reply (the tool call is waiting for the shard's fdatasync).
          setImmediate(() => {
            socket.destroy();
            resolve();
          });
        });
        socket.on("error", () => resolve());
      });
    }
    // Retrying the same command returns one result; the market allocated at most one unit for it.
    const retried = await waitFor(
      () => call(bobToken, "submit_direct_claim", { commandId, marketId, principalId: "bob" }),
      (message) => message.result !== undefined,
    );
    expect(retried.result.isError ?? false, JSON.stringify(retried)).toBe(false);
    const again = await call(bobToken, "submit_direct_claim", { commandId, marketId, principalId: "bob" });
    expect(again.result.structuredContent).toEqual(retried.result.structuredContent);
    const outcome = await call(bobToken, "get_my_market_outcome", { marketId });
    expect(outcome.result.structuredContent.commitments).toHaveLength(1);
    // And the endpoint still answers everyone, concurrently.
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => call(i % 2 === 0 ? AGENT_TOKEN : bobToken, "get_my_market_outcome", { marketId }, i + 100)));
    results.forEach((message, i) => expect(message.result.structuredContent.principalId).toBe(i % 2 === 0 ? AGENT : "bob"));
  });
});
