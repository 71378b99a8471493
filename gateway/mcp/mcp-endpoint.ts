/**
 * The MCP endpoint (spec §4.3): the official SDK's low-level Server over its web-standard Streamable
 * HTTP transport, stateless (a new server + transport per request, as the SDK requires), answering
 * `tools/list` from a list built once and `tools/call` through the same MarketApi as HTTP.
 *
 * Application failures are tool results with `isError: true` and the spec's error body as text,
 * never JSON-RPC errors; only protocol problems (an unknown tool) are protocol errors.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApiReply, MarketApi } from "../market-api.js";
import { checkJsonValue } from "../validation/json-value.js";
import { validationMessage } from "../validation/messages.js";
import { TOOLS, type ToolDefinition } from "./tools.js";

export type McpResponseMode = "json" | "sse";

export interface McpEndpointOptions {
  api: MarketApi;
  version: string;
  /** "json": one JSON response per POST (default); "sse": the response as a server-sent event stream. */
  responseMode: McpResponseMode;
  /** Called with unexpected errors (never shown to the client). */
  onError: (error: unknown) => void;
}

const INSTRUCTIONS =
  "Deterministic markets: create a market (draft), publish it, then participants claim (direct-claim.v1) or bid (sealed-forward-auction.v1); " +
  "commitments are confirmed or declined. Every command needs a fresh commandId and the principalId you act for (your own actor id, or a principal " +
  "that delegated to you, with authorityRef). Errors are tool results with isError and {\"error\":{\"code\",\"message\"}}.";

function errorResult(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify({ error: { code, message } }) }], isError: true };
}

function toolResult(reply: ApiReply): CallToolResult {
  if (!reply.ok) return errorResult(reply.code, reply.message);
  return { content: [{ type: "text", text: reply.json }], structuredContent: JSON.parse(reply.json) as Record<string, unknown> };
}

export class McpEndpoint {
  private readonly tools = new Map<string, ToolDefinition>(TOOLS.map((tool) => [tool.name, tool]));
  /** tools/list never changes: built once, not per request. */
  private readonly toolList = TOOLS.map(({ name, title, description, inputSchema, outputSchema }) => ({
    name,
    title,
    description,
    inputSchema: inputSchema as { type: "object"; [key: string]: unknown },
    outputSchema: outputSchema as { type: "object"; [key: string]: unknown },
  }));

  constructor(private readonly options: McpEndpointOptions) {}

  /** Run one tool for an authenticated actor (also used directly by tests and benchmarks). */
  async callTool(name: string, args: unknown, actorId: string): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
    // The SDK parsed the arguments with plain JSON.parse: apply the strict-JSON number/string rules.
    const strict = checkJsonValue(args ?? {});
    if (!strict.ok) return errorResult("invalid_request", strict.message);
    const checked = tool.validate(strict.value);
    if (!checked.success) return errorResult("invalid_request", validationMessage(checked.errors));
    try {
      return toolResult(await tool.run(this.options.api, actorId, checked.data));
    } catch (error) {
      this.options.onError(error);
      return errorResult("internal_error", "internal error");
    }
  }

  /**
   * Answer one MCP HTTP request for an authenticated actor. Resolves with the web Response to
   * stream back and a `done` to call once it has been sent (closes the per-request server).
   */
  async handle(request: Request, actorId: string): Promise<{ response: Response; done: () => void }> {
    const server = new Server({ name: "market-service", version: this.options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.toolList }));
    server.setRequestHandler(CallToolRequestSchema, (call) => this.callTool(call.params.name, call.params.arguments, actorId));
    // No sessionIdGenerator: stateless mode (no MCP sessions; GET and DELETE are answered 405).
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: this.options.responseMode === "json" });
    await server.connect(transport);
    const response = await transport.handleRequest(request, { authInfo: { token: "", clientId: actorId, scopes: [] } });
    return {
      response,
      done: () => {
        void server.close().catch((error: unknown) => this.options.onError(error));
      },
    };
  }
}
