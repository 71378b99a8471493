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

/** One exchange, no retry, whatever the status: for tests that look at a 503 itself. */
export function request(cluster: ServiceCluster, nodeIndex: number, method: "GET" | "POST", pathAndQuery: string, who: ClusterPrincipal, body?: unknown): Promise<ServiceResponse> {
  return new MarketClient({ baseUrl: cluster.url(nodeIndex) }).request(method, pathAndQuery, body, { kind: "bearer", token: who.token });
}

/**
 * The SDK's retries (a 503 or no answer, again with the same commandId; Retry-After honoured) with a
 * budget that outlasts a partition changing owner on a loaded machine: the spec's 503 says "retry",
 * and a real client does.
 */
const PATIENT_RETRY = { maxAttempts: 120, maxElapsedMs: 60_000 };

/** An SDK client of node `nodeIndex` acting as `who`, retrying as any client of the SDK does (PATIENT_RETRY). */
export function clusterClient(cluster: ServiceCluster, nodeIndex: number, who: ClusterPrincipal): MarketClient {
  return new MarketClient({ baseUrl: cluster.url(nodeIndex), credentials: { kind: "bearer", token: who.token }, retry: PATIENT_RETRY });
}

/** Creates and publishes a direct-claim market of `capacity` (confirmation none) through node `nodeIndex`, retrying as the SDK does. */
export async function openDirectClaimMarket(cluster: ServiceCluster, nodeIndex: number, creator: ClusterPrincipal, marketId: string, capacity: number): Promise<void> {
  const client = clusterClient(cluster, nodeIndex, creator);
  await client.createMarket({
    commandId: `${marketId}-create`,
    marketId,
    principalId: creator.principalId,
    subject: { schema: "table.v1", data: { seats: capacity } },
    mechanism: { presetId: "direct-claim.v1", config: { capacity, pricing: { mode: "free" }, confirmation: "none" } },
  });
  await client.publishMarket(marketId, { commandId: `${marketId}-publish`, principalId: creator.principalId, expectedVersion: 1 });
}

export function claimBody(commandId: string, who: ClusterPrincipal): { commandId: string; principalId: string } {
  return { commandId, principalId: who.principalId };
}
