// Child process of bench/recovery.bench.ts: a fresh process opens the service's runtime on a data
// directory, the way `npm start` does (built code, shard workers, index snapshot loaded while the
// shards open), prints how long MarketRuntime.open took as JSON, then exits without closing: a
// close would checkpoint, and the next run must start from the same files (the bench runs it 3 times).
// Usage: node bench/service-start.mjs <buildDir> <dataDir> <shardCount>
// The build directory (recovery.bench.ts passes the repository's dist/) is an argument, not an
// import path: bench/ imports nothing from dist/ (test/architecture); it runs a build it is given.
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
const [buildDir, dataDir, shards] = process.argv.slice(2);
const built = (file) => pathToFileURL(path.join(buildDir, file)).href;
const { MarketRuntime } = await import(built("engine/runtime/market-runtime.js"));
const { ManualClock } = await import(built("engine/clock.js"));
const fatal = [];
const started = performance.now();
const { runtime, recovery } = await MarketRuntime.open({
  dataDir,
  shardCount: Number(shards),
  clock: new ManualClock(Date.parse("2026-03-02T00:00:00.000Z")),
  checkpointEverySeconds: 0,
  onFatal: (message) => fatal.push(message),
});
const openSeconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ openSeconds, processSeconds: performance.now() / 1000, idempotencyEntries: recovery.idempotencyEntries, fatal }));
// Nothing was written since the open, so leaving is safe (a crash at this point loses nothing).
void runtime;
process.exit(0);
