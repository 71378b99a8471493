/** NATS core on the NATS client (../transport.ts). */
import { headers as natsHeaders, type Msg, type NatsConnection } from "@nats-io/transport-node";
import type { ConnectionStatus, IncomingMessage, ReceivedMessage, Subscription, Transport } from "../transport.js";
import { viaNats } from "./nats-errors.js";

function incoming(message: Msg): IncomingMessage {
  return {
    data: message.data,
    headers: message.headers,
    respond: (data, headers) => {
      if (headers === undefined || headers.size === 0) {
        message.respond(data);
        return;
      }
      const header = natsHeaders();
      for (const [name, value] of headers) header.set(name, value);
      message.respond(data, { headers: header });
    },
  };
}

export class NatsTransport implements Transport {
  constructor(private readonly connection: NatsConnection) {}

  publish(subject: string, data: Uint8Array): void {
    this.connection.publish(subject, data);
  }

  subscribe(subject: string, options: { readonly queue?: string }, onMessage: (message: IncomingMessage) => void): Subscription {
    return this.connection.subscribe(subject, {
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      callback: (error, message) => {
        if (error !== null) return; // the subscription is closing
        onMessage(incoming(message));
      },
    });
  }

  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<ReceivedMessage> {
    return viaNats(async () => {
      const reply = await this.connection.request(subject, data, { timeout: timeoutMs });
      return { data: reply.data, headers: reply.headers };
    });
  }

  watchStatus(listener: (status: ConnectionStatus) => void): void {
    void (async () => {
      for await (const status of this.connection.status()) {
        if (status.type === "disconnect") listener("disconnected");
        else if (status.type === "reconnect") listener("reconnected");
      }
    })().catch(() => undefined);
  }
}
