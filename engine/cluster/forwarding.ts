/**
 * Any node answers any request: a request for a partition this node does not own goes to the
 * partition's owner over NATS request/reply, and the owner's reply comes back to be relayed.
 *
 * A request goes to the owner the partition's lease names, at the lease's epoch: the owner of
 * partition p at epoch e, while it serves p, subscribes `cluster.partition.<p>.<e>`, so a request
 * reaches that owner and no other (a paused or cut-off former owner still subscribed at its own
 * epoch receives nothing meant for its successor), and while nobody serves that epoch (a handover:
 * the old owner unsubscribed, the new one recovering) NATS answers at once that nobody listens.
 * The bodies are the shard channel's own encoding (wire.ts): a forwarded request IS a shard request
 * (a command with its fingerprint, or a read) and the reply a read response carrying the reply;
 * every body starts with the inter-node header naming its encoding (inter-node-wire.ts), and a
 * node refuses a message of another build instead of misreading it (the sender's client gets a 503
 * saying so).
 *
 * When the lease moves to a new epoch while a request to the old one is unanswered (`ownerMoved`),
 * the request is abandoned: its sender gets OWNER_MOVED and sends it again to the new owner, the
 * same bytes (cluster-runtime.ts). A late answer of the old owner is dropped, so a client is never
 * answered twice.
 *
 * The same owner binds the keys whose home is the partition (`cluster.keys.<p>.<e>`, key-bindings.ts).
 *
 * Requests to one partition gathered in one event-loop turn travel as ONE NATS request (as requests
 * to a shard travel as one message on a node: shard-host.ts), and are answered in one reply: in a
 * claim storm the NATS messages per claim, not the claims, are what cost. Every message ready by the
 * end of a turn leaves in one later turn, together: one write of the NATS client's socket, unless
 * they fill its outbound buffer (decision I71). Binds go further: one
 * message per home and epoch is in flight from a node at a time, and the binds that arrive while it
 * is unanswered leave together as the next (the home's own group commit, one append in flight, does
 * the same with what reaches it): a bind waits for the home's append in any case, so gathering
 * behind the one in flight costs it at most one more, and takes messages and appends off every
 * claim (decision I68). After a message of two binds or more is answered, the next waits for company
 * as a partition's batch does (batch-gathering.ts, the cluster's batch linger: decision I70): it
 * leaves the linger after that answer, or once it holds 64, so a busy sender's binds share fewer
 * messages and fewer appends at the home; a lone client's bind, after a message of one, goes at once.
 * A message abandoned (the lease moved) or timed out no longer holds the next back, though the home
 * may still be working on it; so a bind waits at most two timeouts and the linger.
 *
 * What the sender gets when the owner cannot answer — nobody serves the partition, the owner did
 * not answer within the timeout, the owner was fenced or is stopping, NATS is out of reach — is an
 * UnavailableError (the client's 503 with Retry-After), in plain words (docs/errors.md): the
 * owner's own message as it gave it, or one naming the partition; NATS's error text goes to no
 * client. None of them acknowledges anything: a command that did execute is found by its retry
 * (same commandId) through idempotency.
 */
import { strict as assert } from "node:assert";
import type { IncomingMessage, ReceivedMessage, Subscription, Transport } from "../messaging/transport.js";
import { isMessagingFailure } from "../messaging/messaging-error.js";
import type { Timers } from "../timers.js";
import { envelope } from "../runtime/worker-messages.js";
import { packRequests, packResponses, unpackRequests, unpackResponses } from "../runtime/wire.js";
import { errorReply, okReply, readResponse, type ShardReply, type ShardRequest } from "../shard-protocol/shard-protocol.js";
import { UnavailableError } from "../runtime/unavailable.js";
import { Packr } from "msgpackr";
import type { BindVerdict } from "./key-bindings.js";
import { InterNodeRefusals, OWN_INTER_NODE_HEADER, openInterNode, sealInterNode } from "./inter-node-wire.js";
import { BatchGathering } from "../runtime/batch-gathering.js";

/** Header of a reply the owner could not give at all (its value says why, for the client's message). */
const UNAVAILABLE_HEADER = "Market-Service-Unavailable";
/** Header naming the items of a batch the owner could not answer (comma-separated ids), and why in UNAVAILABLE_HEADER. */
const UNAVAILABLE_ITEMS_HEADER = "Market-Service-Unavailable-Items";
const QUEUE = "owner";

