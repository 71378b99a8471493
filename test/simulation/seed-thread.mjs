// The entry of a seed-running thread (main.ts): TypeScript is loaded through tsx in this thread
// too (a worker thread does not inherit the main thread's --import), then seed-worker.ts runs.
import { register } from "tsx/esm/api";

register();
await import("./seed-worker.ts");
