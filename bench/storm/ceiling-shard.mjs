// The ceiling's shard (ceiling-server.ts): appends each batch's frames to one file and makes them
// durable with one fdatasync for every batch that arrived in the same event-loop turn (group
// commit, as the service's shard drains its inbox), then posts the request numbers back.
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

if (parentPort === null) throw new Error("the ceiling's shard runs in a worker thread");
const port = parentPort;
const fd = openSync(workerData.file, "a");
let inbox = [];
let commitScheduled = false;

function commit() {
  commitScheduled = false;
  const batches = inbox;
  inbox = [];
  for (const batch of batches) writeSync(fd, new Uint8Array(batch.frames));
  fdatasyncSync(fd);
  const ids = batches.length === 1 ? batches[0].ids : batches.flatMap((batch) => batch.ids);
  port.postMessage(ids);
}

port.on("message", (batch) => {
  inbox.push(batch);
  if (!commitScheduled) {
    commitScheduled = true;
    setImmediate(commit);
  }
});
port.on("close", () => closeSync(fd));
