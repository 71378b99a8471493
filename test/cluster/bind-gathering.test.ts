/**
 * A node's binds to one key home leave one message at a time (engine/cluster/forwarding.ts,
 * decision I68): over a real nats-server, binds queued while one bind message is unanswered wait
 * for its answer and then leave together, as one message; and, with a linger, the message after a
 * busy one waits for company (decision I70).
 */
import { describe, expect, it } from "vitest";
import { Forwarder, keysSubject, OWNER_MOVED } from "../../engine/cluster/forwarding.js";
import type { BindVerdict } from "../../engine/cluster/key-bindings.js";
import { okReply } from "../../engine/shard-protocol/shard-protocol.js";
import { systemTimers } from "../../engine/timers.js";
import { SteppedTimers } from "../support/stepped-timers.js";
import { ownerAndSender } from "./support/owner-and-sender.js";

const TIMEOUT_MS = 10_000;
const HOME = 20;

const connections = ownerAndSender();

/** Resolves once `condition` holds (checked every few milliseconds). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const bindOf = (commandId: string) => ({ actorId: "a", commandId, fingerprint: "f", marketPartition: 3 });

describe("binds to one key home", () => {
  it("wait while one bind message is unanswered, then leave together as one message", async () => {
    // The home's owner holds every bind until the test answers it.
    const held = new Map<string, (verdict: BindVerdict) => void>();
    const home = new Forwarder(connections.owner.transport, systemTimers, TIMEOUT_MS, () => undefined);
    home.serve(
      HOME,
      1,
      async () => okReply("{}"),
      (request) => new Promise<BindVerdict>((resolve) => held.set(request.commandId, resolve)),
    );
    // Every message on the home's subject, as a listener outside its queue group sees it.
    const messages: number[] = [];
    const listener = connections.sender.transport.subscribe(keysSubject(HOME, 1), {}, (message) => messages.push(message.data.length));
    await connections.owner.connection.flush();
    await connections.sender.connection.flush();
    const from = new Forwarder(connections.sender.transport, systemTimers, TIMEOUT_MS, () => undefined);
    try {
      const first = from.sendBind(HOME, 1, bindOf("c-1"));
      await until(() => held.has("c-1"));
      // Queued while c-1's message is unanswered, in two turns: neither reaches the home yet.
      const second = from.sendBind(HOME, 1, bindOf("c-2"));
      await new Promise((resolve) => setImmediate(resolve));
      const third = from.sendBind(HOME, 1, bindOf("c-3"));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect([...held.keys()]).toEqual(["c-1"]);
      expect(messages).toHaveLength(1);

      held.get("c-1")?.("bound");
      await expect(first).resolves.toBe("bound");
      await until(() => held.has("c-2") && held.has("c-3"));
      await connections.sender.connection.flush();
      expect(messages).toHaveLength(2);
      held.get("c-2")?.("bound");
      held.get("c-3")?.("conflict");
      await expect(second).resolves.toBe("bound");
      await expect(third).resolves.toBe("conflict");
      // What the node counts for /metrics: two messages, three binds in them.
      expect(from.sent.bind).toEqual({ messages: 2, requests: 3 });
      expect(from.sent.forward).toEqual({ messages: 0, requests: 0 });
    } finally {
      listener.unsubscribe();
      home.close();
    }
  });

  it("go to a new epoch at once, and are not sent to an epoch the lease moved past while they waited", async () => {
    const held = new Map<string, (verdict: BindVerdict) => void>();
    const oldHome = new Forwarder(connections.owner.transport, systemTimers, TIMEOUT_MS, () => undefined);
    oldHome.serve(HOME + 1, 1, async () => okReply("{}"), (request) => new Promise<BindVerdict>((resolve) => held.set(request.commandId, resolve)));
    const newHome = new Forwarder(connections.owner.transport, systemTimers, TIMEOUT_MS, () => undefined);
    newHome.serve(HOME + 1, 2, async () => okReply("{}"), async () => "bound");
    await connections.owner.connection.flush();
    const from = new Forwarder(connections.sender.transport, systemTimers, TIMEOUT_MS, () => undefined);
    try {
      const stale = from.sendBind(HOME + 1, 1, bindOf("c-4"));
      await until(() => held.has("c-4"));
      await expect(from.sendBind(HOME + 1, 2, bindOf("c-5"))).resolves.toBe("bound");
      held.get("c-4")?.("bound");
      await expect(stale).resolves.toBe("bound");

      // Queued behind a bind to epoch 1 when the lease moves to 2: abandoned, never sent to epoch 1.
      const inFlight = from.sendBind(HOME + 1, 1, bindOf("c-6"));
      await until(() => held.has("c-6"));
      const queued = from.sendBind(HOME + 1, 1, bindOf("c-7"));
      await new Promise((resolve) => setImmediate(resolve));
      from.ownerMoved(HOME + 1, 2);
      await expect(inFlight).resolves.toBe(OWNER_MOVED);
      await expect(queued).resolves.toBe(OWNER_MOVED);
      expect(held.has("c-7")).toBe(false);
      // Queued after the move at the epoch a node's view may still name: sent, as before gathering.
      const late = from.sendBind(HOME + 1, 1, bindOf("c-8"));
      await until(() => held.has("c-8"));
      held.get("c-8")?.("bound");
      await expect(late).resolves.toBe("bound");
    } finally {
      oldHome.close();
      newHome.close();
    }
  });
  it("wait for company after a busy message: the linger after its answer, or until 64 are queued", async () => {
    const LINGER_MS = 8;
    const held = new Map<string, (verdict: BindVerdict) => void>();
    const home = new Forwarder(connections.owner.transport, systemTimers, TIMEOUT_MS, () => undefined);
    home.serve(HOME + 2, 1, async () => okReply("{}"), (request) => new Promise<BindVerdict>((resolve) => held.set(request.commandId, resolve)));
    await connections.owner.connection.flush();
    const timers = new SteppedTimers();
    const from = new Forwarder(connections.sender.transport, timers, TIMEOUT_MS, () => undefined, { bindLingerMs: LINGER_MS });
    const answer = async (commandIds: string[], sent: Array<Promise<unknown>>): Promise<void> => {
      for (const commandId of commandIds) held.get(commandId)?.("bound");
      for (const promise of sent) await expect(promise).resolves.toBe("bound");
    };
    try {
      // The first message goes at once; it carries two binds (one turn's).
      const busy = [from.sendBind(HOME + 2, 1, bindOf("g-1")), from.sendBind(HOME + 2, 1, bindOf("g-2"))];
      await until(() => held.has("g-1") && held.has("g-2"));
      await answer(["g-1", "g-2"], busy);

      // After a message of two, the next waits the linger after that answer: not sent before it.
      const waiting = from.sendBind(HOME + 2, 1, bindOf("g-3"));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(held.has("g-3")).toBe(false);
      await timers.step(LINGER_MS - 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(held.has("g-3")).toBe(false);
      await timers.step(1);
      await until(() => held.has("g-3"));
      await answer(["g-3"], [waiting]);

      // After a message of one (a lone client), the next goes at once.
      const lone = [from.sendBind(HOME + 2, 1, bindOf("g-4")), from.sendBind(HOME + 2, 1, bindOf("g-5"))];
      await until(() => held.has("g-4") && held.has("g-5"));
      await answer(["g-4", "g-5"], lone);

      // After a busy one again, 64 queued binds leave without waiting for the linger.
      const many = Array.from({ length: 64 }, (_, i) => from.sendBind(HOME + 2, 1, bindOf(`m-${i}`)));
      await until(() => held.size === 5 + 64);
      await answer(Array.from({ length: 64 }, (_, i) => `m-${i}`), many);
      expect(timers.pending).toBe(0);
      expect(from.sent.bind).toEqual({ messages: 4, requests: 69 });
    } finally {
      home.close();
    }
  });
});
