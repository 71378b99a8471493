/** GET /metrics (Prometheus text) and GET /openapi.json: unauthenticated, no ids or secrets in either. */
import type { HttpRoute } from "../http/route.js";
import type { ServiceMetrics } from "../metrics.js";
import { openApiDocument } from "../openapi/document.js";

function textStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

export function operationsRoutes(parts: { metrics: ServiceMetrics; adminMounted: boolean }): HttpRoute[] {
  const document = JSON.stringify(openApiDocument({ adminMounted: parts.adminMounted }));
  return [
    {
      method: "GET",
      pattern: "/metrics",
      handler: async () => ({ status: 200, contentType: parts.metrics.contentType, stream: textStream(await parts.metrics.render()) }),
    },
    { method: "GET", pattern: "/openapi.json", handler: () => ({ status: 200, json: document }) },
  ];
}
