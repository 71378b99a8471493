/**
 * Any node answers any request: a request for a partition this node does not own goes to the
 * partition's owner over NATS request/reply, and the owner's reply comes back to be relayed.
 *
 * The owner of partition p, while it serves p, subscribes `cluster.partition.<p>` in the queue
 * group `owner`: NATS delivers each request to one subscriber, so the sender never needs to know
 * who owns what, and during a handover (the old owner unsubscribed, the new one not yet) NATS
 * answers "no responders" at once. The bodies are the shard channel's own encoding (wire.ts): a
 * forwarded request IS a shard request (a command with its fingerprint, or a read) and the reply
 * a read response carrying the reply; every node runs the same build, so they agree on it.
 *
 * The same owner binds the keys whose home is the partition (`cluster.keys.<p>`, key-bindings.ts).
 *
 * What the sender gets when the owner cannot answer — nobody serves the partition, the owner did
 * not answer within the timeout, the owner was fenced or is stopping, NATS is out of reach — is an
 * UnavailableError (the client's 503 with Retry-After). None of them acknowledges anything: a
 * command that did execute is found by its retry (same commandId) through idempotency.
 */
import { headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { envelope } from "../runtime/worker-messages.js";
import { packRequests, packResponses, unpackRequests, unpackResponses } from "../runtime/wire.js";
import { readResponse, type ShardReply, type ShardRequest } from "../runtime/shard-protocol.js";
import { UnavailableError } from "../runtime/unavailable.js";
import { errorText } from "../journal/jetstream-retry.js";
import { Packr } from "msgpackr";
import type { BindVerdict } from "./key-bindings.js";

/** Header of a reply the owner could not give (its value says why, for the client's message). */
const UNAVAILABLE_HEADER = "Market-Service-Unavailable";
const QUEUE = "owner";

export function partitionSubject(partition: number): string {
  return `cluster.partition.${partition}`;
}

/** Where a home partition's owner binds keys (key-bindings.ts). */
export function keysSubject(partition: number): string {
  return `cluster.keys.${partition}`;
}

/** How the owner answers a forwarded request: the reply, or an UnavailableError to pass on. */
export type ForwardedHandler = (request: ShardRequest) => Promise<ShardReply>;

/** A key to bind at its home: the key, its command's fingerprint, and the partition the command executes on. */
export interface BindRequest {
  readonly actorId: string;
  readonly commandId: string;
  readonly fingerprint: string;
  readonly marketPartition: number;
}

export type BindHandler = (request: BindRequest) => Promise<BindVerdict>;

const bindPackr = new Packr({ useRecords: false, moreTypes: false });
const BOUND = Uint8Array.of(1);
const CONFLICT = Uint8Array.of(0);

export class Forwarder {
  private readonly served = new Map<string, Subscription>();

  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
    /** Where an unexpected failure of a handler is reported (the sender gets a 503 either way). */
    private readonly onHandlerError: (partition: number, error: unknown) => void,
  ) {}

  /** Starts answering the requests others forward for `partition`, and the keys they bind at it. */
  serve(partition: number, handler: ForwardedHandler, bind: BindHandler): void {
    this.subscribe(partition, partitionSubject(partition), async (data) => {
      const [item] = unpackRequests(data);
      if (item === undefined) throw new Error("a forwarded request without a body");
      return packResponses([envelope(0, readResponse(await handler(item.body)))]);
    });
    this.subscribe(partition, keysSubject(partition), async (data) => {
      const [actorId, commandId, fingerprint, marketPartition] = bindPackr.unpack(data) as [string, string, string, number];
      return (await bind({ actorId, commandId, fingerprint, marketPartition })) === "bound" ? BOUND : CONFLICT;
    });
  }

  /** Stops answering for `partition` (requests then go to whoever serves it next). */
  stopServing(partition: number): void {
    for (const subject of [partitionSubject(partition), keysSubject(partition)]) {
      this.served.get(subject)?.unsubscribe();
      this.served.delete(subject);
    }
  }

  private subscribe(partition: number, subject: string, answer: (data: Uint8Array) => Promise<Uint8Array>): void {
    if (this.served.has(subject)) return;
    const subscription = this.connection.subscribe(subject, {
      queue: QUEUE,
      callback: (error, message) => {
        if (error !== null) return; // the subscription is closing
        void this.respond(partition, message, answer);
      },
    });
    this.served.set(subject, subscription);
  }

  private async respond(partition: number, message: Msg, answer: (data: Uint8Array) => Promise<Uint8Array>): Promise<void> {
    try {
      message.respond(await answer(message.data));
    } catch (error) {
      if (!(error instanceof UnavailableError)) this.onHandlerError(partition, error);
      const reason = error instanceof UnavailableError ? error.message : "the partition's owner failed to answer";
      const header = natsHeaders();
      header.set(UNAVAILABLE_HEADER, reason);
      message.respond(new Uint8Array(0), { headers: header });
    }
  }

  /** Sends `data` to whoever serves `subject` and resolves with the answer's body. */
  private async call(partition: number, subject: string, data: Uint8Array): Promise<Uint8Array> {
    let message: Msg;
    try {
      message = await this.connection.request(subject, data, { timeout: this.timeoutMs });
    } catch (error) {
      throw new UnavailableError(`partition ${partition} has no owner answering right now (${errorText(error)}); retry shortly`);
    }
    const unavailable = message.headers?.get(UNAVAILABLE_HEADER);
    if (unavailable !== undefined && unavailable !== "") throw new UnavailableError(`partition ${partition}: ${unavailable}`);
    return message.data;
  }

  /** Sends `request` to the owner of `partition` and resolves with its reply. */
  async send(partition: number, request: ShardRequest): Promise<ShardReply> {
    const [item] = unpackResponses(await this.call(partition, partitionSubject(partition), packRequests([envelope(0, request)])));
    if (item === undefined || item.body.kind !== "read") throw new Error(`partition ${partition}'s owner sent a malformed reply`);
    return asSentReply(item.body.reply);
  }

  /** Binds a key at its home partition's owner. */
  async sendBind(home: number, request: BindRequest): Promise<BindVerdict> {
    const body = bindPackr.pack([request.actorId, request.commandId, request.fingerprint, request.marketPartition]);
    const answer = await this.call(home, keysSubject(home), body);
    if (answer.length !== 1) throw new Error(`partition ${home}'s owner sent a malformed binding answer`);
    return answer[0] === 1 ? "bound" : "conflict";
  }

  close(): void {
    for (const subscription of this.served.values()) subscription.unsubscribe();
    this.served.clear();
  }
}

/**
 * The reply as the owner had it. JSON rendered by a pool thread (a record, a replayed reply) is a
 * Buffer there; MessagePack carries it as binary, which unpacks from the NATS message's bytes as a
 * plain Uint8Array, and the HTTP layer writes only a string or a Buffer: view the same bytes as one.
 */
function asSentReply(reply: ShardReply): ShardReply {
  if (!reply.ok || typeof reply.json === "string" || Buffer.isBuffer(reply.json)) return reply;
  const bytes: Uint8Array = reply.json;
  return { ok: true, json: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}
