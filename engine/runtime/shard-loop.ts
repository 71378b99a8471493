/**
 * A shard's message loop around ShardCore: what a shard thread does with the messages its channel
 * sends (shard-channel.ts). Requests that arrive while a batch is being processed (while its append
 * becomes durable) queue up and become the next batch, so group commit falls out of the loop;
 * replies of a batch are posted in one message, after its commit. Everything the core does runs one
 * task at a time, in order (appends are awaited).
 *
 * A failed write or fdatasync is fatal: the loop reports it and the thread stops. A fenced append
 * (cluster mode: another owner took the partition) is reported as such and the thread stops the
 * same way, its batch unacknowledged; the node stops serving that partition only.
 *
 * The worker thread (shard-worker.ts) runs this on Node's timers and message port; the simulation
 * runs the same loop in-process on its scheduler (test/simulation/, docs/simulation.md).
 */
import type { ManualClock } from "../clock.js";
import { JournalFencedError } from "../journal/journal.js";
import type { Timers } from "../timers.js";
import type { CommittedBatch, OpenedShard, ShardCore } from "./shard-core.js";
import type { SnapshotMark } from "../journal/jetstream-snapshots.js";
import type { ShardRequest, ShardResponse } from "../shard-protocol/shard-protocol.js";
import { packResponses, unpackRequests } from "./wire.js";
import { BatchGathering } from "./batch-gathering.js";
import { envelope, type Envelope, type FromShard, type ShardWorkerData, type ToShard } from "./worker-messages.js";

export interface ShardLoopOptions {
  /** Opens the shard on its journal (recovery); `close` releases what it opened beside the core (a partition's connection). */
  open(): Promise<{ opened: OpenedShard; close(): Promise<void> }>;
  /** Posts to the channel; `transfer` buffers are moved, not copied. */
  post(message: FromShard, transfer?: ArrayBuffer[]): void;
  /** The loop has stopped for good: `failed` after a fatal error or a fence was posted, else after "closed". The thread ends. */
  exit(failed: boolean): void;
  timers: Timers;
  /** Controlled clock mode: time arrives in messages and moves this clock; no ticker. */
  controlled: ManualClock | undefined;
  /** How often the timer wheel is checked when the clock is not controlled. */
  tickIntervalMs: number;
  /**
   * Cluster mode (decision I57): a snapshot once this many commands (deadline commands and a
   * replayed tail included) are in no snapshot, taken between two batches as every snapshot is, so a
   * new owner's replay stays short however long ago the node's last checkpoint was.
   */
  snapshotEveryCommands: number | undefined;
  /** Cluster mode (decision I69): after a batch of at least two commands, the next waits up to this long for more (batch-gathering.ts); undefined: never. */
  batchLingerMs?: number;
}

/**
 * What a shard thread does with each message it receives: the first must be `open`, which starts
 * its loop (`start`: the thread is started before it knows its shard); every later one goes to
 * that loop. The worker thread and the simulation's thread both receive through this.
 */
export function shardThreadReceiver(start: (data: ShardWorkerData) => ShardLoop): (message: ToShard) => void {
  let loop: ShardLoop | undefined;
  return (message) => {
    if (loop !== undefined) loop.receive(message);
    else if (message.t === "open") loop = start(message.data);
    else throw new Error(`a shard thread's first message must be "open", got "${message.t}"`);
  };
}

export class ShardLoop {
  /** Everything the core does runs in this order, one task at a time (appends are awaited). */
  private work: Promise<void> = Promise.resolve();
  private core: ShardCore | undefined;
  private closeOpened: (() => Promise<void>) | undefined;
  private inbox: Array<Envelope<ShardRequest>> = [];
  /** Reads of earlier batches still being answered (ShardCore.commitBatch). */
  private readonly readsInFlight = new Set<Promise<void>>();
  /** Snapshots taken and still being stored (snapshotInBackground); none is due by count meanwhile. */
  private readonly storing = new Set<Promise<void>>();
  /** Snapshots waiting for the node to store what it keeps beside them, by the last entry they hold (two taken with no entry between share it). */
  private readonly besideWaiters = new Map<number, Array<() => void>>();
  private scheduled = false;
  private closing = false;
  /** A fatal error or a fence was posted: nothing more is appended (a batch held for company included). */
  private failed = false;
  private readonly ticker;
  /** Cluster mode: how long the next batch waits for company (undefined: never). */
  private readonly gathering: BatchGathering | undefined;

