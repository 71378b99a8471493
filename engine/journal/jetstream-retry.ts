/**
 * Which messaging failures are worth trying again, and a loop that does so until a deadline. A stream
 * whose leader died answers nothing for the seconds an election takes (requests time out, then "no
 * responders"); the JetStream journal rides that out instead of failing at the first refusal.
 * Deadlines and pauses run by the injected timers (engine/timers.ts).
 */
import { MessagingError } from "../messaging/messaging-error.js";
import { pauseFor, type Timers } from "../timers.js";

export interface RetryVerdict {
  readonly retry: boolean;
  /** The request may have been carried out (it timed out): a publish so retried must be idempotent. */
  readonly unknown: boolean;
}

/** Errors after which the same request may be made again; `unknown` when it may have been carried out. */
export function retryable(error: unknown): RetryVerdict {
  if (!(error instanceof MessagingError)) return { retry: false, unknown: false };
  switch (error.failure) {
    case "timeout":
      return { retry: true, unknown: true };
    // Nobody took it (a stream without a leader, a node restarting), JetStream refused for now, or a
    // replicated stream cannot be placed yet because the cluster is still forming or a node is down.
    case "no-responders":
    case "unavailable":
    case "no-peers":
      return { retry: true, unknown: false };
    case "wrong-last-sequence":
    case "not-found":
    case "corrupt":
      return { retry: false, unknown: false };
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The pause before attempt `attempt + 1`: short at first (a refusal is quick), at most 400 ms. */
export function backoffMs(attempt: number): number {
  return Math.min(25 * 2 ** Math.min(attempt, 4), 400);
}

/** What an operator can do about the last error, when we know. */
function hintFor(error: unknown): string {
  if (error instanceof MessagingError && error.failure === "no-peers") {
    return ' (JetStream cannot place a stream on three servers: check that every NATS server is in the meta group, docs/cluster.md "A NATS server left out of the meta group")';
  }
  return "";
}

/** Runs `attempt` until it settles with something other than a retryable error, or `deadlineMs` has passed by `timers`. */
export async function withRetries<T>(timers: Timers, what: string, deadlineMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = timers.nowMs() + deadlineMs;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error).retry) throw error;
      if (timers.nowMs() >= deadline) throw new Error(`${what}: no answer within ${deadlineMs} ms (${tries} attempts); last error ${errorText(error)}${hintFor(error)}`, { cause: error });
    }
    await pauseFor(timers, backoffMs(tries));
  }
}
