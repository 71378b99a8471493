/**
 * When the client sends a request again (docs/client.md, "Retries"; decisions.md I37): only when
 * it cannot have been refused on its content — no answer at all (a network error or the per-attempt
 * timeout), 503 (the service is starting, stopping or a log is out of reach; nothing was recorded) or
 * 429 — and for a command always with the same body bytes, so the same `commandId`: the service
 * answers a repeat with the original result, never a second command. Bounded in attempts and in
 * total time; `Retry-After` is honoured, else a capped exponential backoff with jitter (so many
 * clients turned away together do not return together).
 */

export interface RetryOptions {
  /** Attempts in all, the first included (1 = no retry). */
  readonly maxAttempts?: number;
  /** No new attempt starts later than this after the first one began. */
  readonly maxElapsedMs?: number;
  /** The first backoff when the reply names no Retry-After; doubled each time. */
  readonly baseDelayMs?: number;
  /** The longest wait between two attempts (a Retry-After longer than this is waited in full if it fits maxElapsedMs). */
  readonly maxDelayMs?: number;
}

/**
 * Long enough to ride out a restart of the service (docs/client.md, "Retries"): the 20 s bound on
 * time, not the attempts, ends the retries (with these delays 30 attempts take longer than 20 s),
 * so a request keeps trying for more than 18 s; with waits of at most 2 s a service that is back
 * is tried again soon.
 */
export const DEFAULT_RETRY: Required<RetryOptions> = Object.freeze({ maxAttempts: 30, maxElapsedMs: 20_000, baseDelayMs: 200, maxDelayMs: 2_000 });

/** The statuses a retry is for: nothing was done, try later. */
export function isRetryableStatus(status: number): boolean {
  return status === 503 || status === 429;
}

/**
 * `Retry-After` in milliseconds: delay-seconds, or an HTTP date (RFC 9110 §10.2.3) relative to
 * `nowMs`; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1) when the reply named none. */
export function backoffMs(options: Required<RetryOptions>, attempt: number, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  // "Equal jitter": at least half the backoff, so a retry is never immediate.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The options with defaults filled in and checked, or the refusal naming the field. */
export function retryOptionsOf(options: RetryOptions | false | undefined): Required<RetryOptions> {
  if (options === false) return { ...DEFAULT_RETRY, maxAttempts: 1 };
  const merged = { ...DEFAULT_RETRY, ...options };
  for (const [name, value] of Object.entries(merged)) {
    if (!(typeof value === "number" && Number.isFinite(value) && value >= 0)) throw new RangeError(`retry.${name} must be a non-negative number`);
  }
  if (!Number.isInteger(merged.maxAttempts) || merged.maxAttempts < 1) throw new RangeError("retry.maxAttempts must be an integer of at least 1");
  return merged;
}
