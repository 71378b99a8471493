// Loaded into a benchmarked service (bench/alloc-sample.ts, `--import`): SIGUSR2 starts V8's sampling
// heap profiler on the main thread, garbage included; the next SIGUSR2 writes the profile to
// $HEAP_SAMPLE_FILE. Nothing else changes in the service.
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";

const session = new Session();
session.connect();
let sampling = false;
process.on("SIGUSR2", () => {
  if (!sampling) {
    sampling = true;
    session.post("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    return;
  }
  sampling = false;
  session.post("HeapProfiler.stopSampling", (error, result) => {
    if (error) process.stderr.write(`heap sampler: ${error.message}\n`);
    else writeFileSync(process.env.HEAP_SAMPLE_FILE, JSON.stringify(result.profile));
  });
});
