/**
 * GET /metrics (Prometheus text) and GET /openapi.json. The document is public (no ids or secrets);
 * the metrics are not (decisions.md T10): they need the metrics token as a bearer token, or an
 * operator actor's credential (HMAC or bearer), else 401, or 403 for an actor that is no operator.
 */
import { fail } from "../http/errors.js";
import type { HttpRequestContext, HttpRoute } from "../http/route.js";
import type { ServiceMetrics } from "../metrics/metrics.js";
import { openApiDocument } from "../openapi/document.js";
import { requireActor, type RouteParts } from "./request-helpers.js";

function textStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** The metrics token, or an operator: what a Prometheus scrape job or an operator's curl sends. */
function requireMetricsReader(parts: RouteParts, request: HttpRequestContext): void {
  const authorization = request.headers.get("authorization");
  const bearer = authorization === undefined ? undefined : /^bearer +(.+)$/i.exec(authorization)?.[1]?.trim();
  if (bearer !== undefined && parts.auth.isMetricsToken(bearer)) return;
  const actor = requireActor(parts, request);
  if (!parts.auth.isOperator(actor.actorId)) fail("forbidden", "only the metrics token or an operator actor may read /metrics");
}

export function operationsRoutes(parts: RouteParts & { metrics: ServiceMetrics; adminMounted: boolean }): HttpRoute[] {
  const document = JSON.stringify(openApiDocument({ adminMounted: parts.adminMounted }));
  return [
    {
      method: "GET",
      pattern: "/metrics",
      handler: async (request) => {
        requireMetricsReader(parts, request);
        return { status: 200, contentType: parts.metrics.contentType, stream: textStream(await parts.metrics.render()) };
      },
    },
    { method: "GET", pattern: "/openapi.json", handler: () => ({ status: 200, json: document }) },
  ];
}
