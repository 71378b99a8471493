import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The single-binary test builds and runs dist/market-service: `npm run test:binary` (CI runs it).
    exclude: ["test/binary/**", "**/node_modules/**"],
    // Integration tests start real servers and write real files; keep them isolated per file.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The cluster suites run 3 nats-server and up to 3 service processes each on a 2-core machine;
    // a few of their tests have failed once in a while on timing (a stream's first leader election
    // while the whole test cluster starts, a hand-over crossing a read). A test that fails again on
    // its retries still fails CI. Open point: find and remove each such cause, then drop this.
    retry: 2,
  },
});
