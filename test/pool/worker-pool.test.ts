/**
 * The worker pool (engine/pool/worker-pool.ts) itself: when its threads start, what its bound is,
 * what keeps the process alive, and what a failing thread does to the tasks. Real threads, real
 * shard logs in temp dirs; test/runtime/replay-pool.test.ts and audit.test.ts cover the tasks'
 * answers.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { poolWorkerFile, type PoolWorkerFile } from "../../engine/pool/worker-file.js";
import { WorkerPool } from "../../engine/pool/worker-pool.js";
import { openFileShard } from "../../engine/runtime/shard-core.js";
import type { ReplayWork } from "../../engine/shard-protocol/shard-protocol.js";
import { T0, commands, directClaim, request, tempDir } from "../runtime/support.js";

const run = promisify(execFile);
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function pool(threads: number, workerFile?: () => PoolWorkerFile): WorkerPool {
  const created = new WorkerPool(threads, workerFile);
  cleanups.push(() => created.close());
  return created;
}

/** A shard log in a temp dir: `markets` markets with `claims` claims each; returns its dir. */
async function shardDir(markets: number, claims: number): Promise<string> {
  const t = tempDir("worker-pool");
  cleanups.push(t.cleanup);
  const clock = new ManualClock(T0);
  const { core } = await openFileShard({ dir: t.dir, shardIndex: 0, clock });
  for (let m = 0; m < markets; m += 1) {
    clock.advance(3);
    await core.processBatch([request(commands.create("alice", `m${m}`, directClaim({ capacity: 3, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("alice", `m${m}`))]);
    clock.advance(3);
    await core.processBatch(Array.from({ length: claims }, (_, i) => request(commands.claim(`p${i}`, `m${m}`))));
  }
  core.close();
  return t.dir;
}

const REPLAY = { mode: "replay", keptPayloadBytes: 0 } as const;
const DYING_TASKS: PoolWorkerFile = { filename: new URL("./fixtures/dying-tasks.ts", import.meta.url).href, execArgv: ["--import", "tsx"] };
/** Work only the dying-tasks fixture understands (it reads `kind` alone). */
const fixtureWork = (kind: "exit" | "block" | "echo") => ({ kind }) as unknown as ReplayWork;

describe("worker pool", () => {
  it("starts no thread, and does not even look for its module, before the first task; then at most `threads` threads", async () => {
    let lookups = 0;
    const counted = pool(2, () => {
      lookups += 1;
      return poolWorkerFile();
    });
    expect({ running: counted.running, lookups }).toEqual({ running: 0, lookups: 0 });
    const dirs = [await shardDir(2, 5), await shardDir(3, 5), await shardDir(1, 5), await shardDir(2, 4)];
    const audits = await Promise.all(dirs.map((dir, index) => counted.auditShard({ index, dir }, REPLAY, () => undefined)));
    expect(audits.map((audit) => [audit.index, audit.markets.length])).toEqual([[0, 2], [1, 3], [2, 1], [3, 2]]);
    expect({ running: counted.running, lookups }).toEqual({ running: 2, lookups: 1 });
  });

  it("reports every frame of an audit before the audit's result arrives", async () => {
    const dir = await shardDir(4, 40);
    const threads = pool(1);
    for (let round = 0; round < 3; round += 1) {
      let frames = 0;
      const audit = await threads.auditShard({ index: 0, dir }, REPLAY, (n) => (frames += n));
      expect(audit.commands).toBe(4 * 42);
      expect(frames).toBe(audit.commands);
    }
  });

  it("lets the process exit while its threads sit idle", async () => {
    const dir = await shardDir(1, 3);
    // Bounded (within the test's own bound): a thread that kept the process alive would make this time out and fail.
    const child = await run(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "fixtures", "idle-pool.ts"), dir], { timeout: 100_000 });
    expect(JSON.parse(child.stdout)).toEqual({ commands: 5, running: 1 });
  });

  it("fails the task of a thread that dies, and runs the next task on a new thread", async () => {
    const threads = pool(1, () => DYING_TASKS);
    const first = await threads.replay(fixtureWork("echo"));
    await expect(threads.replay(fixtureWork("exit"))).rejects.toThrow(/^replay failed: .*exited with code: 3/);
    const next = await threads.replay(fixtureWork("echo"));
    expect(first.ok || next.ok).toBe(false);
    if (first.ok || next.ok) throw new Error("refusals expected");
    expect(next.message).toMatch(/^thread \d+$/);
    expect(next.message).not.toBe(first.message);
    expect(threads.running).toBe(1);
  });

  it("fails the waiting tasks when a thread cannot even start, instead of leaving them queued", async () => {
    const broken = pool(1, () => ({ ...poolWorkerFile(), execArgv: ["--import", "data:text/javascript,throw new Error('this thread cannot start')"] }));
    const dir = await shardDir(1, 1);
    // Bounded by the test timeout: piscina alone would keep these queued for ever.
    const results = await Promise.allSettled([broken.auditShard({ index: 0, dir }, REPLAY, () => undefined), broken.auditShard({ index: 0, dir }, REPLAY, () => undefined)]);
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect(String((result as PromiseRejectedResult).reason)).toMatch(/a worker pool thread failed: .*this thread cannot start/);
    }
    // The next task is tried afresh (and fails the same way here).
    await expect(broken.auditShard({ index: 0, dir }, REPLAY, () => undefined)).rejects.toThrow(/this thread cannot start/);
  });

  it("on close, fails the running and waiting tasks and refuses new ones", async () => {
    const threads = pool(1, () => DYING_TASKS);
    const running = threads.replay(fixtureWork("block"));
    const waiting = threads.replay(fixtureWork("echo"));
    const settled = Promise.allSettled([running, waiting]);
    await threads.close();
    expect((await settled).map((result) => result.status)).toEqual(["rejected", "rejected"]);
    await expect(threads.replay(fixtureWork("echo"))).rejects.toThrow(/closed/);
  });

  it("refuses a thread count outside 1..256", () => {
    for (const threads of [0, 257, 1.5, Number.NaN]) expect(() => new WorkerPool(threads)).toThrow(/integer in \[1, 256\]/);
  });
});
