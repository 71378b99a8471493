/**
 * A node's binds to one key home leave one message at a time (engine/cluster/forwarding.ts,
 * decision I68): over a real nats-server, binds queued while one bind message is unanswered wait
 * for its answer and then leave together, as one message; and, with a linger, the message after a
 * busy one waits for company (decision I70). And messages to several owners that are ready in one
 * turn leave together in one turn (decision I71).
 */
import { describe, expect, it } from "vitest";
import { Forwarder, keysSubject, OWNER_MOVED } from "../../engine/cluster/forwarding.js";
import type { BindVerdict } from "../../engine/cluster/key-bindings.js";
import { marketRead, okReply } from "../../engine/shard-protocol/shard-protocol.js";
import type { Transport } from "../../engine/messaging/transport.js";
import { systemTimers, type Timers } from "../../engine/timers.js";
import { SteppedTimers } from "../support/stepped-timers.js";
import { ownerAndSender } from "./support/owner-and-sender.js";

const TIMEOUT_MS = 10_000;
const HOME = 20;

const connections = ownerAndSender();

/** Resolves once `condition` holds (checked every few milliseconds); fails after 20 s saying what it waited for. */
async function until(condition: () => boolean, what = "the condition"): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited 20 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
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
    /** Steps of the test's clock: from the first message's send to its answer, and from that answer to the next send. */
    const ANSWERED_AFTER_MS = 2;
    const SENT_AFTER_ANSWER_MS = 3;
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
    /** Sends one turn's binds and waits until the home holds them. */
    const sendTogether = async (commandIds: string[]): Promise<Array<Promise<unknown>>> => {
      const sent = commandIds.map((commandId) => from.sendBind(HOME + 2, 1, bindOf(commandId)));
      await until(() => commandIds.every((commandId) => held.has(commandId)), commandIds.join(", "));
      return sent;
    };
    /** Not at the home after a moment of real time (a message sent would have arrived). */
    const notSent = async (commandId: string): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(held.has(commandId)).toBe(false);
    };
    try {
      // The first message goes at once; it carries two binds (one turn's), answered a moment later
      // (the stepped clock moves between the send and the answer, so the two can be told apart).
      const first = await sendTogether(["g-1", "g-2"]);
      await timers.step(ANSWERED_AFTER_MS);
      await answer(["g-1", "g-2"], first);

      // After a message of two, the next leaves the linger after that ANSWER (not after its send):
      // sent a little after the answer, it waits out the rest of the linger.
      await timers.step(SENT_AFTER_ANSWER_MS);
      const waiting = from.sendBind(HOME + 2, 1, bindOf("g-3"));
      const restOfLingerMs = LINGER_MS - SENT_AFTER_ANSWER_MS;
      await notSent("g-3");
      await timers.step(restOfLingerMs - 1);
      await notSent("g-3");
      await timers.step(1);
      await until(() => held.has("g-3"), "g-3");
      await answer(["g-3"], [waiting]);

      // After a message of one (a lone client), the next goes at once.
      await answer(["g-4", "g-5"], await sendTogether(["g-4", "g-5"]));

      // After a busy one again, 64 queued binds leave without waiting for the linger.
      const many = Array.from({ length: 64 }, (_, i) => `m-${i}`);
      await answer(many, await sendTogether(many));

      // A sender idle for longer than the linger since a busy answer sends at once.
      await timers.step(LINGER_MS);
      await answer(["g-6"], await sendTogether(["g-6"]));
      expect(timers.pending).toBe(0);
      expect(from.sent.bind).toEqual({ messages: 5, requests: 70 });
    } finally {
      home.close();
    }
  });

  it("answer a message held for company OWNER_MOVED at once when the lease moves past its epoch", async () => {
    const held = new Map<string, (verdict: BindVerdict) => void>();
    const home = new Forwarder(connections.owner.transport, systemTimers, TIMEOUT_MS, () => undefined);
    home.serve(HOME + 3, 1, async () => okReply("{}"), (request) => new Promise<BindVerdict>((resolve) => held.set(request.commandId, resolve)));
    await connections.owner.connection.flush();
    const timers = new SteppedTimers();
    const from = new Forwarder(connections.sender.transport, timers, TIMEOUT_MS, () => undefined, { bindLingerMs: 8 });
    try {
      const busy = [from.sendBind(HOME + 3, 1, bindOf("h-1")), from.sendBind(HOME + 3, 1, bindOf("h-2"))];
      await until(() => held.has("h-1") && held.has("h-2"), "h-1 and h-2");
      held.get("h-1")?.("bound");
      held.get("h-2")?.("bound");
      await Promise.all(busy);
      // Held for company (the clock does not move), then the lease moves: answered without the clock.
      const waiting = from.sendBind(HOME + 3, 1, bindOf("h-3"));
      await new Promise((resolve) => setImmediate(resolve));
      from.ownerMoved(HOME + 3, 2);
      await expect(waiting).resolves.toBe(OWNER_MOVED);
      expect(held.has("h-3")).toBe(false);
      expect(timers.pending).toBe(0);
    } finally {
      home.close();
    }
  });
});

describe("messages to several owners", () => {
  it("ready in one turn, leave together in one turn", async () => {
    const owner = new Forwarder(connections.owner.transport, systemTimers, TIMEOUT_MS, () => undefined);
    for (const partition of [HOME + 10, HOME + 11, HOME + 12]) owner.serve(partition, 1, async () => okReply("{}"), async () => "bound");
    await connections.owner.connection.flush();
    // The sender's turns: each `soon` is counted, and each request names the turn it was sent in.
    let turnsAsked = 0;
    let turn = 0;
    const timers: Timers = {
      ...systemTimers,
      soon: (run) => {
        turnsAsked += 1;
        systemTimers.soon(() => {
          turn += 1;
          run();
        });
      },
    };
    const sentIn: Array<{ subject: string; turn: number }> = [];
    const { transport } = connections.sender;
    const counted: Transport = {
      publish: (subject, data) => transport.publish(subject, data),
      subscribe: (subject, options, onMessage) => transport.subscribe(subject, options, onMessage),
      request: (subject, data, timeoutMs) => {
        sentIn.push({ subject, turn });
        return transport.request(subject, data, timeoutMs);
      },
      watchStatus: (listener) => transport.watchStatus(listener),
    };
    const from = new Forwarder(counted, timers, TIMEOUT_MS, () => undefined, { bindLingerMs: 8 });
    try {
      // Two partitions' forwards and one home's bind, queued in this turn.
      const answers = Promise.all([from.send(HOME + 10, 1, marketRead("m-1")), from.send(HOME + 11, 1, marketRead("m-2")), from.sendBind(HOME + 12, 1, bindOf("c-1"))]);
      await expect(answers).resolves.toEqual([expect.objectContaining({ ok: true }), expect.objectContaining({ ok: true }), "bound"]);
      expect(turnsAsked).toBe(1);
      expect(sentIn.map(({ turn: sentTurn }) => sentTurn)).toEqual([1, 1, 1]);
      expect(new Set(sentIn.map(({ subject }) => subject)).size).toBe(3);
    } finally {
      owner.close();
    }
  });
});
