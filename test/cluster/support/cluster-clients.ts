/**
 * Clients for a ServiceCluster: principals provisioned once (identities are cluster-wide) with a
 * bearer token usable on every node, and the market requests the cluster tests make.
 */
import { MarketClient, type ServiceResponse } from "../../../gateway/client/index.js";
import { OPERATOR } from "../../process/support.js";
import type { ServiceCluster } from "./service-cluster.js";

export interface ClusterPrincipal {
  readonly principalId: string;
  readonly token: string;
}

/**
 * Provisions `principalId` through node `nodeIndex` and takes a token there. The token works on
 * every node at once: a node that has not applied it yet catches up before refusing it
 * (gateway/cluster-auth.ts).
 */
export async function provisionPrincipal(cluster: ServiceCluster, nodeIndex: number, principalId: string): Promise<ClusterPrincipal> {
  const client = new MarketClient({ baseUrl: cluster.url(nodeIndex) });
  const identity = await client.provisionNewIdentity({ principalId }, { credentials: { kind: "hmac", ...OPERATOR } });
  const { accessToken } = await client.signIn(identity);
  return { principalId, token: accessToken };
}

export function request(cluster: ServiceCluster, nodeIndex: number, method: "GET" | "POST", pathAndQuery: string, who: ClusterPrincipal, body?: unknown): Promise<ServiceResponse> {
  return new MarketClient({ baseUrl: cluster.url(nodeIndex) }).request(method, pathAndQuery, body, { kind: "bearer", token: who.token });
}

/** Creates and publishes a direct-claim market of `capacity` (confirmation none) through node `nodeIndex`. */
export async function openDirectClaimMarket(cluster: ServiceCluster, nodeIndex: number, creator: ClusterPrincipal, marketId: string, capacity: number): Promise<void> {
  const created = await request(cluster, nodeIndex, "POST", "/v1/markets", creator, {
    commandId: `${marketId}-create`,
    marketId,
    principalId: creator.principalId,
    subject: { schema: "table.v1", data: { seats: capacity } },
    mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
  });
  if (created.status !== 201) throw new Error(`create ${marketId} via node ${nodeIndex}: ${created.status} ${created.text}`);
  const published = await request(cluster, nodeIndex, "POST", `/v1/markets/${marketId}/publish`, creator, {
    commandId: `${marketId}-publish`,
    principalId: creator.principalId,
    expectedVersion: 1,
  });
  if (published.status !== 200) throw new Error(`publish ${marketId} via node ${nodeIndex}: ${published.status} ${published.text}`);
}

export function claimBody(commandId: string, who: ClusterPrincipal): { commandId: string; principalId: string } {
  return { commandId, principalId: who.principalId };
}
