/**
 * The gateway thread's side of ONE shard worker: starts it and waits for its recovery, batches the
 * requests of an event-loop turn into one message, correlates replies, and shuts it down in order
 * (toolchain.md: never terminate a worker mid-write). ShardHost keeps a fixed set of these (the
 * embedded default); a cluster node keeps one per partition it owns (engine/cluster/partition-host.ts).
 */
import type { Clock } from "../clock.js";
import { systemTimers, type Timers } from "../timers.js";
import type { BatchStats, EmittedEvent, IdempotencyEntries, ShardRecoveryReport, ShardRequest, ShardResponse } from "../shard-protocol/shard-protocol.js";
import { envelope, type Envelope, type FromShard, type ShardWorkerData, type ToShard } from "./worker-messages.js";
import { packRequests, unpackResponses } from "./wire.js";
import { UnavailableError } from "./unavailable.js";
import type { ShardThread } from "./shard-thread.js";
import type { SnapshotMark } from "../journal/jetstream-snapshots.js";


export interface ShardChannelEvents {
  /** The shard can no longer guarantee durability (embedded: the service must stop). */
  onFatal(message: string): void;
  /** Another owner appended to the shard's journal (cluster mode): it stopped, nothing was acknowledged. */
  onFenced(message: string): void;
  /** After every batch or tick that logged something (metrics). */
  onBatch?(stats: BatchStats): void;
  /** Committed events of watched markets (live streams), in commit order. */
  onEvents?(events: readonly EmittedEvent[]): void;
  /**
   * A snapshot on a journal on a stream is taken, after the replies of every batch it holds
   * (decision I58): the shard stores it once what this returns has settled (decision I60).
   */
  onSnapshotting?(mark: SnapshotMark): Promise<void>;
}

export interface StartedShard {
  channel: ShardChannel;
  report: ShardRecoveryReport;
  idempotency: IdempotencyEntries;
}

interface Waiting {
  /** The request's id: its slot and the slot's use (a late second answer for an earlier use is refused). */
  id: number;
  resolve(response: ShardResponse): void;
  reject(error: Error): void;
}

/** Requests in flight to one shard at most (the slots an id names): the gateway's connections bound them far below. */
const MAX_WAITING = 2 ** 20;

/** Why a shard takes no more requests. */
export type ShardStop = "fatal" | "fenced" | "stopped" | "closing";

/**
 * The client's words (docs/errors.md) for a request a shard no longer takes; what went wrong in
 * detail (a journal's error, a worker's exit code) goes to the log through onFatal / onFenced.
 * `name` is "shard <i>" or, on a cluster node, "partition <p>".
 */
export function shardRefusal(name: string, why: ShardStop): string {
  switch (why) {
    case "fenced":
      return `${name} was taken over by another node; retry shortly`;
    case "fatal":
      return `${name} stopped on this node after a failure; retry shortly`;
    case "stopped":
      return `${name} was stopped on this node; retry shortly`;
    case "closing":
      return `${name} is closing on this node; retry shortly`;
  }
}

export class ShardChannel {
  private outbox: Array<Envelope<ShardRequest>> = [];
  private flushScheduled = false;
  /**
   * The requests awaiting their answers, by slot (every slot is either waiting or in `freeSlots`):
   * a slot is taken from `freeSlots` and given back when its request is answered, and a request's id is its slot plus MAX_WAITING times the slot's
   * use count, so an answer names one use of one slot. Not a Map (decision I65): a Map that gains
   * and loses an entry per request rebuilds its table over and over, V8 keeps in each obsolete table
   * its entries and a link to the next, and once one such table is promoted, every scavenge finds
   * the later tables, and the requests they held, alive through it.
   */
  private readonly waiting: Array<Waiting | undefined> = [];
  private readonly uses: number[] = [];
  private readonly freeSlots: number[] = [];
  private nextSnapshotId = 1;
  private readonly snapshotWaiters = new Map<number, (lsn: number) => void>();
  private closedWith: ((lsn: number | undefined) => void) | undefined;
  private closing = false;
  /** Why the shard takes no more requests (fatal, fenced, exited), in the client's words, or undefined while it does. */
  private failure: string | undefined;

