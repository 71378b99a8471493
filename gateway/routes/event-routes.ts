/** Live market events (docs/events.md): `GET /v1/markets/{marketId}/events`, a server-sent event stream. */
import type { EventHub } from "../events/event-hub.js";
import { resumePoint } from "./resume-point.js";
import type { HttpRoute } from "../http/route.js";
import { requireActor, type RouteParts } from "./request-helpers.js";

export function eventRoutes(parts: RouteParts & { events: EventHub }): HttpRoute[] {
  return [
    {
      method: "GET",
      pattern: "/v1/markets/:marketId/events",
      // Authenticated as GET /v1/markets/{marketId} is; its 401 and 404 come before any stream.
      handler: (request) => {
        const actor = requireActor(parts, request);
        const after = resumePoint(request);
        return parts.events.subscribe(request.params["marketId"] ?? "", actor.actorId, after);
      },
    },
  ];
}
