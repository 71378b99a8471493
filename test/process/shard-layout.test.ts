/**
 * A data directory keeps the shard count it was created with: moved to a machine with another core
 * count (SHARDS unset) it starts with its own count; only an explicit SHARDS that disagrees is
 * refused, with a message saying what to do, and the process exits 2 like any configuration error.
 */
import { describe, expect, it } from "vitest";
import { availableParallelism } from "node:os";
import { startService } from "../../gateway/service.js";
import { MAIN_JS, serverEnv, spawnCaptured, tempDataDir } from "./support.js";

const env = (dataDir: string, shards: string | undefined) => ({
  DATA_DIR: dataDir,
  HOST: "127.0.0.1",
  PORT: "0",
  LOG_LEVEL: "silent",
  ...(shards === undefined ? {} : { SHARDS: shards }),
});

describe("the data directory's shard layout", () => {
  it("a directory created with another count than this machine's default starts with its own count when SHARDS is unset", async () => {
    const created = availableParallelism() + 1;
    const dataDir = tempDataDir("layout");
    const first = await startService({ env: env(dataDir, String(created)) });
    await first.close();
    const moved = await startService({ env: env(dataDir, undefined) });
    expect(moved.runtime.shardCount).toBe(created);
    await moved.close();
    const same = await startService({ env: env(dataDir, String(created)) });
    expect(same.runtime.shardCount).toBe(created);
    await same.close();
  });

  it("an explicit SHARDS that disagrees exits 2 naming both counts and the fix", async () => {
    const dataDir = tempDataDir("layout-conflict");
    const first = await startService({ env: env(dataDir, "3") });
    await first.close();
    const second = spawnCaptured(process.execPath, [MAIN_JS], { env: serverEnv(dataDir, { SHARDS: "2" }) });
    const exit = await second.exited;
    expect(exit.code).toBe(2);
    expect(second.output()).toContain(`configuration error: ${dataDir} was created with SHARDS=3; starting with SHARDS=2 would misplace markets`);
    expect(second.output()).toContain("Unset SHARDS");
  });
});
