/**
 * MCP tool inputs are validated with the same plain-words messages as HTTP bodies (issue 25 §4): a
 * bad input to every tool is an `invalid_request` tool error whose message names the input field
 * and states its rule, with no typia notation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT, AGENT_TOKEN, McpHarness, SUBJECT, auctionMechanism, directClaimMechanism, uid, type Agent } from "./support/harness.js";
import { expectPlainMessage } from "../http-api/support/plain-message.js";

let h: McpHarness;
let agent: Agent;

beforeAll(async () => {
  h = await McpHarness.start();
  agent = await h.connect(AGENT_TOKEN);
});

afterAll(async () => {
  await h?.close();
});

const acting = (fields: Record<string, unknown> = {}) => ({ commandId: uid("c"), principalId: AGENT, ...fields });
const create = (fields: Record<string, unknown> = {}) => acting({ marketId: uid("m"), subject: SUBJECT, mechanism: directClaimMechanism(), ...fields });

const CASES: Array<{ tool: string; args: () => Record<string, unknown>; field: string; says?: RegExp; code?: string }> = [
  { tool: "create_market", args: () => create({ marketId: "" }), field: "marketId", says: /1–128 characters/ },
  { tool: "create_market", args: () => create({ subject: { schema: "s" } }), field: "subject.data" },
  { tool: "create_market", args: () => create({ mechanism: { presetId: "direct-claim.v1", config: { capacity: 0, pricing: { mode: "free" }, confirmation: "none" } } }), field: "mechanism.config.capacity", code: "invalid_mechanism_config" },
  { tool: "create_market", args: () => create({ mechanism: auctionMechanism("next tuesday") }), field: "mechanism.config.closesAt", says: /RFC 3339/, code: "invalid_mechanism_config" },
  { tool: "publish_market", args: () => acting({ marketId: "m-any", expectedVersion: 0 }), field: "expectedVersion", says: /from 1 to/ },
  { tool: "submit_direct_claim", args: () => acting({ expectedVersion: 0 }), field: "marketId" },
  { tool: "submit_sealed_bid", args: () => acting({ marketId: "m-any", amountMinor: 100, currency: "eur" }), field: "currency", says: /three capital letters/ },
  { tool: "confirm_commitment", args: () => acting({ commitmentId: "" }), field: "commitmentId", says: /1–1024 characters/ },
  { tool: "decline_commitment", args: () => acting({ commitmentId: "c-any", reason: "changed my mind" }), field: "reason" },
  { tool: "get_market", args: () => ({ marketId: "x".repeat(129) }), field: "marketId" },
  { tool: "get_market_record", args: () => ({}), field: "marketId" },
  { tool: "get_my_market_outcome", args: () => ({ marketId: "m-any", principalId: "" }), field: "principalId", says: /or omitted/ },
];

describe("MCP tool input errors in plain words", () => {
  it.each(CASES.map((c) => [`${c.tool} ${c.field}`, c] as const))("%s", async (_name, c) => {
    const error = await agent.fails(c.tool, c.args(), c.code ?? "invalid_request");
    expectPlainMessage(error.message, c.field);
    if (c.says !== undefined) expect(error.message).toMatch(c.says);
  });

  it("covers every tool", async () => {
    const tools = (await agent.client.listTools()).tools.map((tool) => tool.name).sort();
    expect([...new Set(CASES.map((c) => c.tool))].sort()).toEqual(tools);
  });
});
