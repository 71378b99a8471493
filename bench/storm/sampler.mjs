// Loaded into a benchmarked service (bench/gateway-sample.ts, `--import`): SIGUSR2 starts sampling
// on the main thread, the next SIGUSR2 writes the result to $SAMPLE_FILE. $SAMPLE_KIND says what:
// "heap" (V8's sampling heap profiler, garbage included) or "cpu" (V8's CPU profiler, a sample every
// 100 µs). Nothing else changes in the service.
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";

const session = new Session();
session.connect();
const cpu = process.env.SAMPLE_KIND === "cpu";
let sampling = false;

function write(error, result) {
  if (error) process.stderr.write(`sampler: ${error.message}\n`);
  else writeFileSync(process.env.SAMPLE_FILE, JSON.stringify(result.profile));
}

process.on("SIGUSR2", () => {
  if (!sampling) {
    sampling = true;
    if (cpu) {
      session.post("Profiler.enable");
      session.post("Profiler.setSamplingInterval", { interval: 100 });
      session.post("Profiler.start");
    } else {
      session.post("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    }
    return;
  }
  sampling = false;
  session.post(cpu ? "Profiler.stop" : "HeapProfiler.stopSampling", write);
});
