/**
 * Clients for a ServiceCluster: principals provisioned once (identities are cluster-wide) with a
 * bearer token usable on every node, and the market requests the cluster tests make.
 */
import { DEFAULT_RETRY, MarketClient, MarketServiceError, type ServiceResponse } from "@market-service/client";
import { backoffMs, isRetryableStatus, retryAfterMs } from "../../../packages/client/src/retry-policy.js";
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

/**
 * How long a client here keeps sending a read, or a command with its commandId, again after a 503, a
 * 429 or no answer: long enough to outlast a partition changing owner on a loaded machine (a node
 * starved of CPU past its lease loses it; docs/cluster.md, "Ownership: leases"). The spec's 503 says
 * "retry", and a real client does.
 */
const PATIENT_RETRY = { maxAttempts: 120, maxElapsedMs: 60_000 };

/** One exchange, never repeated, whatever the status or failure: for tests about a 503 or a lost answer itself. */
export function requestOnce(cluster: ServiceCluster, nodeIndex: number, method: "GET" | "POST", pathAndQuery: string, who: ClusterPrincipal, body?: unknown): Promise<ServiceResponse> {
  return new MarketClient({ baseUrl: cluster.url(nodeIndex) }).request(method, pathAndQuery, { body, credentials: { kind: "bearer", token: who.token } });
}

/**
 * One request as the SDK makes it, with every status returned as it is: a read, or a command carrying
 * its commandId, is sent again (the same bytes) after a 503 or a 429 (Retry-After honoured, else
 * the SDK's backoff) or no answer, within PATIENT_RETRY; anything else is sent once. The last answer
 * is returned whatever its status; no answer at the end throws.
 */
export async function request(cluster: ServiceCluster, nodeIndex: number, method: "GET" | "POST", pathAndQuery: string, who: ClusterPrincipal, body?: unknown): Promise<ServiceResponse> {
  const repeatable = method === "GET" || (typeof body === "object" && body !== null && typeof (body as { commandId?: unknown }).commandId === "string");
  const startedMs = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    let waitMs: number | undefined;
    try {
      const answer = await requestOnce(cluster, nodeIndex, method, pathAndQuery, who, body);
      if (!repeatable || !isRetryableStatus(answer.status) || attempt >= PATIENT_RETRY.maxAttempts) return answer;
      waitMs = retryAfterMs(answer.headers.get("retry-after"), Date.now());
      if (performance.now() - startedMs + (waitMs ?? 0) > PATIENT_RETRY.maxElapsedMs) return answer;
    } catch (error) {
      if (!repeatable || !(error instanceof MarketServiceError && error.code === "unreachable") || attempt >= PATIENT_RETRY.maxAttempts || performance.now() - startedMs > PATIENT_RETRY.maxElapsedMs) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, waitMs ?? backoffMs({ ...DEFAULT_RETRY, ...PATIENT_RETRY }, attempt, Math.random)));
  }
}

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
