/**
 * NATS core as the cluster uses it (forwarding, key bindings, live events): publish, subscribe (in
 * a queue group: one member gets each message), request/reply with a timeout, and the connection's
 * state. At most once: a message may be lost, and a request then times out.
 */

export interface MessageHeaders {
  get(name: string): string | undefined;
}

export interface ReceivedMessage {
  readonly data: Uint8Array;
  readonly headers: MessageHeaders | undefined;
}

/** A message a subscription received; a request's carries a reply subject `respond` answers on. */
export interface IncomingMessage extends ReceivedMessage {
  respond(data: Uint8Array, headers?: ReadonlyMap<string, string>): void;
}

export interface Subscription {
  unsubscribe(): void;
}

/** The connection lost its server, or found one again (the client reconnects by itself). */
export type ConnectionStatus = "disconnected" | "reconnected";

export interface Transport {
  publish(subject: string, data: Uint8Array): void;
  /** `queue`: one member of the group gets each message. */
  subscribe(subject: string, options: { readonly queue?: string }, onMessage: (message: IncomingMessage) => void): Subscription;
  /** Rejects with a MessagingError "timeout" or "no-responders" when nobody answers. */
  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<ReceivedMessage>;
  /** Calls `listener` on each change of the connection's state until the connection closes. */
  watchStatus(listener: (status: ConnectionStatus) => void): void;
}
