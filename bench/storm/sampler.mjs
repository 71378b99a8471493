// Loaded into a benchmarked service (bench/gateway-sample.ts, `--import`): SIGUSR2 starts sampling
// on the main thread, the next SIGUSR2 writes the result to $SAMPLE_FILE. $SAMPLE_KIND says what:
// "heap" (V8's sampling heap profiler, garbage included), "retained" (the same, only what is still
// alive when sampling stops), "promoted" (only what outlived the young generation, alive or not) or
// "cpu" (V8's CPU profiler, a sample every 100 µs). Either way the garbage collections of the
// window are counted per kind, into $SAMPLE_FILE.gc.json. Nothing else changes in the service.
import { Session } from "node:inspector";
import { renameSync, writeFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import { GC_KINDS } from "./gc-kinds.mjs";

let collections = {};
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = GC_KINDS[entry.detail?.kind] ?? "other";
    const seen = (collections[kind] ??= { count: 0, ms: 0 });
    seen.count += 1;
    seen.ms += entry.duration;
  }
});

const session = new Session();
session.connect();
const cpu = process.env.SAMPLE_KIND === "cpu";
const youngGarbage = process.env.SAMPLE_KIND === "heap";
const oldGarbage = process.env.SAMPLE_KIND !== "retained";
let sampling = false;

function write(error, result) {
  gcObserver.disconnect();
  writeFileSync(`${process.env.SAMPLE_FILE}.gc.json`, JSON.stringify(collections));
  if (error) process.stderr.write(`sampler: ${error.message}\n`);
  else {
    // Renamed into place: the bench reads the file as soon as it exists.
    writeFileSync(`${process.env.SAMPLE_FILE}.partial`, JSON.stringify(result.profile));
    renameSync(`${process.env.SAMPLE_FILE}.partial`, process.env.SAMPLE_FILE);
  }
}

process.on("SIGUSR2", () => {
  if (!sampling) {
    sampling = true;
    collections = {};
    gcObserver.observe({ entryTypes: ["gc"] });
    if (cpu) {
      session.post("Profiler.enable");
      session.post("Profiler.setSamplingInterval", { interval: 100 });
      session.post("Profiler.start");
    } else {
      session.post("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: oldGarbage, includeObjectsCollectedByMinorGC: youngGarbage });
    }
    return;
  }
  sampling = false;
  session.post(cpu ? "Profiler.stop" : "HeapProfiler.stopSampling", write);
});
