/**
 * Where the worker pool's threads find their task module, engine/pool-worker/pool-tasks.ts, for
 * piscina (which starts every thread from its own runner file and then loads the task module from
 * disk). The tasks sit in a room of their own: they run the audits (engine/replay/), which use this
 * pool, so the pool cannot import them; it names their file instead.
 *   - inside the single binary: the bundled module, extracted from the executable to a private,
 *     checked file (engine/binary/pool-worker-file.ts);
 *   - from the built output: pool-tasks.js in ../pool-worker/;
 *   - from TypeScript sources (tests, `node --import tsx`): pool-tasks.ts, with tsx loaded in the
 *     thread (`--import tsx`; piscina's runner then `require`s the .ts through tsx's hook).
 */
import type * as Sea from "node:sea";
import { seaPoolWorkerFile } from "../binary/pool-worker-file.js";

export interface PoolWorkerFile {
  /** The task module, as a path or file: URL. */
  filename: string;
  /** Node options for the threads; undefined inherits the process's. */
  execArgv?: string[];
}

export function poolWorkerFile(): PoolWorkerFile {
  const sea = process.getBuiltinModule("node:sea") as typeof Sea | undefined;
  if (sea?.isSea() === true) return { filename: seaPoolWorkerFile() };
  const here = import.meta.url;
  if (here.endsWith(".ts")) return { filename: new URL("../pool-worker/pool-tasks.ts", here).href, execArgv: ["--import", "tsx"] };
  return { filename: new URL("../pool-worker/pool-tasks.js", here).href };
}
