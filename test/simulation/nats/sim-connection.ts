/**
 * A node's connection to the simulated NATS servers: the cluster's Messaging port
 * (engine/messaging/messaging.ts), as production's NATS adapter offers it. Requests travel to the
 * servers and answers back on the connection's two lanes (in order, like a TCP connection), each
 * after a delay the network draws; a node cut off from NATS sends and receives nothing, and its
 * requests time out by its own timers. What the servers do happens when a request reaches them.
 *
 * A crashed node's connections go silent: nothing they were waiting for ever settles, as in a
 * process that no longer exists (closing them removes their subscriptions and consumers).
 */
import { MessagingError } from "../../../engine/messaging/messaging-error.js";
import type { JetStream, Messaging } from "../../../engine/messaging/messaging.js";
import type { KvBucket, KvBucketOptions, KvBuckets, KvEntry } from "../../../engine/messaging/kv.js";
import type { ObjectStore, ObjectStores, StoredObjectInfo } from "../../../engine/messaging/object-store.js";
import type { NewStream, OrderedConsumer, PublishAck, PublishOptions, StoredMessage, StreamInfo, Streams } from "../../../engine/messaging/streams.js";
import type { ConnectionStatus, IncomingMessage, MessageHeaders, ReceivedMessage, Subscription, Transport } from "../../../engine/messaging/transport.js";
import type { Timers } from "../../../engine/timers.js";
import { Lane, type Actor } from "../scheduler.js";
import type { RaftGroup } from "./raft-group.js";
import { ConsumerFeed, type SimNats, type SubscriptionEnd } from "./sim-nats.js";

/** The node a connection belongs to. */
export interface ConnectionOwner {
  readonly name: string;
  readonly actor: Actor;
  readonly timers: Timers;
  uniqueId(): string;
}

/** How long a client takes to notice a dead server or stream (missed pings or consumer heartbeats). */
const DETECTION_MS = 1_000;
const HEARTBEATS_MISSED_MS = 2_000;

type Answer<T> = T | MessagingError;

function headersOf(map: ReadonlyMap<string, string> | undefined): MessageHeaders | undefined {
  if (map === undefined || map.size === 0) return undefined;
  const copy = new Map(map);
  return { get: (name) => copy.get(name) };
}

export class SimConnection implements Messaging {
  readonly transport: Transport;
  readonly timers: Timers;
  readonly maxPayload: number;
  private closed = false;
  private readonly outbound: Lane;
  private readonly inbound: Lane;
  private readonly unsubscribes = new Set<() => void>();
  private readonly feeds = new Set<{ feed: ConsumerFeed; end: (error: Error | undefined) => void }>();
  private readonly statusListeners: Array<(status: ConnectionStatus) => void> = [];
  private readonly clients = new Map<number, JetStream>();
  /** The connection's view of its server: false from a cut's detection until it reconnects. */
  private connected = true;

  constructor(
    private readonly nats: SimNats,
    private readonly owner: ConnectionOwner,
    readonly label: string,
  ) {
    this.timers = owner.timers;
    this.maxPayload = nats.maxPayload;
    this.outbound = new Lane(nats.scheduler);
    this.inbound = new Lane(nats.scheduler);
    this.transport = this.coreTransport();
  }

  get node(): string {
    return this.owner.name;
  }

  uniqueId(): string {
    return this.owner.uniqueId();
  }

  /** Graceful close (the owner's call): its subscriptions and consumers end. */
  close(): Promise<void> {
    this.drop();
    return Promise.resolve();
  }

