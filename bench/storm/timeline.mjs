// Loaded into a benchmarked service's gateway thread (bench/half-load-timeline.ts, `--import`):
// SIGUSR2 starts recording, the next SIGUSR2 writes what was recorded to $TIMELINE_FILE as JSON.
// It records, with wall-clock times (ms since the epoch, to compare with the access log's):
// - every garbage collection of the gateway thread: start, duration, kind;
// - the event loop's delay in windows of $TIMELINE_WINDOW_MS (default 50): its maximum, from
//   `monitorEventLoopDelay` (its default 10 ms resolution is too coarse for a 5 ms target, so 1 ms).
// Worker threads (the shards) do not load `--import` modules; their commits are on /metrics.
import { renameSync, writeFileSync } from "node:fs";
import { PerformanceObserver, monitorEventLoopDelay, performance } from "node:perf_hooks";
import { GC_KINDS } from "./gc-kinds.mjs";

const windowMs = Number(process.env.TIMELINE_WINDOW_MS ?? "50");

let recording = false;
let collections = [];
let windows = [];
let timer;
const delay = monitorEventLoopDelay({ resolution: 1 });

const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    collections.push({ atMs: performance.timeOrigin + entry.startTime, durationMs: entry.duration, kind: GC_KINDS[entry.detail?.kind] ?? "other" });
  }
});

function closeWindow() {
  windows.push({ endMs: Date.now(), maxDelayMs: delay.count > 0 ? delay.max / 1e6 : 0 });
  delay.reset();
}

process.on("SIGUSR2", () => {
  if (!recording) {
    recording = true;
    collections = [];
    windows = [];
    gcObserver.observe({ entryTypes: ["gc"] });
    delay.enable();
    delay.reset();
    timer = setInterval(closeWindow, windowMs);
    return;
  }
  recording = false;
  clearInterval(timer);
  closeWindow();
  delay.disable();
  gcObserver.disconnect();
  const file = process.env.TIMELINE_FILE;
  writeFileSync(`${file}.partial`, JSON.stringify({ windowMs, collections, windows }));
  // Renamed into place: the bench reads the file as soon as it exists.
  renameSync(`${file}.partial`, file);
});
