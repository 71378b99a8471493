/**
 * `npm run test:binary`: only the single-binary test (test/binary/). It builds dist/market-service
 * (or reuses it when up to date) and runs it as a user would; `npm test` skips that file.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."),
  test: {
    include: ["test/binary/**/*.test.ts"],
    env: { MARKET_SERVICE_BINARY_TEST: "1" },
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
