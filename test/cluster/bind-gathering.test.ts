/**
 * A node's binds to one key home leave one message at a time (engine/cluster/forwarding.ts,
 * decision I68): over a real nats-server, binds queued while one bind message is unanswered wait
 * for its answer and then leave together, as one message.
 */
import { describe, expect, it } from "vitest";
import { Forwarder, keysSubject, OWNER_MOVED } from "../../engine/cluster/forwarding.js";
import type { BindVerdict } from "../../engine/cluster/key-bindings.js";
import { okReply } from "../../engine/shard-protocol/shard-protocol.js";
import { systemTimers } from "../../engine/timers.js";
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
});
