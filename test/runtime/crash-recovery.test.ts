import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { MarketRuntime } from "../../engine/runtime/market-runtime.js";
import { commandFingerprint } from "../../engine/idempotency/fingerprint.js";
import { buildCommand, buildIdentity, type Command } from "../../engine/index.js";
import { T0, tempDir } from "./support.js";
import { jsonText } from "../../engine/shard-protocol/shard-protocol.js";

const fp = (c: Command) => {
  const { occurredAtMs: _t, ...content } = c;
  return commandFingerprint(c.type, content);
};

/** Start the child, wait for `acks` acknowledged claims, SIGKILL it; resolves with every acked id. */
function runUntilKilled(dataDir: string, run: string, acks: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "fixtures/crash-child.ts"), dataDir, run], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acked: string[] = [];
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (!line.startsWith("ack ")) return;
      acked.push(line.slice(4));
      if (acked.length === acks) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve([...acked]);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

describe("crash recovery (child process, SIGKILL)", () => {
  it("keeps every acknowledged command after a kill at a random moment, twice", async () => {
    const { dir, cleanup } = tempDir("crash");
    try {
      const acked = [...(await runUntilKilled(dir, "r1", 400 + Math.floor(Math.random() * 300)))];
      acked.push(...(await runUntilKilled(dir, "r2", 200 + Math.floor(Math.random() * 300))));
      // Also rebuild without the idempotency index snapshot: shards must report every entry.
      rmSync(path.join(dir, "idempotency"), { recursive: true, force: true });
      const clock = new ManualClock(T0);
      const { runtime } = await MarketRuntime.open({ dataDir: dir, shardCount: 2, clock, controlledClock: true, checkpointEverySeconds: 0, onFatal: () => undefined });
      try {
        for (const commandId of acked) {
          const [, run, counter] = commandId.split("-");
          const n = Number(counter);
          const principal = `p-${run}-${n}`;
          const claim = buildCommand("direct_claim.submit", { marketId: ["crash-a", "crash-b", "crash-c"][n % 3] as string, commandId, identity: buildIdentity({ principalId: principal, actorId: principal }), occurredAtMs: 0 });
          const again = await runtime.submit(claim, fp(claim));
          expect(again.disposition, `${commandId} was acknowledged but is not in the log`).toBe("replayed");
          expect(again.reply.ok).toBe(true);
        }
        let accepted = 0;
        for (const marketId of ["crash-a", "crash-b", "crash-c"]) {
          const reply = await runtime.readRecord(marketId, "alice");
          if (!reply.ok) throw new Error(reply.message);
          const record = JSON.parse(jsonText(reply.json));
          expect(record.integrity.stateReconstructed).toBe(true);
          accepted += record.commands.filter((c: { type: string; status: string }) => c.type === "direct_claim.submit" && c.status === "accepted").length;
        }
        // Both runs wrote new claims (ids are per run), and nothing acked is missing.
        expect(new Set(acked).size).toBe(acked.length);
        expect(accepted).toBeGreaterThanOrEqual(acked.length);
      } finally {
        await runtime.close();
      }
    } finally {
      cleanup();
    }
  }, 120_000);
});
