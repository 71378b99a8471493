import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration tests start real servers and write real files; keep them isolated per file.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
