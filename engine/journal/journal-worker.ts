/**
 * A journal's own thread: it opens the file journal named in its workerData and carries out the
 * requests of its `WorkerJournal`, one at a time and in the order they were sent, so its writes and
 * fdatasyncs never block the thread that uses the journal (the gateway's, for the identity log).
 *
 * A failed write or fdatasync fails the journal for good (storage/ never retries one): the request
 * is answered `failed`, and so is every later one.
 */
import { parentPort, workerData } from "node:worker_threads";
import { FileJournal } from "./file-journal.js";
import { JournalFencedError } from "./journal.js";
import type { FromJournalWorker, JournalEntryData, JournalFigures, JournalWorkerData, ToJournalWorker } from "./journal-worker-protocol.js";

/** Entries per message while reading: bounded messages, and the reader folds as they arrive. */
const ENTRIES_PER_MESSAGE = 1024;

const port = parentPort;
if (port === null) throw new Error("journal-worker must run in a worker thread");
const data = workerData as JournalWorkerData;

function post(message: FromJournalWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

let journal: FileJournal;
try {
  journal = FileJournal.open({ dir: data.dir, ...(data.segmentSizeBytes === undefined ? {} : { segmentSizeBytes: data.segmentSizeBytes }) });
} catch (error) {
  post({ t: "open-failed", message: messageOf(error) });
  port.close();
  process.exit(1); // ends this worker thread only
}
let failure: string | undefined;

function figures(): JournalFigures {
  return { lastSequence: journal.lastSequence, sizeBytes: journal.sizeBytes, view: journal.readView() };
}

post({ t: "opened", recovery: journal.recovery, snapshot: journal.snapshot, figures: figures() });

async function append(message: Extract<ToJournalWorker, { t: "append" }>): Promise<void> {
  try {
    const options = message.expectedLastSequence === undefined ? {} : { expectedLastSequence: message.expectedLastSequence };
    const positions = await journal.append(message.payloads, options);
    post({ t: "appended", id: message.id, positions, figures: figures() });
  } catch (error) {
    if (error instanceof JournalFencedError) {
      post({ t: "refused", id: message.id, message: error.message, fenced: { expected: error.expectedLastSequence, last: error.lastSequence } });
      return;
    }
    failure = messageOf(error);
    post({ t: "failed", id: message.id, message: failure });
  }
}

async function read(message: Extract<ToJournalWorker, { t: "read" }>): Promise<void> {
  let entries: JournalEntryData[] = [];
  const flush = (): void => {
    post({ t: "entries", id: message.id, entries });
    entries = [];
  };
  await journal.read(message.afterSequence, (entry) => {
    entries.push({ sequence: entry.sequence, position: entry.position, payload: entry.payload.slice() });
    if (entries.length === ENTRIES_PER_MESSAGE) flush();
  });
  if (entries.length > 0) flush();
  post({ t: "read-done", id: message.id });
}

async function snapshot(message: Extract<ToJournalWorker, { t: "snapshot" }>): Promise<void> {
  const written = await journal.writeSnapshot(message.payload, message.keep);
  post({ t: "snapshot-written", id: message.id, sequence: written.sequence, sizeBytes: written.sizeBytes });
}

async function handle(message: ToJournalWorker): Promise<void> {
  if (message.t === "close") {
    await journal.close();
    post({ t: "closed", id: message.id });
    port?.close();
    return;
  }
  if (failure !== undefined) {
    post({ t: "failed", id: message.id, message: failure });
    return;
  }
  try {
    if (message.t === "append") await append(message);
    else if (message.t === "read") await read(message);
    else await snapshot(message);
  } catch (error) {
    post({ t: "refused", id: message.id, message: messageOf(error) });
  }
}

/** One request at a time, in order. */
let work: Promise<void> = Promise.resolve();
port.on("message", (message: ToJournalWorker) => {
  work = work.then(() => handle(message));
});
