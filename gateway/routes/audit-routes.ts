/**
 * GET /v1/audit/keys (beyond the spec, docs/endpoints.md): the audit signing key history, the key in
 * force last, for anyone who checks signed log heads. Public keys are public: no authentication.
 * The body never changes while the service runs, so it is serialised once.
 */
import type { KeyHistory } from "@market-service/client/audit";
import type { AuditKeyList } from "@market-service/client/wire";
import type { HttpRoute } from "../http/route.js";

export function auditRoutes(history: KeyHistory): HttpRoute[] {
  const body: AuditKeyList = { keys: history.keys.map((key) => ({ ...key })) };
  const json = JSON.stringify(body);
  return [{ method: "GET", pattern: "/v1/audit/keys", handler: () => ({ status: 200, json }) }];
}
