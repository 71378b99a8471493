/**
 * Everything the cluster's code needs from NATS, behind one seam: a node's connection as ports
 * (NATS core, JetStream streams, KV buckets, object stores), the timers its timeouts run by, and
 * unique ids. Production builds it on the NATS client (nats/nats-messaging.ts); the simulation
 * builds it on its model of a NATS cluster with simulated time (test/simulation/, docs/simulation.md). The
 * modules that take a Messaging import nothing of @nats-io.
 */
import type { Timers } from "../timers.js";
import type { KvBuckets } from "./kv.js";
import type { ObjectStores } from "./object-store.js";
import type { Streams } from "./streams.js";
import type { Transport } from "./transport.js";

/** JetStream through one client: each request waits at most the client's timeout. */
export interface JetStream {
  readonly streams: Streams;
  readonly kv: KvBuckets;
  readonly objects: ObjectStores;
}

export interface Messaging {
  readonly transport: Transport;
  /** JetStream whose requests time out after `timeoutMs`. */
  jetStream(timeoutMs: number): JetStream;
  /** The time this connection's timeouts, and its users' retries and rounds, run by. */
  readonly timers: Timers;
  /** The largest message the servers take (undefined until known). */
  readonly maxPayload: number | undefined;
  /** An id no other writer anywhere has (a journal's batch ids start with one). */
  uniqueId(): string;
  /** Closes the connection (the owner's call: a module given a Messaging never closes it). */
  close(): Promise<void>;
}