  constructor(private readonly options: ShardLoopOptions) {
    this.gathering = options.batchLingerMs === undefined ? undefined : new BatchGathering(options.timers, options.batchLingerMs);
    this.enqueue(async () => {
      const { opened, close } = await options.open();
      this.core = opened.core;
      this.closeOpened = close;
      options.post({ t: "ready", report: opened.report, idempotency: opened.idempotency });
    });
    this.ticker = options.controlled === undefined ? options.timers.every(options.tickIntervalMs, () => this.enqueue(() => this.tick())) : undefined;
  }

  private fatal(error: unknown): void {
    this.failed = true;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.ticker?.cancel();
    this.options.post(error instanceof JournalFencedError ? { t: "fenced", message } : { t: "fatal", message });
    this.options.exit(true);
  }

  private enqueue(task: () => Promise<void>): void {
    this.work = this.work.then(task).catch((error: unknown) => this.fatal(error));
  }

  private opened(): ShardCore {
    if (this.core === undefined) throw new Error("the shard is not open");
    return this.core;
  }

  /** One batch: everything that arrived since the last one (group commit falls out of this), in cluster mode after its wait for company. */
  private async processInbox(): Promise<void> {
    this.scheduled = false;
    if (this.inbox.length === 0) return;
    const gathered = this.gathering?.wait(this.inbox.length);
    if (gathered !== undefined) await gathered;
    if (this.failed) return;
    const items = this.inbox;
    this.inbox = [];
    const shard = this.opened();
    const batch = await shard.commitBatch(items.map((item) => item.body));
    // Its commands, not its requests: a batch of reads alone appends nothing, and brings no company.
    this.gathering?.committed(shard.lastBatch.commands);
    this.postEvents(shard);
    const { responses, reads } = batch;
    const answered = reads === undefined ? responses.map((body, index) => envelope((items[index] as Envelope<ShardRequest>).id, body as ShardResponse)) : answeredNow(items, responses);
    const packed = packResponses(answered);
    this.options.post({ t: "batch", items: packed, stats: shard.lastBatch }, [packed.buffer as ArrayBuffer]);
    if (reads !== undefined) this.answerLater(items, reads);
    if (this.snapshotDue(shard)) await this.snapshotInBackground(shard);
  }

  /**
   * Posts each of a batch's reads of the log once it is read (one slow read holds up no other),
   * while later batches go on; a read that fails stops the shard, as a failed commit does.
   */
  private answerLater(items: ReadonlyArray<Envelope<ShardRequest>>, reads: NonNullable<CommittedBatch["reads"]>): void {
    for (const read of reads) {
      const posted = read.answered.then((body) => {
        const packed = packResponses([envelope((items[read.index] as Envelope<ShardRequest>).id, body)]);
        this.options.post({ t: "answers", items: packed }, [packed.buffer as ArrayBuffer]);
      });
      this.readsInFlight.add(posted);
      posted.then(
        () => this.readsInFlight.delete(posted),
        (error: unknown) => {
          this.readsInFlight.delete(posted);
          this.fatal(error);
        },
      );
    }
  }

  /**
   * Takes a snapshot now, between two batches, and stores it while later batches go on (decision
   * I60): on a journal on a stream, storing waits for the node to store the partition's entries
   * under the snapshot's mark, and then writes an object; neither holds up the partition. A
   * failure to store it stops the shard, as a failed snapshot always did. `onStored`: once stored.
   */
  private async snapshotInBackground(shard: ShardCore, onStored?: (lsn: number, sizeBytes: number) => void): Promise<void> {
    const taken = await shard.takeSnapshot(this.besideFirst);
    const storing: Promise<void> = taken.stored.then(
      (stored) => {
        this.storing.delete(storing);
        onStored?.(taken.lsn, stored.sizeBytes);
      },
      (error: unknown) => {
        this.storing.delete(storing);
        this.fatal(error);
      },
    );
    this.storing.add(storing);
  }

