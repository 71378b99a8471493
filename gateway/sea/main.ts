/**
 * Entry point of the single binary `dist/market-service` (build/build-binary.ts bundles this file
 * with esbuild into the SEA's main script). It runs the normal command line (gateway/cli/cli.ts);
 * what differs inside the binary is wired by the build, not here:
 *   - uWebSockets.js and @node-rs/crc32 come from embedded addons (uws-addon.ts, crc32-addon.ts,
 *     native-addon.ts); msgpackr's optional native extractor is left out (pure-JS decoding);
 *   - shard workers are evaluated from the embedded worker bundle (embedded-worker.ts), and the
 *     worker pool's threads start from its extracted module (pool-worker-file.ts).
 *
 * The CLI is imported lazily so that a failure while loading it (above all: a native addon that
 * cannot be extracted or loaded) is reported as one clear line and exit status 1, not a stack trace.
 * `MARKET_SERVICE_SELF_CHECK=1` prints a diagnostic instead (self-check.ts).
 */
import * as sea from "node:sea";

function refuse(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`market-service: ${message}\n`);
  process.exit(1);
}

if (!sea.isSea()) {
  refuse(new Error("this bundle is the main script of the single binary and only runs inside it (build it with `npm run build:binary`)"));
}

if (process.env["MARKET_SERVICE_SELF_CHECK"] === "1") {
  import("./self-check.js").then((m) => m.runSelfCheck(), refuse);
} else {
  import("../cli/cli.js").catch(refuse);
}
