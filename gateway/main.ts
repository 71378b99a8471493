/**
 * `npm start`: run the service on the embedded defaults (HOST=127.0.0.1, PORT=8080,
 * DATA_DIR=./data) or whatever the environment says. SIGTERM/SIGINT stop it cleanly: stop
 * accepting, drain the shards, snapshot, exit 0. A bad setting exits with status 2.
 */
import { ConfigError } from "./auth/config-error.js";
import { startService } from "./service.js";

export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let service;
  try {
    service = await startService({ env });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`market-service: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (service.bootstrapNotice !== undefined) process.stderr.write(`${service.bootstrapNotice}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`market-service: ${signal} received, stopping\n`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`market-service: error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

// Run when executed directly (node dist/gateway/main.js), not when imported by the CLI.
if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((error: unknown) => {
    process.stderr.write(`market-service: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
