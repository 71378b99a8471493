/**
 * tools/list (spec §4.3, docs/decisions.md T7): exactly the nine tools, each with a description and
 * self-contained input and output JSON Schemas; the input schemas are the HTTP request bodies (as
 * published in GET /openapi.json) plus the path id, strict (`additionalProperties: false`).
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_TOKEN, McpHarness, SUBJECT, directClaimMechanism, jsonRpcMessages } from "./support/harness.js";

const TOOL_NAMES = [
  "create_market",
  "publish_market",
  "submit_direct_claim",
  "submit_sealed_bid",
  "confirm_commitment",
  "decline_commitment",
  "get_market",
  "get_market_record",
  "get_my_market_outcome",
];

/** Tool → the HTTP body schema in /openapi.json (undefined: a GET) and the path id it adds. */
const HTTP_COUNTERPART: Record<string, { body: string | undefined; pathId: string | undefined; extra?: { properties: string[]; required: string[] } }> = {
  create_market: { body: "CreateMarketBody", pathId: undefined },
  publish_market: { body: "PublishMarketBody", pathId: "marketId" },
  submit_direct_claim: { body: "DirectClaimBody", pathId: "marketId" },
  submit_sealed_bid: { body: "SealedBidBody", pathId: "marketId" },
  confirm_commitment: { body: "CommitmentActionBody", pathId: "commitmentId" },
  decline_commitment: { body: "CommitmentActionBody", pathId: "commitmentId" },
  get_market: { body: undefined, pathId: "marketId" },
  get_market_record: { body: undefined, pathId: "marketId" },
  // GET /v1/markets/{marketId}/my-outcome?principalId=&authorityRef= (optional query parameters).
  get_my_market_outcome: { body: undefined, pathId: "marketId", extra: { properties: ["principalId", "authorityRef"], required: [] } },
};

/** What the spec (§4.2) lists for each body, written out independently of any schema. */
const SPEC_FIELDS: Record<string, { required: string[]; optional: string[] }> = {
  create_market: { required: ["commandId", "marketId", "principalId", "subject", "mechanism"], optional: ["authorityRef"] },
  publish_market: { required: ["commandId", "expectedVersion", "principalId", "marketId"], optional: ["authorityRef"] },
  submit_direct_claim: { required: ["commandId", "principalId", "marketId"], optional: ["expectedVersion", "authorityRef"] },
  submit_sealed_bid: { required: ["commandId", "principalId", "amountMinor", "currency", "marketId"], optional: ["authorityRef"] },
  confirm_commitment: { required: ["commandId", "principalId", "commitmentId"], optional: ["authorityRef"] },
  decline_commitment: { required: ["commandId", "principalId", "commitmentId"], optional: ["authorityRef"] },
  get_market: { required: ["marketId"], optional: [] },
  get_market_record: { required: ["marketId"], optional: [] },
  get_my_market_outcome: { required: ["marketId"], optional: ["principalId", "authorityRef"] },
};

let h: McpHarness;
let tools: Tool[];
let openapi: any;

beforeAll(async () => {
  h = await McpHarness.start();
  const agent = await h.connect(AGENT_TOKEN);
  tools = (await agent.client.listTools()).tools;
  openapi = (await h.http.request("GET", "/openapi.json")).body;
});

afterAll(async () => {
  await h?.close();
});

const sorted = (values: Iterable<string>) => [...values].sort();

/** Every `$ref` in a schema. */
function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsOf(item, out);
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") out.push(item);
      else refsOf(item, out);
    }
  }
  return out;
}

