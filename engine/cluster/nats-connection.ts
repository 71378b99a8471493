/**
 * A cluster node's own NATS connection (the gateway thread's: leases, forwarding, the identity
 * stream; each partition's shard worker opens its own). The settings are the journals' (short
 * pings and connect timeouts, never giving up: engine/messaging/nats/connect.ts). Unreachable at start is a
 * start-up failure that names the URLs: the node exits non-zero rather than serve nothing.
 */
import type { Messaging } from "../messaging/messaging.js";
import { connectMessaging } from "../messaging/nats/nats-messaging.js";
import { errorText } from "../journal/jetstream-retry.js";

export class NatsUnreachableError extends Error {
  override name = "NatsUnreachableError";
}

export async function connectClusterNode(natsUrls: readonly string[], nodeId: string): Promise<Messaging> {
  try {
    return await connectMessaging(natsUrls, `market-service ${nodeId}`);
  } catch (error) {
    throw new NatsUnreachableError(`cannot reach NATS at ${natsUrls.join(", ")} (CLUSTER_NATS_URLS): ${errorText(error)}`, { cause: error });
  }
}
