/**
 * No orphans: a child process a test or a bench started is SIGKILLed when that process exits, if it
 * is still running then (a test file that ended without its `afterAll` stop). SIGKILL ends a paused
 * (SIGSTOPped) process too. In scripts/ beside its users, nats-cluster.ts and local-cluster.ts,
 * which the benches, the demo and the tests import.
 */
import type { ChildProcess } from "node:child_process";

const live = new Set<ChildProcess>();
let hookInstalled = false;

/** Kills `child` at this process's exit unless it exited before. */
export function killOnExit(child: ChildProcess): void {
  if (!hookInstalled) {
    hookInstalled = true;
    process.on("exit", () => {
      for (const running of live) {
        try {
          running.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
    });
  }
  live.add(child);
  child.once("exit", () => live.delete(child));
}
