/**
 * The NATS connection a node's JetStream journals share, with the settings their failover needs.
 *
 * A dead server closes its sockets and the client moves on at once; a paused or cut-off one keeps
 * them open and answers nothing. Only the client's pings tell (no PONG for `maxPingOut` pings:
 * stale), and a reconnect attempt to that same server hangs until the connect timeout: both are
 * kept short, so a journal connected to such a server is on another one well within its retry
 * deadline. The client library's defaults (a ping every 2 minutes, a 20 s connect timeout) would
 * leave it appending into silence until its appends gave up.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";

export const JOURNAL_CONNECTION_SETTINGS = {
  pingInterval: 500,
  maxPingOut: 2,
  /** Connect (and reconnect) attempt timeout. */
  timeout: 1_000,
  reconnectTimeWait: 100,
  /** Never give up: the journals' own deadlines decide when to stop. */
  maxReconnectAttempts: -1,
  /**
   * No stack trace captured for every request in case it fails: a cluster node makes several
   * requests per claim (forwarding, key bindings, publishes), and building those errors was one of
   * the gateway thread's largest costs in a profiled storm (bench:cluster with STORM_NODE_ARGS).
   * Our errors name what failed (jetstream-retry.ts) without the client's trace.
   */
  noAsyncTraces: true,
} as const;

/** Connects to the cluster at `servers` (every node's client URL, so any one can fail) with those settings. */
export function connectForJournals(servers: readonly string[], name?: string): Promise<NatsConnection> {
  return connect({ servers: [...servers], ...JOURNAL_CONNECTION_SETTINGS, ...(name === undefined ? {} : { name }) });
}
