/**
 * The ceiling: the design card's request path with none of the service in it. A uWebSockets.js
 * main thread reads each POST body and, once per event-loop turn, posts the turn's bodies to one
 * worker thread; the worker appends them to a file as length-prefixed frames with one write and
 * one fdatasync per batch (group commit: bodies that arrive during a sync wait for the next one)
 * and posts the batch's request numbers back; the main thread then writes a fixed small JSON reply
 * to each, corked. No authentication, parsing, validation, idempotency, engine or msgpack.
 *
 * What it measures: the throughput a service built on this architecture (uWS gateway thread,
 * worker-thread shard, fsync before reply) could reach on this machine if its own work cost
 * nothing. P1's target is a fraction of the no-op floor; this says how much of that fraction the
 * architecture alone already spends (bench/storm/ceiling.ts runs both against the same driver).
 *
 *   node --import tsx bench/storm/ceiling-server.ts <port> <dataDir> [shards]
 *
 * With several shards (default 1), a request goes to the worker its path hashes to, as the service
 * routes a market to its shard, each worker with its own file. With 0, there is no worker: the
 * main thread writes each turn's frames itself and makes them durable with an asynchronous
 * fdatasync (libuv's thread pool), the next turns' bodies waiting for the next one: the same group
 * commit without a thread hop of our own (outside the design card; it says what the hop costs).
 *
 * The worker is plain JavaScript (ceiling-shard.mjs): tsx's loader does not reach worker threads.
 */
import { fdatasync, mkdirSync, openSync, writeSync } from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import uWS from "@trufflesuite/uws-js-unofficial";
import { fnv1a32Utf8 } from "../../engine/store/hash.js";

/**
 * One batch to the shard (ceiling-shard.mjs): request numbers, and the bodies as frames (4-byte
 * length + body) in one buffer that is transferred, not copied.
 */
interface Batch {
  ids: number[];
  frames: ArrayBuffer;
}

const port = Number(process.argv[2] ?? "0");
const dataDir = process.argv[3] ?? "";
const shardCount = Number(process.argv[4] ?? "1");
if (dataDir === "" || !(Number.isInteger(shardCount) && shardCount >= 0 && shardCount <= 16)) {
  throw new Error("usage: ceiling-server.ts <port> <dataDir> [shards 0-16]");
}
if (!uWS.App.toString().includes("[native code]")) throw new Error("uWS native addon did not load");
mkdirSync(dataDir, { recursive: true });

const BODY = '{"ok":true}';
/** Requests waiting for their batch's fsync, by number; a number is never reused. */
const waiting = new Map<number, { res: uWS.HttpResponse; aborted: boolean }>();
let nextId = 0;
let flushScheduled = false;

/** Replies to the requests whose bodies are durable. */
function answer(durable: readonly number[]): void {
  for (const id of durable) {
    const pending = waiting.get(id);
    waiting.delete(id);
    if (pending === undefined || pending.aborted) continue;
    pending.res.cork(() => {
      pending.res.writeStatus("200 OK").writeHeader("content-type", "application/json").end(BODY);
    });
  }
}

/** Frames (4-byte length + body) of some bodies, in a buffer of their own. */
function framesOf(bodies: readonly Buffer[]): ArrayBuffer {
  let sizeBytes = 0;
  for (const body of bodies) sizeBytes += 4 + body.length;
  // Not Buffer.allocUnsafe: a small one is a view of Node's shared pool, which cannot be transferred.
  const frames = new ArrayBuffer(sizeBytes);
  const view = Buffer.from(frames);
  let at = 0;
  for (const body of bodies) {
    at = view.writeUInt32LE(body.length, at);
    at += body.copy(view, at);
  }
  return frames;
}

/** Where a turn's bodies go: a worker thread, or the main thread's own file (shards = 0). */
interface Destination {
  ids: number[];
  bodies: Buffer[];
  flush(): void;
}

/** A worker with its own log file and the batch of bodies routed to it this turn. */
class Shard implements Destination {
  readonly worker: Worker;
  ids: number[] = [];
  bodies: Buffer[] = [];

  constructor(index: number) {
    this.worker = new Worker(new URL("./ceiling-shard.mjs", import.meta.url), { workerData: { file: path.join(dataDir, `ceiling-${index}.log`) } });
    this.worker.on("error", (error) => {
      process.stderr.write(`ceiling shard ${index} failed: ${String(error)}\n`);
      process.exit(1);
    });
    this.worker.on("message", answer);
  }

  flush(): void {
    if (this.ids.length === 0) return;
    const frames = framesOf(this.bodies);
    const batch: Batch = { ids: this.ids, frames };
    this.worker.postMessage(batch, [frames]);
    this.ids = [];
    this.bodies = [];
  }
}

/** shards = 0: one write per turn on the main thread, one fdatasync in flight at a time. */
class InlineLog implements Destination {
  ids: number[] = [];
  bodies: Buffer[] = [];
  private readonly fd = openSync(path.join(dataDir, "ceiling-inline.log"), "a");
  private syncing = false;

  flush(): void {
    if (this.ids.length === 0 || this.syncing) return; // the sync in flight flushes again when done
    const ids = this.ids;
    writeSync(this.fd, new Uint8Array(framesOf(this.bodies)));
    this.ids = [];
    this.bodies = [];
    this.syncing = true;
    fdatasync(this.fd, (error) => {
      if (error !== null) {
        process.stderr.write(`ceiling: fdatasync failed: ${error.message}\n`);
        process.exit(1);
      }
      this.syncing = false;
      answer(ids);
      this.flush();
    });
  }
}

const shards: Destination[] = shardCount === 0 ? [new InlineLog()] : Array.from({ length: shardCount }, (_, index) => new Shard(index));
const flushAll = (): void => {
  flushScheduled = false;
  for (const shard of shards) shard.flush();
};

/** The path's hash, as the service places markets: requests for one market (one path) always reach the same shard. */
function shardOf(url: string): Destination {
  return shards[fnv1a32Utf8(url) % shards.length] as Destination;
}

uWS
  .App()
  .get("/healthz", (res) => {
    res.end("ok");
  })
  .post("/*", (res, req) => {
    const shard = shardOf(req.getUrl());
    const id = nextId++;
    const pending = { res, aborted: false };
    res.onAborted(() => {
      pending.aborted = true;
    });
    let body = Buffer.alloc(0);
    res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory after this callback: copy it out.
      body = Buffer.concat([body, Buffer.from(chunk)]);
      if (!isLast) return;
      waiting.set(id, pending);
      shard.ids.push(id);
      shard.bodies.push(body);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushAll);
      }
    });
  })
  .listen("127.0.0.1", port, (socket) => {
    if (socket === false) {
      process.stderr.write(`ceiling: cannot listen on ${port}\n`);
      process.exit(1);
    }
    process.stdout.write("ceiling ready\n");
  });
process.on("SIGTERM", () => process.exit(0));