/** Where the owner of `partition` at lease `epoch` answers forwarded requests. */
export function partitionSubject(partition: number, epoch: number): string {
  return `cluster.partition.${partition}.${epoch}`;
}

/** Where the owner of home partition `partition` at lease `epoch` binds keys (key-bindings.ts). */
export function keysSubject(partition: number, epoch: number): string {
  return `cluster.keys.${partition}.${epoch}`;
}

/** A forwarded request's answer when the partition's lease moved to a new owner before its owner answered: send it again. */
export const OWNER_MOVED = Symbol("the partition's owner changed");
export type OwnerMoved = typeof OWNER_MOVED;

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

/** Messages a node sent to owners, and the requests (commands and reads, or binds) they carried. */
export interface SentCount {
  messages: number;
  requests: number;
}

/** What a node sent to partitions' owners since it started, by kind (metrics: how many requests share a message). */
export interface ForwardingCounts {
  readonly forward: Readonly<SentCount>;
  readonly bind: Readonly<SentCount>;
}

/**
 * One kind of message to owners (forwarded requests, or binds): the requests gathered for each
 * subject, the message in flight to each subject where only one may be (binds), and what was sent.
 */
interface Lane<Request, Answer> {
  readonly queues: Map<string, Outgoing<Request, Answer>>;
  /** Absent: a subject's next message leaves in the next turn, whatever is in flight. */
  readonly inFlight: Map<string, Promise<void>> | undefined;
  /** How long a subject's next message waits for company after a busy one's answer (binds, decision I70); 0: never. */
  readonly lingerMs: number;
  /** Each subject's wait for company, by the subject's key (lingerMs > 0 only). */
  readonly gatherings: Map<string, SubjectGathering>;
  readonly sent: SentCount;
}

/** The wait for company of one subject: the owner of `partition` at `epoch`. */
interface SubjectGathering {
  readonly partition: number;
  readonly epoch: number;
  readonly gathering: BatchGathering;
}

function lane<Request, Answer>(oneInFlight: boolean, lingerMs = 0): Lane<Request, Answer> {
  assert(lingerMs === 0 || oneInFlight, "only a lane with one message in flight per subject waits for company");
  return { queues: new Map(), inFlight: oneInFlight ? new Map() : undefined, lingerMs, gatherings: new Map(), sent: { messages: 0, requests: 0 } };
}

/** Requests for one subject gathered in one event-loop turn: they travel as one NATS request. */
interface Outgoing<Request, Answer> {
  readonly partition: number;
  readonly epoch: number;
  /** The lease moved past `epoch` before these left (`ownerMoved`): they are answered OWNER_MOVED, not sent. */
  abandoned: boolean;
  readonly items: Array<{ request: Request; resolve: (answer: Answer | OwnerMoved) => void; reject: (error: unknown) => void }>;
}

/** A NATS request to an owner, unanswered yet: abandoned when the partition's lease moves past its epoch. */
interface InFlight {
  readonly epoch: number;
  abandon(): void;
}

export interface ForwarderOptions {
  /** The inter-node header this node's messages carry (inter-node-wire.ts); another only in tests of a mixed cluster. */
  readonly wireHeader?: Uint8Array;
  /** How long a node's next bind message to a home waits for company after a busy one was answered (the cluster's batch linger; 0: never). */
  readonly bindLingerMs?: number;
}

export class Forwarder {
  private readonly wireHeader: Uint8Array;
  /** The subjects this node answers, by partition (both of a partition's subjects go together). */
  private readonly served = new Map<number, Subscription[]>();
  /** Requests waiting to leave, by kind and subject; binds leave one message per subject at a time. */
  private readonly forwards = lane<ShardRequest, ShardReply>(false);
  private readonly binds: Lane<BindRequest, BindVerdict>;
  /** Messages that leave in the next turn, together (`leaveSoon`). */
  private ready: Array<() => void> = [];
  /** Requests sent and unanswered, by partition. */
  private readonly inFlight = new Map<number, Set<InFlight>>();
  /** Messages of another build refused, reported through onHandlerError once each. */
  private readonly refusals: InterNodeRefusals;

  constructor(
    private readonly transport: Transport,
    /** Requests gathered in one turn leave in the next (`soon`). */
    private readonly timers: Timers,
    private readonly timeoutMs: number,
    /** Where an unexpected failure of a handler is reported (the sender gets a 503 either way). */
    private readonly onHandlerError: (partition: number, error: unknown) => void,
    options: ForwarderOptions = {},
  ) {
    this.refusals = new InterNodeRefusals(onHandlerError);
    this.wireHeader = options.wireHeader ?? OWN_INTER_NODE_HEADER;
    this.binds = lane(true, options.bindLingerMs ?? 0);
  }

