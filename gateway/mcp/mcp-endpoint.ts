/**
 * The MCP endpoint (spec §4.3): the official SDK's low-level Server over its web-standard Streamable
 * HTTP transport, stateless (a new transport per request, as the SDK requires), answering
 * `tools/list` from a list built once and `tools/call` through the same MarketApi as HTTP.
 *
 * What is built once instead of per request (bench/mcp.bench.ts, docs/mcp.md "Performance"):
 * - One JSON Schema validator for every Server. The SDK's default is a new Ajv instance per Server
 *   (meta-schemas, vocabularies, formats): most of the CPU of an MCP request. The
 *   server side never validates with it in our use (it serves elicitation results), so sharing is
 *   safe; Ajv caches what it compiles.
 * - Servers themselves, handlers registered, in a small pool: a Server is connected to one fresh
 *   transport per request and closed afterwards, which the SDK supports (Protocol.connect after
 *   close; it keeps request-id bookkeeping per connection). A Server is never connected to two
 *   transports at once: it is out of the pool while in use. The actor comes with each request
 *   (`authInfo.clientId`), not from the Server.
 *
 * Application failures are tool results with `isError: true` and the spec's error body as text,
 * never JSON-RPC errors; only protocol problems (an unknown tool) are protocol errors.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { ApiReply, MarketApi } from "../api/market-api.js";
import { jsonText } from "../../engine/shard-protocol/shard-protocol.js";
import { checkJsonValue } from "../validation/json-value.js";
import { validationMessage } from "../../engine/rules/validation/field-message.js";
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

/** Where an accepted command's receipt goes in a tool result (its `_meta`; over HTTP: the Market-Receipt header). */
export const RECEIPT_META_KEY = "market-service/receipt";

function toolResult(reply: ApiReply): CallToolResult {
  if (!reply.ok) return errorResult(reply.code, reply.message);
  const text = jsonText(reply.json);
  const result: CallToolResult = { content: [{ type: "text", text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
  if (reply.receipt !== undefined) result._meta = { [RECEIPT_META_KEY]: JSON.parse(reply.receipt) as Record<string, unknown> };
  return result;
}

/** Idle Servers kept for reuse; beyond this (after a burst) they are left to the GC. */
const MAX_IDLE_SERVERS = 64;

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

  /** Shared by every Server (see the file comment). */
  private readonly jsonSchemaValidator = new AjvJsonSchemaValidator();
  /** Idle Servers, handlers registered, not connected. */
  private readonly idle: Server[] = [];

  constructor(private readonly options: McpEndpointOptions) {}

  private acquireServer(): Server {
    const pooled = this.idle.pop();
    if (pooled !== undefined) return pooled;
    const server = new Server(
      { name: "market-service", version: this.options.version },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: this.jsonSchemaValidator },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.toolList }));
    server.setRequestHandler(CallToolRequestSchema, (call, extra) => {
      // The authenticated actor of THIS request: handle() passes it with the request, so a pooled
      // Server never carries an actor from one request to the next.
      const actorId = extra.authInfo?.clientId;
      if (actorId === undefined || actorId === "") throw new McpError(ErrorCode.InternalError, "internal error");
      return this.callTool(call.params.name, call.params.arguments, actorId);
    });
    return server;
  }

  /** Close the Server's connection (and its transport) and keep it for a later request. */
  private releaseServer(server: Server): void {
    server.close().then(
      () => {
        // State a stateless request may leave on a Server (client info from an `initialize`) is
        // not used by these handlers; only a Server that really disconnected goes back.
        if (server.transport === undefined && this.idle.length < MAX_IDLE_SERVERS) this.idle.push(server);
      },
      (error: unknown) => this.options.onError(error),
    );
  }

  /** Run one tool for an authenticated actor (also used directly by tests and benchmarks). */
  async callTool(name: string, args: unknown, actorId: string): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
    // The SDK parsed the arguments with plain JSON.parse: apply the strict-JSON number/string rules.
    const strict = checkJsonValue(args ?? {});
    if (!strict.ok) return errorResult("invalid_request", strict.message);
    const checked = tool.validate(strict.value);
    if (!checked.success) return errorResult("invalid_request", validationMessage(tool.validate, strict.value, checked.errors));
    try {
      return toolResult(await tool.run(this.options.api, actorId, checked.data));
    } catch (error) {
      this.options.onError(error);
      return errorResult("internal_error", "internal error");
    }
  }

  /**
   * Answer one MCP HTTP request for an authenticated actor. Resolves with the web Response to
   * stream back and a `done` to call once it has been sent or abandoned (closes the request's
   * connection and returns the Server to the pool; calling it again does nothing).
   */
  async handle(request: Request, actorId: string, parsedBody?: unknown): Promise<{ response: Response; done: () => void }> {
    const server = this.acquireServer();
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      this.releaseServer(server);
    };
    try {
      // No sessionIdGenerator: stateless mode (no MCP sessions; GET and DELETE are answered 405).
      // A stateless transport serves exactly one request: always a new one.
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: this.options.responseMode === "json" });
      await server.connect(transport);
      const authInfo = { token: "", clientId: actorId, scopes: [] };
      const response = await transport.handleRequest(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
      return { response, done };
    } catch (error) {
      done();
      throw error;
    }
  }
}