  /** The process died: the servers drop its subscriptions and consumers; nothing it awaits settles. */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    this.unsubscribes.clear();
    for (const { feed } of this.feeds) this.nats.removeFeed(feed);
    this.feeds.clear();
  }

  /** The node was cut off from NATS, or reached it again: the client notices (pings), then reconnects. */
  cutChanged(cut: boolean): void {
    if (this.closed) return;
    if (cut) {
      // Consumers stop at once on the servers' side; the client notices by missed heartbeats.
      for (const entry of [...this.feeds]) {
        this.nats.removeFeed(entry.feed);
        this.feeds.delete(entry);
        this.owner.timers.after(HEARTBEATS_MISSED_MS, () => entry.end(new Error(`stream ${entry.feed.stream.name}: 2 missed heartbeats`)));
      }
      this.owner.timers.after(DETECTION_MS, () => {
        if (!this.nats.network.isCut(this.owner.name) || !this.connected) return;
        this.connected = false;
        for (const listener of this.statusListeners) listener("disconnected");
      });
    } else {
      this.owner.timers.after(this.nats.network.int(100, 500), () => {
        if (this.nats.network.isCut(this.owner.name) || this.connected) return;
        this.connected = true;
        for (const listener of this.statusListeners) listener("reconnected");
      });
    }
  }

  // ---- the wire ------------------------------------------------------------------------------

  private get cut(): boolean {
    return this.nats.network.isCut(this.owner.name);
  }

  /** Carries something to the servers; it happens there on arrival (unless the node is cut off). */
  private toServer(run: () => void, lossy = false): void {
    if (this.closed || this.cut) return;
    if (lossy && this.nats.network.lost()) return;
    const arrive = (): void => {
      if (!this.closed && !this.cut) run();
    };
    if (lossy && this.nats.network.conditions.reorder) this.nats.scheduler.after(this.nats.network.delayMs(), this.nats.actor, arrive);
    else this.outbound.send(this.nats.network.delayMs(), this.nats.actor, arrive);
  }

  /** Carries something from the servers to this node, where it happens as the node. */
  deliver(run: () => void, lossy = false): void {
    if (this.closed || this.cut) return;
    if (lossy && this.nats.network.lost()) return;
    const arrive = (): void => {
      if (!this.closed) run();
    };
    if (lossy && this.nats.network.conditions.reorder) this.nats.scheduler.after(this.nats.network.delayMs(), this.owner.actor, arrive);
    else this.inbound.send(this.nats.network.delayMs(), this.owner.actor, arrive);
  }

  /**
   * A JetStream request: carried out by the group's leader when it arrives, answered on the way
   * back (an answer may be lost after the request was carried out); times out by the node's timers.
   * A group electing a leader answers "no responders" at once, or nothing.
   */
  private call<T>(what: string, timeoutMs: number, group: () => RaftGroup | undefined, carryOut: (answer: (result: Answer<T>) => void) => void): Promise<T> {
    return this.awaitAnswer<T>(what, timeoutMs, (settle) =>
      this.toServer(() => {
        let leader: RaftGroup | undefined;
        try {
          leader = group();
        } catch (error) {
          if (error instanceof MessagingError) this.deliver(() => settle(error));
          return;
        }
        if (leader !== undefined && !leader.available(this.nats.nowMs)) {
          if (this.nats.network.chance(0.5)) this.deliver(() => settle(new MessagingError("no-responders", `${what}: no responders (${leader.name} has no leader)`)));
          return;
        }
        carryOut((result) => {
          if (this.nats.network.ackLost()) return;
          this.deliver(() => settle(result));
        });
      }),
    );
  }

  /**
   * A request's promise: settled by the first answer `send` passes on, or a timeout by the node's
   * timers; never settled on a closed (crashed) connection.
   */
  private awaitAnswer<T>(what: string, timeoutMs: number, send: (settle: (result: Answer<T>) => void) => void): Promise<T> {
    if (this.closed) return new Promise<T>(() => undefined);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (result: Answer<T>): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        if (result instanceof MessagingError) reject(result);
        else resolve(result);
      };
      const timer = this.owner.timers.after(timeoutMs, () => settle(new MessagingError("timeout", `${what}: no answer within ${timeoutMs} ms`)));
      send(settle);
    });
  }

  /** Runs a request that completes at once at the servers. */
  private request<T>(what: string, timeoutMs: number, group: () => RaftGroup | undefined, work: () => T): Promise<T> {
    return this.call<T>(what, timeoutMs, group, (answer) => {
      try {
        answer(work());
      } catch (error) {
        if (error instanceof MessagingError) answer(error);
        else throw error;
      }
    });
  }

  // ---- core NATS -----------------------------------------------------------------------------

  private coreTransport(): Transport {
    const nats = this.nats;
    const end = (onMessage: (message: IncomingMessage) => void): SubscriptionEnd => ({
      node: this.owner.name,
      deliver: (message) => {
        this.deliver(() => onMessage(message), true);
        if (nats.network.duplicated()) this.deliver(() => onMessage(message), true);
      },
      viaServers: (run) => this.toServer(run, true),
    });
    return {
      publish: (subject, data) => {
        this.toServer(() => {
          for (const recipient of nats.recipients(subject)) recipient.deliver({ data, headers: undefined, respond: () => undefined });
        }, true);
      },
      subscribe: (subject, options, onMessage): Subscription => {
        let unsubscribe: (() => void) | undefined = nats.subscribe(subject, options.queue, end(onMessage));
        this.unsubscribes.add(unsubscribe);
        return {
          unsubscribe: () => {
            if (unsubscribe === undefined) return;
            const done = unsubscribe;
            unsubscribe = undefined;
            this.unsubscribes.delete(done);
            // The servers stop routing to it once the UNSUB reaches them.
            if (this.closed) return;
            this.outbound.send(nats.network.delayMs(), nats.actor, done);
          },
        };
      },
      request: (subject, data, timeoutMs) => this.coreRequest(subject, data, timeoutMs),
      watchStatus: (listener) => {
        this.statusListeners.push(listener);
      },
    };
  }

  private coreRequest(subject: string, data: Uint8Array, timeoutMs: number): Promise<ReceivedMessage> {
    const nats = this.nats;
    return this.awaitAnswer<ReceivedMessage>(`request on ${subject}`, timeoutMs, (settle) =>
      this.toServer(() => {
        const recipients = nats.recipients(subject);
        if (recipients.length === 0) {
          this.deliver(() => settle(new MessagingError("no-responders", `request on ${subject}: no responders`)));
          return;
        }
        for (const recipient of recipients) {
          recipient.deliver({
            data,
            headers: undefined,
            // The reply goes back through the servers: from the responder's connection to this one.
            respond: (reply, headers) => recipient.viaServers(() => this.deliver(() => settle({ data: reply, headers: headersOf(headers) }), true)),
          });
        }
      }, true),
    );
  }

  // ---- JetStream -----------------------------------------------------------------------------

  jetStream(timeoutMs: number): JetStream {
    let client = this.clients.get(timeoutMs);
    if (client === undefined) {
      client = { streams: this.streamsClient(timeoutMs), kv: this.kvClient(timeoutMs), objects: this.objectsClient(timeoutMs) };
      this.clients.set(timeoutMs, client);
    }
    return client;
  }

  private streamsClient(timeoutMs: number): Streams {
    const nats = this.nats;
    return {
      info: (name): Promise<StreamInfo> => this.request(`stream info ${name}`, timeoutMs, () => nats.streams.get(name)?.group, () => nats.stream(name).info()),
      add: (stream: NewStream): Promise<StreamInfo> =>
        this.request(`stream add ${stream.name}`, timeoutMs, () => undefined, () =>
          nats.addStream({ name: stream.name, subjects: [...stream.subjects], replicas: stream.replicas, storage: stream.storage }).info(),
        ),
      getMessage: (name, sequence): Promise<StoredMessage | null> =>
        this.request(`get message ${sequence} of ${name}`, timeoutMs, () => nats.stream(name).group, () => {
          const message = nats.stream(name).message(sequence);
          return message === null ? null : { streamSequence: message.streamSequence, data: message.data, msgId: message.msgId };
        }),
      publish: (subject, data, options: PublishOptions): Promise<PublishAck> =>
        this.call<PublishAck>(`publish on ${subject}`, options.timeoutMs, () => nats.streamOfSubject(subject).group, (answer) => {
          const stream = nats.streamOfSubject(subject);
          const outcome = stream.propose(data, options.msgId, options.expectedLastSequence, nats.nowMs, (message) =>
            answer({ stream: stream.name, sequence: message.streamSequence, duplicate: false }),
          );
          if (outcome.kind === "duplicate") answer(outcome.ack);
          else if (outcome.kind === "refused") answer(outcome.error);
          else nats.replicate(stream, outcome.sequence);
        }),
      consume: (name, fromSequence, onMessage) => this.consume(name, fromSequence, onMessage, timeoutMs),
    };
  }

  private consume(name: string, fromSequence: number, onMessage: (message: StoredMessage) => void, timeoutMs: number): Promise<OrderedConsumer> {
    const nats = this.nats;
    let end: (error: Error | undefined) => void = () => undefined;
    const ended = new Promise<Error | undefined>((resolve) => {
      let done = false;
      end = (error) => {
        if (done) return;
        done = true;
        resolve(error);
      };
    });
    let feed: ConsumerFeed | undefined;
    let entry: { feed: ConsumerFeed; end: (error: Error | undefined) => void } | undefined;
    let closed = false;
    const consumer: OrderedConsumer = {
      ended,
      close: () => {
        closed = true;
        if (entry !== undefined && this.feeds.delete(entry) && feed !== undefined) {
          const stopping = feed;
          this.outbound.send(nats.network.delayMs(), nats.actor, () => nats.removeFeed(stopping));
        }
        end(undefined);
        return Promise.resolve();
      },
    };
    return this.request(`create a consumer on ${name}`, timeoutMs, () => nats.stream(name).group, () => {
      const stream = nats.stream(name);
      if (closed || this.closed) return consumer;
      feed = new ConsumerFeed(
        stream,
        fromSequence,
        (message) => this.deliver(() => {
          if (!closed) onMessage({ streamSequence: message.streamSequence, data: message.data, msgId: message.msgId });
        }),
        (reason) => {
          // The client notices by its missed heartbeats.
          if (entry !== undefined) this.feeds.delete(entry);
          this.owner.timers.after(HEARTBEATS_MISSED_MS, () => end(new Error(`${reason}: 2 missed heartbeats`)));
        },
      );
      entry = { feed, end };
      this.feeds.add(entry);
      nats.addFeed(feed);
      return consumer;
    });
  }

  private kvClient(timeoutMs: number): KvBuckets {
    const nats = this.nats;
    return {
      open: (bucket: string, _options: KvBucketOptions): Promise<KvBucket> =>
        this.request(`open KV ${bucket}`, timeoutMs, () => undefined, () => {
          const sim = nats.bucket(bucket);
          const group = (): RaftGroup => sim.group;
          const kv: KvBucket = {
            get: (key): Promise<KvEntry | null> => this.request(`KV get ${bucket}/${key}`, timeoutMs, group, () => sim.get(key)),
            create: (key, value) => this.request(`KV create ${bucket}/${key}`, timeoutMs, group, () => sim.create(key, value)),
            update: (key, value, revision) => this.request(`KV update ${bucket}/${key}`, timeoutMs, group, () => sim.update(key, value, revision)),
            put: (key, value) => this.request(`KV put ${bucket}/${key}`, timeoutMs, group, () => sim.put(key, value)),
            delete: (key, revision) => this.request(`KV delete ${bucket}/${key}`, timeoutMs, group, () => sim.delete(key, revision)),
            keys: (filter) => this.request(`KV keys ${bucket}/${filter}`, timeoutMs, group, () => sim.keys(filter)),
          };
          return kv;
        }),
    };
  }

  private objectsClient(timeoutMs: number): ObjectStores {
    const nats = this.nats;
    const store = (bucket: string): ObjectStore => {
      const group = (): RaftGroup | undefined => nats.objects(bucket, false)?.group;
      const sim = () => nats.objects(bucket, true) as NonNullable<ReturnType<SimNats["objects"]>>;
      return {
        list: (): Promise<StoredObjectInfo[]> => this.request(`list objects of ${bucket}`, timeoutMs, group, () => sim().list()),
        getBlob: (name) => this.request(`get object ${bucket}/${name}`, timeoutMs, group, () => sim().get(name)),
        putBlob: (name, data) => this.request(`put object ${bucket}/${name}`, timeoutMs, group, () => sim().put(name, data)),
        delete: (name) => this.request(`delete object ${bucket}/${name}`, timeoutMs, group, () => sim().delete(name)),
      };
    };
    return {
      create: (bucket) =>
        this.request(`open object store ${bucket}`, timeoutMs, () => undefined, () => {
          nats.objects(bucket, true);
          return store(bucket);
        }),
      openExisting: (bucket) => this.request(`open object store ${bucket}`, timeoutMs, () => undefined, () => (nats.objects(bucket, false) === undefined ? undefined : store(bucket))),
    };
  }
}
