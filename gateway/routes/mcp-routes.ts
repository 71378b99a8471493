/**
 * POST /mcp (spec §4.3): authenticate with a bearer token (Ed25519 flow), a static MCP token or HMAC
 * — failures are a plain HTTP 401 before any MCP processing — then hand the request to the MCP
 * endpoint and stream its Response back. Stateless: GET and DELETE on /mcp answer 405.
 */
import type { HttpRoute } from "../http/route.js";
import type { McpEndpoint } from "../mcp/mcp-endpoint.js";
import { requireActor, type RouteParts } from "./request-helpers.js";

/** Response headers the HTTP layer owns (framing, content type, caching, request id). */
const OWNED_HEADERS = new Set(["content-type", "content-length", "transfer-encoding", "connection", "cache-control", "date", "x-request-id"]);

export function mcpRoutes(parts: RouteParts & { mcp: McpEndpoint }): HttpRoute[] {
  return [
    {
      method: "POST",
      pattern: "/mcp",
      handler: async (request) => {
        const actor = requireActor(parts, request, "mcp");
        const headers = new Headers();
        for (const [name, value] of request.headers.entries()) headers.append(name, value);
        const webRequest = new Request(`http://mcp.local${request.url}`, { method: "POST", headers, body: request.bodyBytes });
        const { response, done } = await parts.mcp.handle(webRequest, actor.actorId);
        const passed: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          if (!OWNED_HEADERS.has(name)) passed[name] = value;
        });
        return {
          status: response.status,
          contentType: response.headers.get("content-type") ?? "application/json",
          stream: response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
          headers: passed,
          onDone: done,
        };
      },
    },
  ];
}
