/**
 * The NATS servers of the simulated world, as one: every stream, KV bucket and object store (each a
 * replicated group with a leader, which may be elected anew), the core subjects' subscriptions with
 * queue groups, and ordered consumers. What the servers do happens as the `nats` actor, at the moment
 * a request reaches them (connections carry requests and answers: sim-connection.ts). NATS's own
 * bugs are not simulated: a write a quorum stored is never lost, and an election keeps it.
 */
import { MessagingError } from "../../../engine/messaging/messaging-error.js";
import type { IncomingMessage } from "../../../engine/messaging/transport.js";
import type { StreamConfig } from "../../../engine/messaging/streams.js";
import { Actor, type Scheduler } from "../scheduler.js";
import type { Trace } from "../trace.js";
import type { Network } from "./network.js";
import { SimKvBucket } from "./sim-kv.js";
import { SimObjectBucket } from "./sim-object-store.js";
import { SimStream, type CommittedMessage, type StreamListener } from "./sim-stream.js";
import type { RaftGroup } from "./raft-group.js";

/** What a subscription's connection does with a message the servers route to it. */
export interface SubscriptionEnd {
  readonly node: string;
  deliver(message: IncomingMessage): void;
  /** Sends something from the subscriber's connection through the servers (its reply to a request). */
  viaServers(run: () => void): void;
}

interface ServerSubscription {
  readonly subject: string;
  readonly queue: string | undefined;
  readonly end: SubscriptionEnd;
}

/** An ordered consumer's server side: hands the stream's messages from `next` on to its connection. */
export class ConsumerFeed implements StreamListener {
  constructor(
    readonly stream: SimStream,
    public next: number,
    private readonly send: (message: CommittedMessage) => void,
    /** The servers stopped feeding it (its stream's leader changed): the client notices by its heartbeats. */
    readonly onFailed: (reason: string) => void,
  ) {}

  start(): void {
    while (this.next <= this.stream.messages.length) this.push(this.stream.messages[this.next - 1] as CommittedMessage);
    this.stream.listeners.add(this);
  }

  committed(message: CommittedMessage): void {
    if (message.streamSequence === this.next) this.push(message);
  }

  private push(message: CommittedMessage): void {
    this.next = message.streamSequence + 1;
    this.send(message);
  }

  stop(): void {
    this.stream.listeners.delete(this);
  }
}

export class SimNats {
  readonly actor = new Actor("nats");
  readonly streams = new Map<string, SimStream>();
  readonly buckets = new Map<string, SimKvBucket>();
  readonly objectBuckets = new Map<string, SimObjectBucket>();
  private readonly subscriptions = new Map<string, ServerSubscription[]>();
  private readonly feeds = new Set<ConsumerFeed>();
  readonly maxPayload = 8 * 1024 * 1024;
  /** Hears of every message any stream commits (the checks' stream auditor). */
  onCommitted: ((stream: string, message: CommittedMessage) => void) | undefined;

  constructor(
    readonly scheduler: Scheduler,
    readonly network: Network,
    readonly trace: Trace,
  ) {}

  get nowMs(): number {
    return this.scheduler.nowMs;
  }

  // ---- JetStream ---------------------------------------------------------------------------

  addStream(config: StreamConfig): SimStream {
    const existing = this.streams.get(config.name);
    if (existing !== undefined) return existing;
    const stream = new SimStream(config);
    stream.listeners.add({ committed: (message) => this.onCommitted?.(config.name, message) });
    this.streams.set(config.name, stream);
    return stream;
  }

  stream(name: string): SimStream {
    const stream = this.streams.get(name);
    if (stream === undefined) throw new MessagingError("not-found", `stream not found: ${name}`);
    return stream;
  }

  streamOfSubject(subject: string): SimStream {
    for (const stream of this.streams.values()) if (stream.config.subjects.includes(subject)) return stream;
    throw new MessagingError("no-responders", `no stream takes subject ${subject}`);
  }

  bucket(name: string): SimKvBucket {
    let bucket = this.buckets.get(name);
    if (bucket === undefined) {
      bucket = new SimKvBucket(name);
      this.buckets.set(name, bucket);
    }
    return bucket;
  }

  objects(name: string, create: boolean): SimObjectBucket | undefined {
    let bucket = this.objectBuckets.get(name);
    if (bucket === undefined && create) {
      bucket = new SimObjectBucket(name);
      this.objectBuckets.set(name, bucket);
    }
    return bucket;
  }

  /** Schedules the commit of a proposal: a quorum stores it a moment later, unless an election comes first. */
  replicate(stream: SimStream, sequence: number): void {
    const term = stream.group.term;
    this.scheduler.after(this.network.int(1, 4), this.actor, () => stream.commitThrough(sequence, term, this.nowMs));
  }

  addFeed(feed: ConsumerFeed): void {
    this.feeds.add(feed);
    feed.start();
  }

  removeFeed(feed: ConsumerFeed): void {
    feed.stop();
    this.feeds.delete(feed);
  }

  /** Every group by name (a fault picks one to elect anew). */
  groups(): Array<{ readonly name: string; readonly group: RaftGroup }> {
    return [
      ...[...this.streams.values()].map((stream) => ({ name: stream.name, group: stream.group })),
      ...[...this.buckets.values()].map((bucket) => ({ name: `KV_${bucket.name}`, group: bucket.group })),
      ...[...this.objectBuckets.values()].map((bucket) => ({ name: `OBJ_${bucket.name}`, group: bucket.group })),
    ];
  }

  /** The leader of group `name` died: nothing is answered for `outageMs`; proposals without a quorum may be lost. */
  elect(name: string, outageMs: number): void {
    const stream = this.streams.get(name);
    if (stream !== undefined) {
      const pending = stream.pendingCount;
      const { kept, lost } = stream.elect(this.nowMs, outageMs, this.network.int(0, pending));
      this.trace.add("nats", `leader of ${name} lost: election for ${outageMs} ms (${kept} unreplicated kept, ${lost} lost)`);
      for (const feed of [...this.feeds]) {
        if (feed.stream !== stream) continue;
        this.removeFeed(feed);
        feed.onFailed(`stream ${name}: its leader changed`);
      }
      return;
    }
    const group = this.groups().find((candidate) => candidate.name === name)?.group;
    if (group === undefined) return;
    group.term += 1;
    group.electingUntilMs = Math.max(group.electingUntilMs, this.nowMs + outageMs);
    this.trace.add("nats", `leader of ${name} lost: election for ${outageMs} ms`);
  }

  // ---- Core NATS ---------------------------------------------------------------------------

  subscribe(subject: string, queue: string | undefined, end: SubscriptionEnd): () => void {
    const subscription: ServerSubscription = { subject, queue, end };
    const list = this.subscriptions.get(subject) ?? [];
    list.push(subscription);
    this.subscriptions.set(subject, list);
    return () => {
      const current = this.subscriptions.get(subject);
      if (current === undefined) return;
      const index = current.indexOf(subscription);
      if (index >= 0) current.splice(index, 1);
    };
  }

  /** The subscriptions a message on `subject` goes to: every plain one, one member of each queue group. */
  recipients(subject: string): SubscriptionEnd[] {
    const list = this.subscriptions.get(subject) ?? [];
    const chosen: SubscriptionEnd[] = [];
    const groups = new Map<string, SubscriptionEnd[]>();
    for (const subscription of list) {
      if (subscription.queue === undefined) chosen.push(subscription.end);
      else groups.set(subscription.queue, [...(groups.get(subscription.queue) ?? []), subscription.end]);
    }
    for (const members of groups.values()) chosen.push(this.network.choose(members));
    return chosen;
  }
}
