/**
 * Which NATS errors are worth trying again, and a loop that does so until a deadline. A stream whose
 * leader died answers nothing for the seconds an election takes (requests time out, then "no
 * responders"); the JetStream journal rides that out instead of failing at the first refusal.
 */
import { JetStreamApiError } from "@nats-io/jetstream";
import { NoRespondersError, TimeoutError } from "@nats-io/transport-node";

/** JetStream's error code for a stream it cannot place on enough servers. */
const NO_SUITABLE_PEERS = 10005;

export interface RetryVerdict {
  readonly retry: boolean;
  /** The request may have been carried out (it timed out): a publish so retried must be idempotent. */
  readonly unknown: boolean;
}

/** Errors after which the same request may be made again; `unknown` when it may have been carried out. */
export function retryable(error: unknown): RetryVerdict {
  if (error instanceof TimeoutError) return { retry: true, unknown: true };
  // No responders: no server took the request (a stream without a leader, a node restarting). The
  // client reports it as JetStreamNotEnabled, a class its package does not export: known by name.
  if (error instanceof Error && error.name === "JetStreamNotEnabled") return { retry: true, unknown: false };
  // The same refusal from a direct request (a KV get on a bucket whose stream has no leader yet).
  if (error instanceof NoRespondersError) return { retry: true, unknown: false };
  // "JetStream system temporarily unavailable" and its kin: refused, not carried out.
  if (error instanceof JetStreamApiError && error.status === 503) return { retry: true, unknown: false };
  // "No suitable peers for placement": a replicated stream cannot be placed yet, because the cluster
  // is still forming or a node is down. Refused, not carried out.
  if (error instanceof JetStreamApiError && error.code === NO_SUITABLE_PEERS) return { retry: true, unknown: false };
  return { retry: false, unknown: false };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The pause before attempt `attempt + 1`: short at first (a refusal is quick), at most 400 ms. */
export function backoffMs(attempt: number): number {
  return Math.min(25 * 2 ** Math.min(attempt, 4), 400);
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What an operator can do about the last error, when we know. */
function hintFor(error: unknown): string {
  if (error instanceof JetStreamApiError && error.code === NO_SUITABLE_PEERS) {
    return ' (JetStream cannot place a stream on three servers: check that every NATS server is in the meta group, docs/cluster.md "A NATS server left out of the meta group")';
  }
  return "";
}

/** Runs `attempt` until it settles with something other than a retryable error, or `deadlineMs` has passed. */
export async function withRetries<T>(what: string, deadlineMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error).retry) throw error;
      if (Date.now() >= deadline) throw new Error(`${what}: no answer within ${deadlineMs} ms (${tries} attempts); last error ${errorText(error)}${hintFor(error)}`, { cause: error });
    }
    await pause(backoffMs(tries));
  }
}
