/**
 * The logs' signed heads and proofs (beyond the spec, docs/endpoints.md "Audit logs"; docs/proofs.md),
 * authenticated like `GET /v1/markets/{marketId}` (bearer or HMAC):
 *   GET /v1/audit/logs/{logId}/head
 *   GET /v1/audit/logs/{logId}/inclusion?leafIndex=i&treeSize=n
 *   GET /v1/audit/logs/{logId}/consistency?from=m&to=n
 */
import { fail } from "../http/errors.js";
import type { HttpRequestContext, HttpRoute } from "../http/route.js";
import type { MarketApi } from "../api/market-api.js";
import { queryParam, requireActor, toHttpReply, type RouteParts } from "./request-helpers.js";

/** A required query parameter as an integer from 0 to 2^53 − 1 (JSON's exact integers), or a 400 naming it. */
function countParam(request: HttpRequestContext, name: string): number {
  const text = queryParam(request, name);
  if (text === undefined) fail("invalid_request", `query parameter ${name} is required`);
  const value = /^(0|[1-9][0-9]*)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) fail("invalid_request", `query parameter ${name} must be an integer from 0 to 9007199254740991 (2^53 − 1); got ${JSON.stringify(text)}`);
  return value;
}

export function auditLogRoutes(parts: RouteParts & { api: MarketApi }): HttpRoute[] {
  const logIdOf = (request: HttpRequestContext): string => request.params["logId"] ?? "";
  return [
    {
      method: "GET",
      pattern: "/v1/audit/logs/:logId/head",
      handler: async (request) => {
        requireActor(parts, request);
        return toHttpReply(await parts.api.logs.head(logIdOf(request)));
      },
    },
    {
      method: "GET",
      pattern: "/v1/audit/logs/:logId/inclusion",
      handler: async (request) => {
        const actor = requireActor(parts, request);
        const leafIndex = countParam(request, "leafIndex");
        const treeSize = countParam(request, "treeSize");
        return toHttpReply(await parts.api.logs.inclusion(actor.actorId, logIdOf(request), leafIndex, treeSize));
      },
    },
    {
      method: "GET",
      pattern: "/v1/audit/logs/:logId/consistency",
      handler: async (request) => {
        requireActor(parts, request);
        const from = countParam(request, "from");
        const to = countParam(request, "to");
        return toHttpReply(await parts.api.logs.consistency(logIdOf(request), from, to));
      },
    },
  ];
}
