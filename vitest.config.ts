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
  },
});
