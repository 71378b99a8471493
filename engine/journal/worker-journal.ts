/**
 * A file journal run on a thread of its own (journal-worker.ts), behind the same `Journal`
 * interface: the caller's thread hands over a batch and goes on serving while the worker writes
 * and fdatasyncs it, as the shard workers do for markets. The identity log uses it so that no
 * fdatasync runs on the gateway's thread.
 *
 * Entries are read where they are: `read` streams them from the worker, `readAt` reads the
 * committed segment files directly on the caller's thread (a read-only view, storage/'s LogView).
 * Requests are carried out in the order they are made; a failed write or fdatasync, or the worker's
 * death, fails the journal for good and every pending and later request is rejected.
 */
import type { Worker } from "node:worker_threads";
import { LogView } from "../../storage/index.js";
import { JOURNAL_WORKER_ASSET } from "../binary/assets.js";
import { startWorker, workerSource, type WorkerSource } from "../binary/embedded-worker.js";
import {
  JournalFencedError,
  type AppendOptions,
  type Journal,
  type JournalEntry,
  type JournalPosition,
  type JournalReadView,
  type JournalRecovery,
  type JournalSnapshot,
} from "./journal.js";
import type { FromJournalWorker, JournalFigures, JournalWorkerData, ToJournalWorker } from "./journal-worker-protocol.js";

export interface WorkerJournalOptions extends JournalWorkerData {
  /** Where the worker's code comes from (default: journal-worker beside this module, or the binary's asset). */
  readonly workerSource?: WorkerSource;
}

export function defaultJournalWorkerSource(): WorkerSource {
  return workerSource(JOURNAL_WORKER_ASSET, import.meta.url, "journal-worker");
}

type Reply = Exclude<FromJournalWorker, { t: "opened" } | { t: "open-failed" } | { t: "entries" }>;

interface Pending {
  readonly settle: (reply: Reply) => void;
  readonly fail: (error: Error) => void;
  /** For a read: where its entries go as they arrive. */
  readonly onEntry?: (entry: JournalEntry) => void;
}

export class WorkerJournal implements Journal {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private figures: JournalFigures;
  private failure: Error | undefined;
  private closing = false;
  private reader: { view: JournalReadView; log: LogView } | undefined;

  private constructor(
    private readonly worker: Worker,
    readonly recovery: JournalRecovery,
    readonly snapshot: JournalSnapshot | undefined,
    figures: JournalFigures,
  ) {
    this.figures = figures;
    worker.on("message", (message: FromJournalWorker) => this.receive(message));
    worker.on("error", (error) => this.fail(new Error(`the journal worker of ${figures.view.dir} failed: ${error.message}`)));
    worker.on("exit", (code) => {
      if (!this.closing || this.pending.size > 0) this.fail(new Error(`the journal worker of ${figures.view.dir} exited (code ${code})`));
    });
  }

  /** Starts the worker, which opens (recovers) the journal in `options.dir`; rejects if that fails. */
  static open(options: WorkerJournalOptions): Promise<WorkerJournal> {
    const data: JournalWorkerData = { dir: options.dir, ...(options.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: options.segmentSizeBytes }) };
    const worker = startWorker(options.workerSource ?? defaultJournalWorkerSource(), { workerData: data });
    return new Promise((resolve, reject) => {
      const onFirst = (message: FromJournalWorker): void => {
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (message.t === "opened") resolve(new WorkerJournal(worker, message.recovery, message.snapshot, message.figures));
        else reject(new Error(message.t === "open-failed" ? message.message : `unexpected first message ${message.t} from the journal worker`));
      };
      const onError = (error: Error): void => reject(error);
      const onExit = (code: number): void => reject(new Error(`the journal worker of ${options.dir} exited (code ${code}) before it opened the journal`));
      worker.once("message", onFirst);
      worker.once("error", onError);
      worker.once("exit", onExit);
    });
  }

  get lastSequence(): number {
    return this.figures.lastSequence;
  }

  get sizeBytes(): number {
    return this.figures.sizeBytes;
  }

  async append(payloads: readonly Uint8Array[], options: AppendOptions = {}): Promise<JournalPosition[]> {
    const message = { t: "append" as const, payloads, ...(options.expectedLastSequence === undefined ? {} : { expectedLastSequence: options.expectedLastSequence }) };
    const reply = await this.request(message);
    if (reply.t !== "appended") throw new Error(`unexpected reply ${reply.t} to an append`);
    this.figures = reply.figures;
    return reply.positions;
  }

  async read(afterSequence: number, onEntry: (entry: JournalEntry) => void): Promise<void> {
    await this.request({ t: "read", afterSequence }, onEntry);
  }

  async readAt(position: JournalPosition): Promise<JournalEntry> {
    if (this.failure !== undefined) throw this.failure;
    const frame = this.currentReader().readAt(position);
    return { sequence: frame.lsn, position: frame.position, payload: frame.payload };
  }

  readView(): JournalReadView {
    return this.figures.view;
  }

  async writeSnapshot(payload: Uint8Array, keep: number): Promise<{ sequence: number; sizeBytes: number }> {
    const reply = await this.request({ t: "snapshot", payload, keep });
    if (reply.t !== "snapshot-written") throw new Error(`unexpected reply ${reply.t} to a snapshot`);
    return { sequence: reply.sequence, sizeBytes: reply.sizeBytes };
  }

  /** Resolves once every request made before has been carried out and the worker has closed the files. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.reader?.log.close();
    this.reader = undefined;
    if (this.failure === undefined) await this.send({ t: "close", id: this.nextId++ }).catch(() => undefined);
    await this.worker.terminate();
  }

  /** A reader of the committed segments as of the last append (made again once more was appended). */
  private currentReader(): LogView {
    if (this.reader?.view !== this.figures.view) {
      this.reader?.log.close();
      this.reader = { view: this.figures.view, log: new LogView(this.figures.view) };
    }
    return this.reader.log;
  }

  private request(message: DistributiveOmit<ToJournalWorker, "id">, onEntry?: (entry: JournalEntry) => void): Promise<Reply> {
    if (this.closing) return Promise.reject(new Error("the journal is closed"));
    return this.send({ ...message, id: this.nextId++ } as ToJournalWorker, onEntry);
  }

  private send(message: ToJournalWorker, onEntry?: (entry: JournalEntry) => void): Promise<Reply> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<Reply>((resolve, reject) => {
      const settle = (reply: Reply): void => {
        if (reply.t === "refused") reject(reply.fenced === undefined ? new Error(reply.message) : new JournalFencedError(reply.fenced.expected, reply.fenced.last));
        else if (reply.t === "failed") reject(this.fail(new Error(reply.message)));
        else resolve(reply);
      };
      this.pending.set(message.id, { settle, fail: reject, ...(onEntry === undefined ? {} : { onEntry }) });
      this.worker.postMessage(message);
    });
  }

  private receive(message: FromJournalWorker): void {
    if (message.t === "opened" || message.t === "open-failed") return;
    const pending = this.pending.get(message.id);
    if (pending === undefined) return;
    if (message.t === "entries") {
      try {
        for (const entry of message.entries) pending.onEntry?.(entry);
      } catch (error) {
        // The reader refused an entry: its read ends here (the rest of its entries are dropped).
        this.pending.delete(message.id);
        pending.fail(error instanceof Error ? error : new Error(String(error)));
      }
      return;
    }
    this.pending.delete(message.id);
    pending.settle(message);
  }

  /** Fails the journal for good: every pending request is rejected, and every later one. */
  private fail(error: Error): Error {
    this.failure ??= error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const request of pending) request.fail(this.failure);
    return this.failure;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