  /**
   * Every snapshot, whoever asked: a journal on a stream marks it, and the node that owns the
   * partition snapshots its idempotency entries under the same mark (decision I58) first; the
   * shard's own is stored once the node says so (decision I60), so that the newest one a next owner
   * finds has its entries' beside it and it reads no interval of the stream again for them.
   */
  private readonly besideFirst = (mark: SnapshotMark): Promise<void> => {
    const stored = new Promise<void>((resolve) => {
      const waiting = this.besideWaiters.get(mark.sequence);
      if (waiting === undefined) this.besideWaiters.set(mark.sequence, [resolve]);
      else waiting.push(resolve);
    });
    this.options.post({ t: "snapshotting", mark });
    return stored;
  };

  /** Checked without awaiting anything, so a batch that needs no snapshot (every batch of the embedded default) costs no extra turn. */
  private snapshotDue(shard: ShardCore): boolean {
    const every = this.options.snapshotEveryCommands;
    return every !== undefined && this.storing.size === 0 && shard.commandsSinceLastSnapshot >= every;
  }

  /**
   * Events of watched markets from the batch just committed, before its replies (docs/events.md): a
   * watch answered in this batch counts these events in its `lastSequence`, so its subscriber drops them.
   */
  private postEvents(shard: ShardCore): void {
    const events = shard.takeEvents();
    if (events.length > 0) this.options.post({ t: "events", events });
  }

  private async tick(): Promise<void> {
    const shard = this.opened();
    const fired = await shard.tick();
    this.postEvents(shard);
    if (fired > 0) this.options.post({ t: "stats", stats: shard.lastBatch });
    if (this.snapshotDue(shard)) await this.snapshotInBackground(shard);
  }

  receive(message: ToShard): void {
    const { controlled } = this.options;
    switch (message.t) {
      case "batch":
        if (this.closing) return;
        controlled?.set(Math.max(controlled.nowMs(), message.nowMs));
        for (const item of unpackRequests(message.items)) this.inbox.push(item);
        this.gathering?.arrived(this.inbox.length);
        if (!this.scheduled) {
          this.scheduled = true;
          this.options.timers.soon(() => this.enqueue(() => this.processInbox()));
        }
        return;
      case "time":
        if (controlled !== undefined) {
          controlled.set(Math.max(controlled.nowMs(), message.nowMs));
          this.enqueue(() => this.tick());
        }
        return;
      case "snapshot":
        this.enqueue(async () => {
          await this.processInbox();
          // Answered once stored; later batches go on meanwhile.
          await this.snapshotInBackground(this.opened(), (lsn, sizeBytes) => this.options.post({ t: "snapshot", id: message.id, lsn, sizeBytes }));
        });
        return;
      case "besideStored": {
        const waiting = this.besideWaiters.get(message.sequence);
        this.besideWaiters.delete(message.sequence);
        for (const resolve of waiting ?? []) resolve();
        return;
      }
      case "open":
        this.enqueue(() => Promise.reject(new Error("the shard thread was sent a second open")));
        return;
      case "close":
        this.closing = true;
        this.ticker?.cancel();
        this.enqueue(async () => {
          await this.processInbox();
          const shard = this.opened();
          // Reads still being answered use the journal: they end first.
          await Promise.allSettled([...this.readsInFlight]);
          if (shard.commandsSinceLastSnapshot > 0) await this.snapshotInBackground(shard);
          // Every snapshot stored before the journal closes (a failed one has stopped the shard).
          await Promise.all([...this.storing]);
          await shard.close();
          await this.closeOpened?.();
          this.options.post({ t: "closed", lsn: shard.lastLsn });
          this.options.exit(false);
        });
        return;
    }
  }
}

/** The responses a batch has when it is durable (commands, reads from memory), with their requests' ids, when some reads of the log are still being read. */
function answeredNow(items: ReadonlyArray<Envelope<ShardRequest>>, responses: ReadonlyArray<ShardResponse | undefined>): Array<Envelope<ShardResponse>> {
  const answered: Array<Envelope<ShardResponse>> = [];
  responses.forEach((body, index) => {
    if (body !== undefined) answered.push(envelope((items[index] as Envelope<ShardRequest>).id, body));
  });
  return answered;
}