  /**
   * Starts answering the requests others forward for `partition` to its owner at lease `epoch`
   * (this node), and the keys they bind at it. A message carries every request its sender gathered
   * in one event-loop turn; each is answered on its own (an item the owner cannot answer is named
   * in a header, the others are answered).
   */
  serve(partition: number, epoch: number, handler: ForwardedHandler, bind: BindHandler): void {
    if (this.served.has(partition)) return;
    const forwarded = this.subscribe(partition, partitionSubject(partition, epoch), async (data) => {
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
    const binding = this.subscribe(partition, keysSubject(partition, epoch), async (data) => {
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
    this.served.set(partition, [forwarded, binding]);
  }

  /** Why an item could not be answered, for the client; an unexpected failure is reported first. */
  private reasonOf(partition: number, error: unknown): string {
    if (error instanceof UnavailableError) return error.message;
    this.onHandlerError(partition, error);
    return "the partition's owner failed to answer";
  }

  /** Stops answering for `partition` (requests then go to whoever serves it next). */
  stopServing(partition: number): void {
    for (const subscription of this.served.get(partition) ?? []) subscription.unsubscribe();
    this.served.delete(partition);
  }

  private subscribe(partition: number, subject: string, answer: (data: Uint8Array) => Promise<{ body: Uint8Array; unavailable: number[]; reason: string }>): Subscription {
    return this.transport.subscribe(subject, { queue: QUEUE }, (message) => void this.respond(partition, message, answer));
  }

  private async respond(partition: number, message: IncomingMessage, answer: (data: Uint8Array) => Promise<{ body: Uint8Array; unavailable: number[]; reason: string }>): Promise<void> {
    const header = new Map<string, string>();
    const opened = openInterNode(message.data, this.wireHeader);
    if ("refused" in opened) {
      this.refusals.note(partition, opened.refused);
      header.set(UNAVAILABLE_HEADER, opened.refused);
      message.respond(new Uint8Array(0), header);
      return;
    }
    try {
      const { body, unavailable, reason } = await answer(opened.body);
      if (unavailable.length > 0) {
        header.set(UNAVAILABLE_ITEMS_HEADER, unavailable.join(","));
        header.set(UNAVAILABLE_HEADER, reason);
      } else if (reason !== "") {
        header.set(UNAVAILABLE_HEADER, reason);
      }
      message.respond(sealInterNode(body, this.wireHeader), header);
    } catch (error) {
      header.set(UNAVAILABLE_HEADER, this.reasonOf(partition, error));
      message.respond(new Uint8Array(0), header);
    }
  }

  /**
   * The partition's lease moved to `epoch`: requests to an owner at an earlier epoch still
   * unanswered are abandoned (their senders get OWNER_MOVED and send them to the new owner).
   */
  ownerMoved(partition: number, epoch: number): void {
    for (const call of this.inFlight.get(partition) ?? []) if (call.epoch < epoch) call.abandon();
    // Requests still waiting to leave for an earlier epoch (binds wait behind the one in flight) go the same way.
    for (const { queues, gatherings } of [this.forwards, this.binds]) {
      for (const outgoing of queues.values()) if (outgoing.partition === partition && outgoing.epoch < epoch) outgoing.abandoned = true;
      // An earlier epoch's subject gets no more messages: a message held for company leaves now (to
      // be answered OWNER_MOVED, abandoned above), and the wait goes.
      for (const [key, subject] of gatherings) {
        if (subject.partition !== partition || subject.epoch >= epoch) continue;
        subject.gathering.release();
        gatherings.delete(key);
      }
    }
  }

  /** Sends `data` to `subject` (the owner of `partition` at `epoch`); resolves with the answer, or OWNER_MOVED. */
  private async call(partition: number, epoch: number, subject: string, data: Uint8Array): Promise<ReceivedMessage | OwnerMoved> {
    const calls = this.inFlight.get(partition) ?? new Set<InFlight>();
    this.inFlight.set(partition, calls);
    let call: InFlight | undefined;
    const moved = new Promise<OwnerMoved>((resolve) => {
      call = { epoch, abandon: () => resolve(OWNER_MOVED) };
      calls.add(call);
    });
    let message: ReceivedMessage | OwnerMoved;
    try {
      message = await Promise.race([this.transport.request(subject, data, this.timeoutMs), moved]);
    } catch (error) {
      throw new UnavailableError(ownerNotAnswering(partition, error, this.timeoutMs));
    } finally {
      calls.delete(call as InFlight);
      if (calls.size === 0) this.inFlight.delete(partition);
    }
    if (message === OWNER_MOVED) return message;
    const unavailable = message.headers?.get(UNAVAILABLE_HEADER);
    const items = message.headers?.get(UNAVAILABLE_ITEMS_HEADER);
    if (unavailable !== undefined && unavailable !== "" && (items === undefined || items === "") && message.data.length === 0) {
      throw new UnavailableError(unavailable);
    }
    const opened = openInterNode(message.data, this.wireHeader);
    if ("refused" in opened) throw new UnavailableError(opened.refused);
    return { data: opened.body, headers: message.headers };
  }

  /**
   * Queues `request` in the next message of `lane` to the owner of `partition` at `epoch`: it
   * leaves in the next turn, or, where one message per subject may be in flight (binds), in the turn
   * after the one in flight is answered; what is queued until then leaves with it.
   */
  private enqueue<Request, Answer>(
    lane: Lane<Request, Answer>,
    partition: number,
    epoch: number,
    request: Request,
    flush: (outgoing: Outgoing<Request, Answer>) => Promise<void>,
  ): Promise<Answer | OwnerMoved> {
    const { queues, inFlight } = lane;
    const key = `${partition}.${epoch}`;
    const gathering = this.gatheringOf(lane, key, partition, epoch);
    let outgoing = queues.get(key);
    // A batch abandoned while it waited is not joined: a request queued after the move is sent.
    if (outgoing === undefined || outgoing.abandoned) {
      const fresh: Outgoing<Request, Answer> = { partition, epoch, abandoned: false, items: [] };
      queues.set(key, fresh);
      const leave = (): void => this.leaveSoon(() => this.dispatch(lane, key, fresh, gathering, flush));
      // After a busy message's answer the next waits for company (it counts what it holds once its turn comes).
      const leaveWhenGathered = (): void => {
        const wait = fresh.abandoned ? undefined : gathering?.wait(fresh.items.length);
        if (wait === undefined) leave();
        else void wait.then(leave);
      };
      const previous = inFlight?.get(key);
      if (previous === undefined) leaveWhenGathered();
      else void previous.then(leaveWhenGathered);
      outgoing = fresh;
    }
    const queued = outgoing;
    const answer = new Promise<Answer | OwnerMoved>((resolve, reject) => queued.items.push({ request, resolve, reject }));
    gathering?.arrived(queued.items.length);
    return answer;
  }

  /**
   * Queues `send` for the next turn, with every other message that becomes ready before then: they
   * leave in ONE turn, whatever their subjects and lanes. The NATS client writes its socket once per
   * microtask checkpoint, and a turn of its own per message would make that one write per message.
   */
  private leaveSoon(send: () => void): void {
    this.ready.push(send);
    if (this.ready.length === 1) this.timers.soon(() => this.leaveNow());
  }

  /** Sends what is ready; `dispatch` never throws (a flush is async: its failures reject its promise). */
  private leaveNow(): void {
    const ready = this.ready;
    this.ready = [];
    for (const send of ready) send();
  }

  /** Sends the message `outgoing` (to `key`'s subject) now, unless it was abandoned meanwhile: then its requests are answered OWNER_MOVED. */
  private dispatch<Request, Answer>(
    lane: Lane<Request, Answer>,
    key: string,
    outgoing: Outgoing<Request, Answer>,
    gathering: BatchGathering | undefined,
    flush: (outgoing: Outgoing<Request, Answer>) => Promise<void>,
  ): void {
    const { queues, inFlight } = lane;
    if (queues.get(key) === outgoing) queues.delete(key);
    if (outgoing.abandoned) {
      for (const item of outgoing.items) item.resolve(OWNER_MOVED);
      return;
    }
    lane.sent.messages += 1;
    lane.sent.requests += outgoing.items.length;
    // Answered: the message's size says whether the next waits for company; failed (no answer in
    // time, NATS out of reach): the next has no company to wait for.
    const sent = flush(outgoing).then(
      () => gathering?.committed(outgoing.items.length),
      (error: unknown) => {
        gathering?.committed(0);
        for (const item of outgoing.items) item.reject(error);
      },
    );
    if (inFlight === undefined) return;
    inFlight.set(key, sent);
    void sent.then(() => {
      if (inFlight.get(key) === sent) inFlight.delete(key);
    });
  }

  /**
   * The wait for company of `lane`'s messages to the owner of `partition` at `epoch` (`key`), if that
   * lane's messages wait: a BatchGathering, whose "batch committed" is here a message answered.
   */
  private gatheringOf<Request, Answer>(lane: Lane<Request, Answer>, key: string, partition: number, epoch: number): BatchGathering | undefined {
    if (lane.lingerMs === 0) return undefined;
    let subject = lane.gatherings.get(key);
    if (subject === undefined) {
      subject = { partition, epoch, gathering: new BatchGathering(this.timers, lane.lingerMs) };
      lane.gatherings.set(key, subject);
    }
    return subject.gathering;
  }

  /** Sends `request` to the owner of `partition` at lease `epoch`; resolves with its reply, or OWNER_MOVED. */
  send(partition: number, epoch: number, request: ShardRequest): Promise<ShardReply | OwnerMoved> {
    return this.enqueue(this.forwards, partition, epoch, request, async (outgoing) => {
      const message = await this.call(partition, epoch, partitionSubject(partition, epoch), sealInterNode(packRequests(outgoing.items.map((item, id) => envelope(id, item.request))), this.wireHeader));
      if (message === OWNER_MOVED) {
        for (const item of outgoing.items) item.resolve(OWNER_MOVED);
        return;
      }
      const unavailable = new Set((message.headers?.get(UNAVAILABLE_ITEMS_HEADER) ?? "").split(",").filter((id) => id !== "").map(Number));
      const reason = message.headers?.get(UNAVAILABLE_HEADER) ?? "";
      const answers = unpackResponses(message.data);
      outgoing.items.forEach((item, id) => {
        const answer = answers[id];
        if (unavailable.has(id)) item.reject(new UnavailableError(reason));
        else if (answer === undefined || answer.id !== id || answer.body.kind !== "read") item.reject(new Error(`partition ${partition}'s owner sent a malformed reply`));
        else item.resolve(asSentReply(answer.body.reply));
      });
    });
  }

  /** Binds a key at its home partition's owner at lease `epoch`; resolves with the verdict, or OWNER_MOVED. */
  sendBind(home: number, epoch: number, request: BindRequest): Promise<BindVerdict | OwnerMoved> {
    return this.enqueue(this.binds, home, epoch, request, async (outgoing) => {
      const body = sealInterNode(bindPackr.pack(outgoing.items.map(({ request: r }) => [r.actorId, r.commandId, r.fingerprint, r.marketPartition] satisfies LoggedBindRequest)), this.wireHeader);
      const message = await this.call(home, epoch, keysSubject(home, epoch), body);
      if (message === OWNER_MOVED) {
        for (const item of outgoing.items) item.resolve(OWNER_MOVED);
        return;
      }
      const reason = message.headers?.get(UNAVAILABLE_HEADER) ?? "";
      if (message.data.length !== outgoing.items.length) throw new Error(`partition ${home}'s owner sent a malformed binding answer`);
      outgoing.items.forEach((item, i) => {
        const code = message.data[i];
        if (code === VERDICT_CODES.bound) item.resolve("bound");
        else if (code === VERDICT_CODES.conflict) item.resolve("conflict");
        else item.reject(new UnavailableError(reason));
      });
    });
  }

  /** What this node sent to owners since it started (metrics). */
  get sent(): ForwardingCounts {
    return { forward: this.forwards.sent, bind: this.binds.sent };
  }

  close(): void {
    for (const subscriptions of this.served.values()) for (const subscription of subscriptions) subscription.unsubscribe();
    this.served.clear();
  }
}

/**
 * The client's words for a NATS request to a partition's owner that failed: nobody serves the
 * epoch it was sent to (a handover, or the owner died), the owner did not answer in time, or the
 * request could not be sent (NATS out of reach). NATS's own error text goes to the log, not here.
 * `error` is the transport's (a MessagingError of kind no-responders or timeout, or anything else).
 */
export function ownerNotAnswering(partition: number, error: unknown, timeoutMs: number): string {
  if (isMessagingFailure(error, "no-responders")) return `partition ${partition} has no owner right now (it is changing hands); retry shortly`;
  if (isMessagingFailure(error, "timeout")) return `the owner of partition ${partition} did not answer within ${timeoutMs} ms; retry with the same commandId`;
  return `the owner of partition ${partition} cannot be reached now; retry shortly`;
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
