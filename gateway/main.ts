/**
 * `npm start`: run the service on the embedded defaults (HOST=127.0.0.1, PORT=8080,
 * DATA_DIR=./data) or whatever the environment says. SIGTERM, SIGINT and SIGHUP stop it cleanly
 * (stop accepting, drain the shards, snapshot, exit 0), and so does the exit of the npm or shell
 * process that launched it; a second signal exits at once (lifecycle.ts). A bad setting exits with
 * status 2; a data directory another process holds, with status 1 naming that process.
 *
 * The data directory's lock is the first thing taken, before the service's modules are even loaded,
 * so a second process on a live directory is turned away at once.
 */
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { ConfigError } from "./auth/config-error.js";
import { DataDirInUseError, lockDataDir } from "../storage/data-dir-lock.js";
import { loadServiceConfig } from "./config.js";
import { installStopHandlers } from "./lifecycle.js";
import { ClusterConfigError } from "../storage/data-dir-layout.js";
import type { RunningService } from "./service.js";

export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const starting = start(env);
  // Installed before the start, so a stop requested during a long recovery waits for it and then
  // closes cleanly instead of killing the process mid-recovery.
  installStopHandlers({
    stop: (reason) => {
      process.stderr.write(`market-service: ${reason}, stopping (a second signal exits at once)\n`);
      starting
        .then((service) => service.close())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`market-service: error while stopping: ${String(error)}\n`);
            process.exit(1);
          },
        );
    },
    exitNow: (reason, status) => {
      process.stderr.write(`market-service: ${reason} again, exiting now without draining (acknowledged commands are on disk)\n`);
      process.exit(status);
    },
  });
  let service: RunningService;
  try {
    service = await starting;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ClusterConfigError) {
      process.stderr.write(`market-service: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof DataDirInUseError) {
      process.stderr.write(`market-service: ${error.message}; stop it first, or set another DATA_DIR\n`);
      process.exit(1);
    }
    throw error;
  }
  if (service.bootstrapNotice !== undefined) process.stderr.write(`${service.bootstrapNotice}\n`);
}

async function start(env: NodeJS.ProcessEnv): Promise<RunningService> {
  const lock = await lockDataDir(loadServiceConfig(env).dataDir, "serve", Date.now());
  try {
    const { startService } = await import("./service.js");
    return await startService({ env, lock });
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Executed directly (`node dist/gateway/main.js`), not imported by the CLI. Compared as file URLs of
 * real paths: a path with a space (percent-encoded in the URL) or a symlinked `dist/` (the module's
 * URL is its real path) must not make the service exit at once, silently, with status 0.
 */
function executedDirectly(): boolean {
  const moduleUrl: string | undefined = import.meta.url;
  const entry = process.argv[1];
  if (moduleUrl === undefined || entry === undefined) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (executedDirectly()) {
  serve().catch((error: unknown) => {
    process.stderr.write(`market-service: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
