/**
 * A request the markets cannot take now, though nothing is wrong with it: its shard failed or is
 * stopping, or (cluster mode) its partition is between owners, its owner did not answer in time,
 * or NATS is out of reach. Nothing of the request was acknowledged; the same request (same
 * commandId) may be sent again: idempotency gives the original reply if it did execute. The
 * transports answer it as the service's 503 `service_unavailable` with Retry-After.
 */
export class UnavailableError extends Error {
  override name = "UnavailableError";
  constructor(
    message: string,
    /** When a retry may succeed, in whole seconds (the Retry-After header). */
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}
