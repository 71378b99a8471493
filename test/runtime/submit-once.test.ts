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
import { IDEMPOTENCY_CONFLICT, submitOnce, type Executor, type SubmitResult } from "../../engine/runtime/submit-once.js";
import { commandResponse, errorReply, type CommandResponse } from "../../engine/shard-protocol/shard-protocol.js";
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

/**
 * Given: an empty index and a held executor. `send(market, content)` submits bob's command `c-1` for
 * `market` with that content (its fingerprint), as a client sending the same commandId would.
 */
function given(): ReturnType<typeof heldExecutor> & { send: (marketId: string, content: string) => Promise<SubmitResult> } {
  const index = new IdempotencyIndex({ seed: 1 });
  const held = heldExecutor();
  return { ...held, send: (marketId, content) => submitOnce(index, held.executor, commands.claim("bob", marketId, "c-1"), content) };
}

/** Lets every settled promise's continuations run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("a command meeting another content under its key in flight", () => {
  it("is refused as a conflict once that content is logged, not before", async () => {
    const { send, executed, finish } = given();
    const first = send("m-1", "content-a");
    let answered: unknown;
    const second = send("m-2", "content-b").then((result) => (answered = result));
    await settle();
    expect(answered, "no answer while the other content may still be abandoned").toBeUndefined();
    finish("content-a", "logged");
    expect(await first).toMatchObject({ disposition: "executed" });
    expect(await second).toEqual({ disposition: "replayed", reply: IDEMPOTENCY_CONFLICT });
    expect(executed).toEqual(["content-a"]);
  });

  it("is executed when that content is abandoned, and a later retry gets its reply, not a conflict", async () => {
    const { send, executed, finish } = given();
    const first = send("m-1", "content-a");
    const second = send("m-2", "content-b");
    finish("content-a", "failed");
    await expect(first).rejects.toThrow(/failed before logging/);
    await settle();
    expect(executed).toEqual(["content-a", "content-b"]);
    finish("content-b", "logged");
    expect(await second).toMatchObject({ disposition: "executed", reply: ACCEPTED });
    expect(await send("m-2", "content-b")).toEqual({ disposition: "replayed", reply: ACCEPTED });
    expect(await send("m-1", "content-a")).toEqual({ disposition: "replayed", reply: IDEMPOTENCY_CONFLICT });
  });

  it("waits on an identical command in flight and gets its reply", async () => {
    const { send, executed, finish } = given();
    const first = send("m-1", "content-a");
    const retry = send("m-1", "content-a");
    finish("content-a", "logged");
    expect(await first).toMatchObject({ disposition: "executed" });
    expect(await retry).toEqual({ disposition: "replayed", reply: ACCEPTED });
    expect(executed).toEqual(["content-a"]);
  });
});
