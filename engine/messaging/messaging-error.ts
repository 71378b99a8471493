/**
 * How a request to the messaging layer (NATS core and JetStream, or the simulation's model of them)
 * failed, in the few kinds the cluster's code acts on. Adapters turn their client's errors into
 * these (nats/nats-errors.ts); anything else passes through unchanged and is never retried.
 */

export type MessagingFailure =
  /** No answer within the request's timeout: the request may have been carried out. */
  | "timeout"
  /** Nobody took the request (no subscriber; a stream or bucket without a leader): not carried out. */
  | "no-responders"
  /** JetStream refused for now ("temporarily unavailable", status 503): not carried out. */
  | "unavailable"
  /** A replicated stream cannot be placed on enough servers yet (API error 10005): not carried out. */
  | "no-peers"
  /**
   * The expected last sequence (a stream's, or a key's revision in a KV bucket) is not the current
   * one (API error 10071): nothing was stored.
   */
  | "wrong-last-sequence"
  /** No such stream (API error 10059). */
  | "not-found"
  /** An object store object whose bytes do not match its recorded digest: reading it again gives the same. */
  | "corrupt";

export class MessagingError extends Error {
  override name = "MessagingError";
  constructor(
    readonly failure: MessagingFailure,
    message: string,
    /** wrong-last-sequence: the stream's actual last sequence, when the server said it. */
    readonly lastSequence?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export function isMessagingFailure(error: unknown, failure: MessagingFailure): error is MessagingError {
  return error instanceof MessagingError && error.failure === failure;
}
