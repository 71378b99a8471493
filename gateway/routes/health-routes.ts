/**
 * The probes, all unauthenticated and never behind the readiness gate:
 * - `GET /livez`: the process is up and its HTTP server answers (200, also while recovering or
 *   stopping);
 * - `GET /readyz`: recovery has finished and every shard accepts commands (200), else 503
 *   `service_unavailable` saying why;
 * - `GET /healthz`: the spec's probe (§4.2); it answers as `/readyz` does, with the spec's body
 *   `{"status":"ok"}` when ready, so a client that waits for it never meets a 503 afterwards.
 */
import type { HttpRoute } from "../http/route.js";
import type { Readiness } from "../http/readiness.js";

const OK = JSON.stringify({ status: "ok" });
const READY = JSON.stringify({ status: "ready" });

export function healthRoutes(readiness: Readiness): HttpRoute[] {
  const whenReady = (json: string) => () => {
    const problem = readiness.problem();
    return problem === undefined ? { status: 200, json } : readiness.unavailableReply(problem);
  };
  return [
    { method: "GET", pattern: "/livez", handler: () => ({ status: 200, json: OK }) },
    { method: "GET", pattern: "/readyz", handler: whenReady(READY) },
    { method: "GET", pattern: "/healthz", handler: whenReady(OK) },
  ];
}
