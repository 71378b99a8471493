/**
 * The Node flags `npm start` runs the service with (package.json "start"); the scripts and benches
 * that start the built service (`node dist/gateway/main.js`) start it with the same ones, so what
 * they measure is what the README's command runs. test/process/lifecycle.test.ts checks that
 * `npm start` passes each of them.
 *
 * `--no-memory-reducer`: V8 otherwise shrinks a heap that has gone quiet, and the storm that ends
 * the quiet pays for growing it again in collections on the gateway thread (docs/deploy.md,
 * "Memory"; decision I63). V8 reads it when it creates the gateway thread's heap, so it must be on
 * the command line: NODE_OPTIONS refuses it, and Node 20's single executable takes no V8 flags.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ["--no-memory-reducer"];
