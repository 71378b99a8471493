/**
 * One command per (actor, commandId) while another with the same key is in flight
 * (engine/runtime/submit-once.ts, engine/idempotency/index.ts). Found by the cluster simulation
 * (docs/simulation.md, seed 1027615): a command that met another content in flight was answered
 * `idempotency_conflict` at once; that other attempt was then abandoned (never logged), and a retry
 * of the first executed: one command, two answers. A conflict is now answered only once the other
 * content is durable; if it is abandoned, the waiting command claims the key afresh.
 */
import { describe, expect, it } from "vitest";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { IDEMPOTENCY_CONFLICT, submitOnce, type Executor } from "../../engine/runtime/submit-once.js";
import { commandResponse, errorReply, type CommandResponse } from "../../engine/runtime/shard-protocol.js";
import { commands } from "./support.js";

const ACCEPTED = errorReply("capacity_exhausted", "a reply the test can tell apart");

/** An executor whose executions the test finishes, one by one, in any order. */
function heldExecutor(): { executor: Executor; executed: string[]; finish: (fingerprint: string, outcome: "logged" | "failed") => void } {
  const held = new Map<string, { resolve: (value: { owner: number; response: CommandResponse }) => void; reject: (error: Error) => void }>();
  const executed: string[] = [];
  let position = 0;
  return {
    executed,
    executor: {
      execute: (_command, fingerprint) => {
        executed.push(fingerprint);
        return new Promise((resolve, reject) => held.set(fingerprint, { resolve, reject }));
      },
      replyAt: async () => ACCEPTED,
    },
    finish: (fingerprint, outcome) => {
      const pending = held.get(fingerprint);
      if (pending === undefined) throw new Error(`nothing executing with fingerprint ${fingerprint}`);
      held.delete(fingerprint);
      if (outcome === "logged") pending.resolve({ owner: 0, response: commandResponse("rejected", ACCEPTED, (position += 100)) });
      else pending.reject(new Error("the shard failed before logging"));
    },
  };
}

/** Lets every settled promise's continuations run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("a command meeting another content under its key in flight", () => {
  it("is refused as a conflict once that content is logged, not before", async () => {
    const index = new IdempotencyIndex({ seed: 1 });
    const { executor, executed, finish } = heldExecutor();
    const first = submitOnce(index, executor, commands.claim("bob", "m-1", "c-1"), "content-a");
    let answered: unknown;
    const second = submitOnce(index, executor, commands.claim("bob", "m-2", "c-1"), "content-b").then((result) => (answered = result));
    await settle();
    expect(answered, "no answer while the other content may still be abandoned").toBeUndefined();
    finish("content-a", "logged");
    expect(await first).toMatchObject({ disposition: "executed" });
    expect(await second).toEqual({ disposition: "replayed", reply: IDEMPOTENCY_CONFLICT });
    expect(executed).toEqual(["content-a"]);
  });

  it("is executed when that content is abandoned, and a later retry gets its reply, not a conflict", async () => {
    const index = new IdempotencyIndex({ seed: 1 });
    const { executor, executed, finish } = heldExecutor();
    const first = submitOnce(index, executor, commands.claim("bob", "m-1", "c-1"), "content-a");
    const second = submitOnce(index, executor, commands.claim("bob", "m-2", "c-1"), "content-b");
    finish("content-a", "failed");
    await expect(first).rejects.toThrow(/failed before logging/);
    await settle();
    expect(executed).toEqual(["content-a", "content-b"]);
    finish("content-b", "logged");
    expect(await second).toMatchObject({ disposition: "executed", reply: ACCEPTED });
    expect(await submitOnce(index, executor, commands.claim("bob", "m-2", "c-1"), "content-b")).toEqual({ disposition: "replayed", reply: ACCEPTED });
    expect(await submitOnce(index, executor, commands.claim("bob", "m-1", "c-1"), "content-a")).toEqual({ disposition: "replayed", reply: IDEMPOTENCY_CONFLICT });
  });

  it("waits on an identical command in flight and gets its reply", async () => {
    const index = new IdempotencyIndex({ seed: 1 });
    const { executor, executed, finish } = heldExecutor();
    const first = submitOnce(index, executor, commands.claim("bob", "m-1", "c-1"), "content-a");
    const retry = submitOnce(index, executor, commands.claim("bob", "m-1", "c-1"), "content-a");
    finish("content-a", "logged");
    expect(await first).toMatchObject({ disposition: "executed" });
    expect(await retry).toEqual({ disposition: "replayed", reply: ACCEPTED });
    expect(executed).toEqual(["content-a"]);
  });
});
