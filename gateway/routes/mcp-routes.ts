/**
 * POST /mcp (spec §4.3): authenticate with a bearer token (Ed25519 flow), a static MCP token or HMAC
 * — failures are a plain HTTP 401 before any MCP processing — then hand the request to the MCP
 * endpoint and stream its Response back. Stateless: GET and DELETE on /mcp answer 405.
 */
import type { HttpRoute } from "../http/route.js";
import type { McpEndpoint } from "../mcp/mcp-endpoint.js";
import { DEFAULT_MAX_JSON_DEPTH, parseStrictJson } from "../http/strict-json/index.js";
import { requireActor, type RouteParts } from "./request-helpers.js";

/** JSON-RPC allows a batch (a top-level array) as well as a single message. */
const MCP_JSON_LIMITS = { maxDepth: DEFAULT_MAX_JSON_DEPTH, allowTopLevelArray: true };

/** Response headers the HTTP layer owns (framing, content type, caching, request id). */
const OWNED_HEADERS = new Set(["content-type", "content-length", "transfer-encoding", "connection", "cache-control", "date", "x-request-id"]);

export function mcpRoutes(parts: RouteParts & { mcp: McpEndpoint }): HttpRoute[] {
  return [
    {
      method: "POST",
      pattern: "/mcp",
      handler: async (request) => {
        const actor = requireActor(parts, request, "mcp");
        // The same strict JSON as every other route (duplicate members, unsafe numbers, lone
        // surrogates, depth): the SDK would otherwise parse with plain JSON.parse, where the last
        // duplicate silently wins. The parsed body is handed over, so the SDK does not parse again.
        // A body that is not JSON at all goes on to the SDK unparsed, so its own order of checks
        // (Accept 406, Content-Type 415, then -32700) holds; a body that is JSON but breaks a strict
        // rule is answered here with the same JSON-RPC parse error the SDK would give.
        const parsed = parseStrictJson(request.bodyBytes, MCP_JSON_LIMITS);
        if (!parsed.ok && isPlainJson(request.bodyBytes)) {
          return { status: 400, body: { jsonrpc: "2.0", error: { code: -32700, message: `Parse error: ${parsed.message}` }, id: null } };
        }
        const headers = new Headers();
        for (const [name, value] of request.headers.entries()) headers.append(name, value);
        // With the body already parsed, the SDK does not read it: a body-less Request saves the
        // stream it would otherwise need (a visible share of an MCP call's CPU, docs/mcp.md).
        const webRequest = new Request(`http://mcp.local${request.url}`, parsed.ok ? { method: "POST", headers } : { method: "POST", headers, body: request.bodyBytes });
        const { response, done } = await parts.mcp.handle(webRequest, actor.actorId, parsed.ok ? parsed.value : undefined);
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

/** Whether `JSON.parse` (what the SDK uses) accepts the bytes. */
function isPlainJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString("utf8"));
    return true;
  } catch {
    return false;
  }
}