  private constructor(
    /** "shard <i>", or "partition <p>" on a cluster node: how refusals name it. */
    private readonly name: string,
    private readonly worker: ShardThread,
    private readonly clock: Clock,
    private readonly events: ShardChannelEvents,
    /** Resolves with the worker's exit code. */
    readonly exited: Promise<number>,
    /** A turn's requests leave together in the next (`soon`). */
    private readonly timers: Timers,
  ) {}

  /**
   * Opens the shard `data` names on `worker`, a started thread that was sent nothing yet; resolves
   * once it has recovered its journal (rejects, and ends the thread, if it cannot).
   */
  static async start(worker: ShardThread, data: ShardWorkerData, clock: Clock, events: ShardChannelEvents, timers: Timers = systemTimers): Promise<StartedShard> {
    const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
    const ready = new Promise<{ report: ShardRecoveryReport; idempotency: IdempotencyEntries }>((resolve, reject) => {
      const onEarlyExit = (code: number) => reject(new Error(`shard ${data.shardIndex} exited during start-up (code ${code})`));
      worker.once("exit", onEarlyExit);
      worker.once("error", reject);
      worker.on("message", function first(message: FromShard) {
        if (message.t === "ready") {
          worker.off("message", first);
          worker.off("exit", onEarlyExit);
          worker.off("error", reject);
          resolve({ report: message.report, idempotency: message.idempotency });
        } else if (message.t === "fatal" || message.t === "fenced") {
          worker.off("message", first);
          reject(new Error(`shard ${data.shardIndex} could not start: ${message.message}`));
        }
      });
    });
    worker.postMessage({ t: "open", data });
    let started: { report: ShardRecoveryReport; idempotency: IdempotencyEntries };
    try {
      started = await ready;
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    const channel = new ShardChannel(`${data.journal.kind === "jetstream" ? "partition" : "shard"} ${data.shardIndex}`, worker, clock, events, exited, timers);
    channel.attach();
    return { channel, ...started };
  }

  /** Requests queued for or in flight to the shard (its inbox depth, seen from here). */
  get pending(): number {
    return this.outbox.length + this.waiting.length - this.freeSlots.length;
  }

  /** Whether the shard takes requests (not failed, fenced, exited or closing). */
  get accepting(): boolean {
    return this.failure === undefined && !this.closing;
  }

  /** The shard takes no more requests; those waiting are refused (never answered as if done). */
  private fail(message: string, how: Exclude<ShardStop, "closing">): void {
    if (this.failure !== undefined) return;
    this.failure = shardRefusal(this.name, how);
    this.refuseWaiting(new UnavailableError(this.failure));
    this.outbox = [];
    if (how === "fenced") this.events.onFenced(message);
    else if (how === "fatal") this.events.onFatal(message);
  }

  private refuseWaiting(error: Error): void {
    for (const waiting of this.waiting) waiting?.reject(error);
    this.waiting.length = 0;
    this.freeSlots.length = 0;
  }

  private attach(): void {
    this.worker.on("message", (message: FromShard) => this.receive(message));
    this.worker.on("error", (error) => this.fail(error.message, "fatal"));
    this.worker.on("exit", (code) => {
      if (!this.closing) this.fail(`shard worker exited unexpectedly (code ${code})`, "fatal");
      // A worker that ends while closing answers nothing more: what still waits is refused, never left hanging.
      else this.refuseWaiting(new UnavailableError(shardRefusal(this.name, "closing")));
      this.closedWith?.(undefined);
    });
  }

  private receive(message: FromShard): void {
    switch (message.t) {
      case "batch":
        this.answer(message.items);
        this.events.onBatch?.(message.stats);
        return;
      case "answers":
        this.answer(message.items);
        return;
      case "stats":
        this.events.onBatch?.(message.stats);
        return;
      case "events":
        this.events.onEvents?.(message.events);
        return;
      case "snapshotting":
        this.snapshotting(message.mark);
        return;
      case "snapshot": {
        const resolve = this.snapshotWaiters.get(message.id);
        this.snapshotWaiters.delete(message.id);
        resolve?.(message.lsn);
        return;
      }
      case "fatal":
        this.fail(message.message, "fatal");
        return;
      case "fenced":
        this.fail(message.message, "fenced");
        return;
      case "closed":
        this.closedWith?.(message.lsn);
        return;
      case "ready":
        return;
    }
  }

  /**
   * Tells the shard to store its snapshot once what is kept beside it is stored, or failed to be
   * (a failure costs the next owner a longer read, never the shard its snapshot); a shard that ended
   * hears nothing.
   */
  private snapshotting(mark: SnapshotMark): void {
    const answer = (): void => {
      if (this.failure === undefined) this.worker.postMessage({ t: "besideStored", sequence: mark.sequence } satisfies ToShard);
    };
    const beside = this.events.onSnapshotting?.(mark) ?? Promise.resolve();
    beside.then(answer, answer);
  }

  private answer(items: Uint8Array): void {
    for (const item of unpackResponses(items)) {
      const slot = item.id % MAX_WAITING;
      const waiting = this.waiting[slot];
      if (waiting === undefined || waiting.id !== item.id) {
        // After a failure nothing waits (fail refused them all); otherwise a shard answers each request once.
        if (this.failure === undefined) this.fail(`the shard answered request ${item.id}, which was not waiting`, "fatal");
        continue;
      }
      this.waiting[slot] = undefined;
      this.freeSlots.push(slot);
      waiting.resolve(item.body);
    }
  }

  /** Queue a request; all requests in one event-loop turn travel as one message. */
  request(body: ShardRequest): Promise<ShardResponse> {
    if (this.closing) return Promise.reject(new UnavailableError(shardRefusal(this.name, "closing")));
    if (this.failure !== undefined) return Promise.reject(new UnavailableError(this.failure));
    const slot = this.freeSlots.pop() ?? this.waiting.length;
    if (slot >= MAX_WAITING) return Promise.reject(new UnavailableError(`${this.name} has too many requests in flight; retry shortly`));
    const use = ((this.uses[slot] ?? 0) + 1) % 2 ** 32;
    this.uses[slot] = use;
    const id = use * MAX_WAITING + slot;
    const reply = new Promise<ShardResponse>((resolve, reject) => (this.waiting[slot] = { id, resolve, reject }));
    this.outbox.push(envelope(id, body));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      this.timers.soon(() => this.flush());
    }
    return reply;
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.outbox.length === 0) return;
    const items = packRequests(this.outbox);
    this.outbox = [];
    const message: ToShard = { t: "batch", nowMs: this.clock.nowMs(), items };
    this.worker.postMessage(message, [items.buffer as ArrayBuffer]);
  }

  /** Controlled-clock mode: tell the shard the time (fires due deadlines). */
  publishTime(): void {
    this.worker.postMessage({ t: "time", nowMs: this.clock.nowMs() } satisfies ToShard);
  }

  /** Snapshot the shard after what was sent before; resolves with the snapshot's lsn. */
  snapshot(): Promise<number> {
    this.flush();
    const id = this.nextSnapshotId++;
    const done = new Promise<number>((resolve) => this.snapshotWaiters.set(id, resolve));
    this.worker.postMessage({ t: "snapshot", id } satisfies ToShard);
    return done;
  }

  /**
   * Drain, snapshot and stop the worker; resolves with the shard's final lsn, or undefined if the
   * worker had already failed or died (it cannot answer; its journal is recovered at the next open).
   */
  async close(): Promise<number | undefined> {
    if (this.closing) throw new Error("already closing");
    this.flush();
    this.closing = true;
    if (this.failure !== undefined) {
      await this.exited;
      return undefined;
    }
    const closed = new Promise<number | undefined>((resolve) => (this.closedWith = resolve));
    this.worker.postMessage({ t: "close" } satisfies ToShard);
    const lsn = await closed;
    await this.exited;
    return lsn;
  }

  /** Stops the worker without draining (a fenced or failed shard: nothing of it may be acknowledged). */
  async terminate(): Promise<void> {
    this.closing = true;
    this.fail("the shard was stopped", "stopped");
    await this.worker.terminate();
  }
}
