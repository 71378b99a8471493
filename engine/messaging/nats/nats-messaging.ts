/**
 * The cluster's Messaging (../messaging.ts) on a NATS client connection: production's side of the
 * seam the simulation (test/simulation/) implements too.
 */
import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { systemTimers } from "../../timers.js";
import type { JetStream, Messaging } from "../messaging.js";
import { NatsKvBuckets } from "./nats-kv.js";
import { NatsObjectStores } from "./nats-objects.js";
import { NatsStreams } from "./nats-streams.js";
import { NatsTransport } from "./nats-transport.js";
import { connectForJournals } from "./connect.js";

export class NatsMessaging implements Messaging {
  readonly transport: NatsTransport;
  readonly timers = systemTimers;
  private readonly clients = new Map<number, JetStream>();

  /** `connection` becomes this Messaging's: `close` closes it. */
  constructor(readonly connection: NatsConnection) {
    this.transport = new NatsTransport(connection);
  }

  jetStream(timeoutMs: number): JetStream {
    let client = this.clients.get(timeoutMs);
    if (client === undefined) {
      const js = jetstream(this.connection, { timeout: timeoutMs });
      // No API check (a request of its own when the manager is made): the first request made
      // through it is retried by its caller, and names the problem if JetStream is missing.
      const jsm = jetstreamManager(this.connection, { timeout: timeoutMs, checkAPI: false });
      client = { streams: new NatsStreams(js, jsm), kv: new NatsKvBuckets(js, jsm), objects: new NatsObjectStores(js, jsm) };
      this.clients.set(timeoutMs, client);
    }
    return client;
  }

  get maxPayload(): number | undefined {
    return this.connection.info?.max_payload;
  }

  uniqueId(): string {
    return randomBytes(12).toString("base64url");
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}

/** Connects to the NATS servers at `servers` with the journals' settings (connect.ts). */
export async function connectMessaging(servers: readonly string[], name?: string): Promise<NatsMessaging> {
  return new NatsMessaging(await connectForJournals(servers, name));
}
