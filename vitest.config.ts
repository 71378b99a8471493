import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The single-binary test builds and runs dist/market-service: `npm run test:binary` (CI runs it).
    exclude: ["test/binary/**", "**/node_modules/**"],
    // Integration tests start real servers and write real files; keep them isolated per file.
    pool: "forks",
    // Bounds against a hang, not expectations of speed: the suite must pass on a machine whose cores
    // other work keeps busy, where starting a process can take many times as long as on a quiet one.
    // Tests wait on conditions, never on time; no test is retried (a failure is a failure).
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