describe("tools/list", () => {
  it("lists exactly the nine tools", () => {
    expect(sorted(tools.map((tool) => tool.name))).toEqual(sorted(TOOL_NAMES));
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
  });

  it("gives every tool a title, a description, an object inputSchema with additionalProperties false and an outputSchema", () => {
    for (const tool of tools) {
      expect(typeof tool.description, tool.name).toBe("string");
      expect((tool.description ?? "").length, tool.name).toBeGreaterThan(40);
      expect((tool.title ?? "").length, tool.name).toBeGreaterThan(0);
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.inputSchema["additionalProperties"], tool.name).toBe(false);
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.outputSchema?.type, tool.name).toBe("object");
    }
  });

  it("has input schemas equal to the spec's bodies plus the path id", () => {
    for (const tool of tools) {
      const spec = SPEC_FIELDS[tool.name];
      expect(spec, tool.name).toBeDefined();
      if (spec === undefined) continue;
      expect(sorted(Object.keys(tool.inputSchema.properties ?? {})), tool.name).toEqual(sorted([...spec.required, ...spec.optional]));
      expect(sorted(tool.inputSchema.required ?? []), tool.name).toEqual(sorted(spec.required));
    }
  });

  it("has input schemas equal to the HTTP request bodies of /openapi.json plus the path id", () => {
    for (const tool of tools) {
      const counterpart = HTTP_COUNTERPART[tool.name];
      expect(counterpart, tool.name).toBeDefined();
      if (counterpart === undefined) continue;
      const body = counterpart.body === undefined ? { properties: {}, required: [] } : openapi.components.schemas[counterpart.body];
      expect(body, `${tool.name}: ${counterpart.body}`).toBeDefined();
      const properties = [...Object.keys(body.properties ?? {}), ...(counterpart.pathId === undefined ? [] : [counterpart.pathId]), ...(counterpart.extra?.properties ?? [])];
      const required = [...(body.required ?? []), ...(counterpart.pathId === undefined ? [] : [counterpart.pathId]), ...(counterpart.extra?.required ?? [])];
      expect(sorted(Object.keys(tool.inputSchema.properties ?? {})), tool.name).toEqual(sorted(properties));
      expect(sorted(tool.inputSchema.required ?? []), tool.name).toEqual(sorted(required));
      // Same field types: the same named definitions (`#/$defs/X` here, `#/components/schemas/X` there).
      for (const [field, fieldSchema] of Object.entries(body.properties ?? {})) {
        const mcpRefs = refsOf((tool.inputSchema.properties as Record<string, unknown>)[field]).map((ref) => ref.split("/").pop());
        const httpRefs = refsOf(fieldSchema).map((ref) => ref.split("/").pop());
        expect(mcpRefs, `${tool.name}.${field}`).toEqual(httpRefs);
      }
    }
  });

  it("has self-contained schemas: every $ref resolves inside the tool's own $defs", () => {
    for (const tool of tools) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        const defs = (schema as Record<string, unknown>)["$defs"] as Record<string, unknown> | undefined;
        for (const ref of refsOf(schema)) {
          expect(ref, tool.name).toMatch(/^#\/\$defs\/[A-Za-z0-9_.-]+$/);
          expect(defs?.[ref.slice("#/$defs/".length)], `${tool.name}: ${ref}`).toBeDefined();
        }
      }
    }
  });

  it("has input schemas a JSON Schema validator enforces like the service: strict, typed, required", () => {
    const ajv = new AjvJsonSchemaValidator();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const validatorFor = (name: string) => ajv.getValidator(byName.get(name)?.inputSchema as Parameters<typeof ajv.getValidator>[0]);
    const claim = validatorFor("submit_direct_claim");
    expect(claim({ commandId: "c-1", principalId: "p", marketId: "m" }).valid).toBe(true);
    expect(claim({ commandId: "c-1", principalId: "p", marketId: "m", expectedVersion: 0 }).valid).toBe(true);
    expect(claim({ commandId: "c-1", principalId: "p" }).valid).toBe(false); // path id missing
    expect(claim({ commandId: "c-1", principalId: "p", marketId: "m", extra: 1 }).valid).toBe(false);
    expect(claim({ commandId: "c-1", principalId: "p", marketId: "m", expectedVersion: "1" }).valid).toBe(false);
    expect(claim({ commandId: "", principalId: "p", marketId: "m" }).valid).toBe(false);
    const create = validatorFor("create_market");
    expect(create({ commandId: "c", marketId: "m", principalId: "p", subject: SUBJECT, mechanism: directClaimMechanism() }).valid).toBe(true);
    // The mechanism's config is open in the schema on purpose (the engine answers 422
    // invalid_mechanism_config / unknown_mechanism), but the envelope is strict.
    expect(create({ commandId: "c", marketId: "m", principalId: "p", mechanism: directClaimMechanism() }).valid).toBe(false);
    expect(create({ commandId: "c", marketId: "m", principalId: "p", subject: { data: {} }, mechanism: directClaimMechanism() }).valid).toBe(false);
    expect(create({ commandId: "c", marketId: "m", principalId: "p", subject: SUBJECT, mechanism: { config: {} } }).valid).toBe(false);
    const bid = validatorFor("submit_sealed_bid");
    expect(bid({ commandId: "c", principalId: "p", marketId: "m", amountMinor: 100, currency: "EUR" }).valid).toBe(true);
    expect(bid({ commandId: "c", principalId: "p", marketId: "m", amountMinor: 0, currency: "EUR" }).valid).toBe(false);
    expect(bid({ commandId: "c", principalId: "p", marketId: "m", amountMinor: 100, currency: "eur" }).valid).toBe(false);
  });

  it("is the same list over a raw JSON-RPC POST without initialize (stateless), and answers initialize with tools capability and instructions", async () => {
    const listed = await h.rawPost({ jsonrpc: "2.0", id: 7, method: "tools/list" }, { authorization: `Bearer ${AGENT_TOKEN}` });
    expect(listed.status).toBe(200);
    const [message] = jsonRpcMessages(listed);
    expect(message.id).toBe(7);
    expect(message.result.tools.map((tool: Tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    expect(message.result.tools).toEqual(tools);
    const init = await h.rawPost(
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
      { authorization: `Bearer ${AGENT_TOKEN}` },
    );
    expect(init.status).toBe(200);
    expect(init.headers.get("mcp-session-id")).toBeNull(); // stateless: no sessions
    const [initialized] = jsonRpcMessages(init);
    expect(initialized.result.protocolVersion).toBe("2025-06-18");
    expect(initialized.result.serverInfo.name).toBe("market-service");
    expect(initialized.result.capabilities.tools).toBeDefined();
    expect(initialized.result.instructions).toMatch(/commandId/);
  });
});
