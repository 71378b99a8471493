/** GET /healthz: unauthenticated; the server only listens once recovery has finished. */
import type { HttpRoute } from "../http/route.js";

const OK = JSON.stringify({ status: "ok" });

export function healthRoutes(): HttpRoute[] {
  return [{ method: "GET", pattern: "/healthz", handler: () => ({ status: 200, json: OK }) }];
}
