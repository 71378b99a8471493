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
 * Requests to one partition gathered in one event-loop turn travel as ONE NATS request (as requests
 * to a shard travel as one message on a node: shard-host.ts), and are answered in one reply: in a
 * claim storm the NATS messages per claim, not the claims, are what cost.
 *
 * What the sender gets when the owner cannot answer — nobody serves the partition, the owner did
 * not answer within the timeout, the owner was fenced or is stopping, NATS is out of reach — is an
 * UnavailableError (the client's 503 with Retry-After). None of them acknowledges anything: a
 * command that did execute is found by its retry (same commandId) through idempotency.
 */
import type { IncomingMessage, ReceivedMessage, Subscription, Transport } from "../messaging/transport.js";
import type { Timers } from "../timers.js";
import { envelope } from "../runtime/worker-messages.js";
import { packRequests, packResponses, unpackRequests, unpackResponses } from "../runtime/wire.js";
import { errorReply, okReply, readResponse, type ShardReply, type ShardRequest } from "../runtime/shard-protocol.js";
import { UnavailableError } from "../runtime/unavailable.js";
import { errorText } from "../journal/jetstream-retry.js";
import { Packr } from "msgpackr";
import type { BindVerdict } from "./key-bindings.js";

/** Header of a reply the owner could not give at all (its value says why, for the client's message). */
const UNAVAILABLE_HEADER = "Market-Service-Unavailable";
/** Header naming the items of a batch the owner could not answer (comma-separated ids), and why in UNAVAILABLE_HEADER. */
const UNAVAILABLE_ITEMS_HEADER = "Market-Service-Unavailable-Items";
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

type LoggedBindRequest = [actorId: string, commandId: string, fingerprint: string, marketPartition: number];

const bindPackr = new Packr({ useRecords: false, moreTypes: false });
const VERDICT_CODES: Readonly<Record<BindVerdict, number>> = { conflict: 0, bound: 1 };
/** A binding's answer byte when the owner could not decide it. */
const UNDECIDED = 2;

/** Requests for one subject gathered in one event-loop turn: they travel as one NATS request. */
interface Outgoing<Request, Answer> {
  readonly items: Array<{ request: Request; resolve: (answer: Answer) => void; reject: (error: unknown) => void }>;
}

export class Forwarder {
  private readonly served = new Map<string, Subscription>();
  private readonly forwards = new Map<number, Outgoing<ShardRequest, ShardReply>>();
  private readonly binds = new Map<number, Outgoing<BindRequest, BindVerdict>>();

  constructor(
    private readonly transport: Transport,
    /** Requests gathered in one turn leave in the next (`soon`). */
    private readonly timers: Timers,
    private readonly timeoutMs: number,
    /** Where an unexpected failure of a handler is reported (the sender gets a 503 either way). */
    private readonly onHandlerError: (partition: number, error: unknown) => void,
  ) {}

  /**
   * Starts answering the requests others forward for `partition`, and the keys they bind at it.
   * A message carries every request its sender gathered in one event-loop turn; each is answered
   * on its own (an item the owner cannot answer is named in a header, the others are answered).
   */
  serve(partition: number, handler: ForwardedHandler, bind: BindHandler): void {
    this.subscribe(partition, partitionSubject(partition), async (data) => {
      const items = unpackRequests(data);
      const unavailable: number[] = [];
      let reason = "";
      const answers = await Promise.all(
        items.map(async (item) => {
          try {
            return envelope(item.id, readResponse(await handler(item.body)));
          } catch (error) {
            reason = this.reasonOf(partition, error);
            unavailable.push(item.id);
            return envelope(item.id, readResponse(UNANSWERED));
          }
        }),
      );
      return { body: packResponses(answers), unavailable, reason };
    });
    this.subscribe(partition, keysSubject(partition), async (data) => {
      const requests = bindPackr.unpack(data) as LoggedBindRequest[];
      let reason = "";
      const verdicts = await Promise.all(
        requests.map(async ([actorId, commandId, fingerprint, marketPartition]) => {
          try {
            return VERDICT_CODES[await bind({ actorId, commandId, fingerprint, marketPartition })];
          } catch (error) {
            reason = this.reasonOf(partition, error);
            return UNDECIDED;
          }
        }),
      );
      return { body: Uint8Array.from(verdicts), unavailable: [], reason };
    });
  }

  /** Why an item could not be answered, for the client; an unexpected failure is reported first. */
  private reasonOf(partition: number, error: unknown): string {
    if (error instanceof UnavailableError) return error.message;
    this.onHandlerError(partition, error);
    return "the partition's owner failed to answer";
  }

  /** Stops answering for `partition` (requests then go to whoever serves it next). */
  stopServing(partition: number): void {
    for (const subject of [partitionSubject(partition), keysSubject(partition)]) {
      this.served.get(subject)?.unsubscribe();
      this.served.delete(subject);
    }
  }

  private subscribe(partition: number, subject: string, answer: (data: Uint8Array) => Promise<{ body: Uint8Array; unavailable: number[]; reason: string }>): void {
    if (this.served.has(subject)) return;
    const subscription = this.transport.subscribe(subject, { queue: QUEUE }, (message) => void this.respond(partition, message, answer));
    this.served.set(subject, subscription);
  }

  private async respond(partition: number, message: IncomingMessage, answer: (data: Uint8Array) => Promise<{ body: Uint8Array; unavailable: number[]; reason: string }>): Promise<void> {
    const header = new Map<string, string>();
    try {
      const { body, unavailable, reason } = await answer(message.data);
      if (unavailable.length > 0) {
        header.set(UNAVAILABLE_ITEMS_HEADER, unavailable.join(","));
        header.set(UNAVAILABLE_HEADER, reason);
      } else if (reason !== "") {
        header.set(UNAVAILABLE_HEADER, reason);
      }
      message.respond(body, header);
    } catch (error) {
      header.set(UNAVAILABLE_HEADER, this.reasonOf(partition, error));
      message.respond(new Uint8Array(0), header);
    }
  }

  /** Sends `data` to whoever serves `subject` and resolves with the answer. */
  private async call(partition: number, subject: string, data: Uint8Array): Promise<ReceivedMessage> {
    let message: ReceivedMessage;
    try {
      message = await this.transport.request(subject, data, this.timeoutMs);
    } catch (error) {
      throw new UnavailableError(`partition ${partition} has no owner answering right now (${errorText(error)}); retry shortly`);
    }
    const unavailable = message.headers?.get(UNAVAILABLE_HEADER);
    const items = message.headers?.get(UNAVAILABLE_ITEMS_HEADER);
    if (unavailable !== undefined && unavailable !== "" && (items === undefined || items === "") && message.data.length === 0) {
      throw new UnavailableError(`partition ${partition}: ${unavailable}`);
    }
    return message;
  }

  /** Queues `request` for `partition` in this turn's message to its owner. */
  private enqueue<Request, Answer>(queues: Map<number, Outgoing<Request, Answer>>, partition: number, request: Request, flush: (partition: number, outgoing: Outgoing<Request, Answer>) => Promise<void>): Promise<Answer> {
    let outgoing = queues.get(partition);
    if (outgoing === undefined) {
      const fresh: Outgoing<Request, Answer> = { items: [] };
      queues.set(partition, fresh);
      this.timers.soon(() => {
        queues.delete(partition);
        flush(partition, fresh).catch((error: unknown) => {
          for (const item of fresh.items) item.reject(error);
        });
      });
      outgoing = fresh;
    }
    const queued = outgoing;
    return new Promise<Answer>((resolve, reject) => queued.items.push({ request, resolve, reject }));
  }

  /** Sends `request` to the owner of `partition` and resolves with its reply. */
  send(partition: number, request: ShardRequest): Promise<ShardReply> {
    return this.enqueue(this.forwards, partition, request, async (target, outgoing) => {
      const message = await this.call(target, partitionSubject(target), packRequests(outgoing.items.map((item, id) => envelope(id, item.request))));
      const unavailable = new Set((message.headers?.get(UNAVAILABLE_ITEMS_HEADER) ?? "").split(",").filter((id) => id !== "").map(Number));
      const reason = message.headers?.get(UNAVAILABLE_HEADER) ?? "";
      const answers = unpackResponses(message.data);
      outgoing.items.forEach((item, id) => {
        const answer = answers[id];
        if (unavailable.has(id)) item.reject(new UnavailableError(`partition ${target}: ${reason}`));
        else if (answer === undefined || answer.id !== id || answer.body.kind !== "read") item.reject(new Error(`partition ${target}'s owner sent a malformed reply`));
        else item.resolve(asSentReply(answer.body.reply));
      });
    });
  }

  /** Binds a key at its home partition's owner. */
  sendBind(home: number, request: BindRequest): Promise<BindVerdict> {
    return this.enqueue(this.binds, home, request, async (target, outgoing) => {
      const body = bindPackr.pack(outgoing.items.map(({ request: r }) => [r.actorId, r.commandId, r.fingerprint, r.marketPartition] satisfies LoggedBindRequest));
      const message = await this.call(target, keysSubject(target), body);
      const reason = message.headers?.get(UNAVAILABLE_HEADER) ?? "";
      if (message.data.length !== outgoing.items.length) throw new Error(`partition ${target}'s owner sent a malformed binding answer`);
      outgoing.items.forEach((item, i) => {
        const code = message.data[i];
        if (code === VERDICT_CODES.bound) item.resolve("bound");
        else if (code === VERDICT_CODES.conflict) item.resolve("conflict");
        else item.reject(new UnavailableError(`partition ${target}: ${reason}`));
      });
    });
  }

  close(): void {
    for (const subscription of this.served.values()) subscription.unsubscribe();
    this.served.clear();
  }
}

/** A placeholder in a batch's answers for an item named unavailable in the header. */
const UNANSWERED: ShardReply = errorReply("internal_error", "unanswered");

/**
 * The reply as the owner had it. JSON rendered by a pool thread (a record, a replayed reply) is a
 * Buffer there; MessagePack carries it as binary, which unpacks from the NATS message's bytes as a
 * plain Uint8Array, and the HTTP layer writes only a string or a Buffer: view the same bytes as one.
 */
function asSentReply(reply: ShardReply): ShardReply {
  if (!reply.ok || typeof reply.json === "string" || Buffer.isBuffer(reply.json)) return reply;
  const bytes: Uint8Array = reply.json;
  return okReply(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), reply.receipt);
}
