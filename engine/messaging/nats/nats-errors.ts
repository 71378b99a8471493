/**
 * The NATS client's errors as MessagingErrors (../messaging-error.ts): the kinds the cluster's code
 * acts on; anything else is passed through unchanged.
 */
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { NoRespondersError, RequestError, TimeoutError } from "@nats-io/transport-node";
import { MessagingError } from "../messaging-error.js";

const NO_SUITABLE_PEERS = 10005;

function text(error: Error): string {
  return `${error.name}: ${error.message}`;
}

/** `error` as a MessagingError when it is one of the kinds, else `error` itself. */
export function messagingErrorOf(error: unknown): unknown {
  if (error instanceof MessagingError || !(error instanceof Error)) return error;
  if (error instanceof RequestError && error.cause instanceof Error) {
    const cause = messagingErrorOf(error.cause);
    if (cause instanceof MessagingError) return cause;
  }
  if (error instanceof TimeoutError) return new MessagingError("timeout", text(error), undefined, { cause: error });
  // The object store client checks an object's SHA-256 as it reads it, and says so only in words.
  if (error.message.startsWith("received a corrupt object, digests do not match")) return new MessagingError("corrupt", text(error), undefined, { cause: error });
  // No responders: no server took the request (a stream without a leader, a node restarting). The
  // JetStream client reports it as JetStreamNotEnabled, a class its package does not export: known by name.
  if (error instanceof NoRespondersError || error.name === "JetStreamNotEnabled") return new MessagingError("no-responders", text(error), undefined, { cause: error });
  if (error instanceof JetStreamApiError) {
    if (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown) {
      const stated = /wrong last sequence: (\d+)/.exec(error.message)?.[1];
      return new MessagingError("wrong-last-sequence", text(error), stated === undefined ? undefined : Number(stated), { cause: error });
    }
    if (error.code === JetStreamApiCodes.StreamNotFound) return new MessagingError("not-found", text(error), undefined, { cause: error });
    if (error.code === NO_SUITABLE_PEERS) return new MessagingError("no-peers", text(error), undefined, { cause: error });
    // "JetStream system temporarily unavailable" and its kin: refused, not carried out.
    if (error.status === 503) return new MessagingError("unavailable", text(error), undefined, { cause: error });
  }
  return error;
}

/** Runs `work`, its rejection turned into a MessagingError where it is one. */
export async function viaNats<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw messagingErrorOf(error);
  }
}
