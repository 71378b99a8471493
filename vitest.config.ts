import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const clientSource = (file: string): string => fileURLToPath(new URL(`packages/client/src/${file}`, import.meta.url));

export default defineConfig({
  // The client package is read from its source, as tsconfig.json's paths say (at run time outside the
  // tests, Node resolves it through node_modules to its build).
  resolve: {
    alias: [
      { find: /^@market-service\/client$/, replacement: clientSource("index.ts") },
      { find: /^@market-service\/client\/wire$/, replacement: clientSource("wire/index.ts") },
      { find: /^@market-service\/client\/audit$/, replacement: clientSource("audit/index.ts") },
    ],
  },
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
