/** Spec §4.2: market and commitment commands, and the market reads. */
import type { HttpRoute } from "../http/route.js";
import type { MarketApi, MarketOperation } from "../api/market-api.js";
import { queryParam, readJsonBody, requireActor, toHttpReply, type RouteParts } from "./request-helpers.js";

interface CommandRoute {
  pattern: string;
  operation: MarketOperation;
  /** The path parameter naming the target, if any. */
  param?: "marketId" | "commitmentId";
}

const COMMAND_ROUTES: readonly CommandRoute[] = [
  { pattern: "/v1/markets", operation: "market.create_draft" },
  { pattern: "/v1/markets/:marketId/publish", operation: "market.publish", param: "marketId" },
  { pattern: "/v1/markets/:marketId/direct-claims", operation: "direct_claim.submit", param: "marketId" },
  { pattern: "/v1/markets/:marketId/sealed-bids", operation: "sealed_auction.submit_bid", param: "marketId" },
  { pattern: "/v1/commitments/:commitmentId/confirm", operation: "commitment.confirm", param: "commitmentId" },
  { pattern: "/v1/commitments/:commitmentId/decline", operation: "commitment.decline", param: "commitmentId" },
];

export function marketRoutes(parts: RouteParts & { api: MarketApi }): HttpRoute[] {
  const commands = COMMAND_ROUTES.map(
    ({ pattern, operation, param }): HttpRoute => ({
      method: "POST",
      pattern,
      handler: async (request) => {
        const actor = requireActor(parts, request);
        const body = readJsonBody(request);
        const targetId = param === undefined ? "" : (request.params[param] ?? "");
        return toHttpReply(await parts.api.execute(actor.actorId, operation, targetId, body), { delegationNotFound: 403 });
      },
    }),
  );
  const reads: HttpRoute[] = [
    {
      method: "GET",
      pattern: "/v1/markets/:marketId",
      handler: async (request) => {
        requireActor(parts, request);
        return toHttpReply(await parts.api.getMarket(request.params["marketId"] ?? ""));
      },
    },
    {
      method: "GET",
      pattern: "/v1/markets/:marketId/record",
      handler: async (request) => {
        const actor = requireActor(parts, request);
        return toHttpReply(await parts.api.getRecord(actor.actorId, request.params["marketId"] ?? ""));
      },
    },
    {
      method: "GET",
      pattern: "/v1/markets/:marketId/my-outcome",
      handler: async (request) => {
        const actor = requireActor(parts, request);
        const principalId = queryParam(request, "principalId");
        const authorityRef = queryParam(request, "authorityRef");
        return toHttpReply(await parts.api.getOutcome(actor.actorId, request.params["marketId"] ?? "", principalId, authorityRef), { delegationNotFound: 403 });
      },
    },
  ];
  return [...commands, ...reads];
}
