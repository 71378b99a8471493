/**
 * Two builds in one cluster refuse each other instead of misreading (docs/cluster.md, "Upgrading:
 * the whole cluster stops"; engine/cluster/inter-node-wire.ts): over a real nats-server, nodes
 * speaking two inter-node wire versions forward, bind and relay to each other, and every message
 * of the other version is refused in plain words, never decoded or acted on. The same calls
 * between nodes of one version go through, so a refusal here is the version's doing.
 */
import { describe, expect, it } from "vitest";
import { EventRelay } from "../../engine/cluster/event-relay.js";
import { Forwarder } from "../../engine/cluster/forwarding.js";
import { INTER_NODE_WIRE_VERSION, interNodeHeader, OWN_INTER_NODE_HEADER } from "../../engine/cluster/inter-node-wire.js";
import { CHANNEL_STRUCTURES } from "../../engine/runtime/wire.js";
import { marketRead, okReply, type EmittedEvent, type ShardRequest } from "../../engine/shard-protocol/shard-protocol.js";
import { UnavailableError } from "../../engine/runtime/unavailable.js";
import { plainWordsProblem } from "../../scripts/plain-words.js";
import { systemTimers } from "../../engine/timers.js";
import { ownerAndSender } from "./support/owner-and-sender.js";

const OWN = OWN_INTER_NODE_HEADER;
/** A build that bumped the wire version (a change to the binding or relay arrays). */
const OTHER_VERSION = interNodeHeader(INTER_NODE_WIRE_VERSION + 1);
/** A build of the same version whose commands have another member (the shard channel's records differ). */
const OTHER_LAYOUT = interNodeHeader(INTER_NODE_WIRE_VERSION, [...CHANNEL_STRUCTURES, ["commandId", "principalId", "addedMember"]]);
const TIMEOUT_MS = 5_000;

const connections = ownerAndSender();

/** An owner serving `partition` at epoch 1 that records what it was asked and what it reported. */
async function servingOwner(partition: number, header: Uint8Array) {
  const handled: ShardRequest[] = [];
  const bound: string[] = [];
  const reported: string[] = [];
  const forwarder = new Forwarder(connections.owner.transport, systemTimers, TIMEOUT_MS, (_partition, error) => reported.push(String(error)), { wireHeader: header });
  forwarder.serve(
    partition,
    1,
    async (request) => {
      handled.push(request);
      return okReply('{"answered":true}');
    },
    async (request) => {
      bound.push(request.commandId);
      return "bound";
    },
  );
  // The subscriptions reach the server before anyone sends (they are on another connection).
  await connections.owner.connection.flush();
  return { forwarder, handled, bound, reported };
}

function senderOf(header: Uint8Array): Forwarder {
  return new Forwarder(connections.sender.transport, systemTimers, TIMEOUT_MS, () => undefined, { wireHeader: header });
}

async function refusal(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UnavailableError);
  return (error as UnavailableError).message;
}

describe("forwarded requests and key bindings between two builds", () => {
  it("go through between nodes of one build", async () => {
    const served = await servingOwner(10, OWN);
    try {
      const from = senderOf(OWN);
      await expect(from.send(10, 1, marketRead("m-1"))).resolves.toMatchObject({ ok: true, json: '{"answered":true}' });
      await expect(from.sendBind(10, 1, { actorId: "a", commandId: "c-1", fingerprint: "f", marketPartition: 3 })).resolves.toBe("bound");
      expect(served.handled).toEqual([marketRead("m-1")]);
      expect(served.bound).toEqual(["c-1"]);
    } finally {
      served.forwarder.close();
    }
  });

  it.each([
    ["an older build sends to a newer owner", 11, OWN, OTHER_VERSION],
    ["a newer build sends to an older owner", 12, OTHER_VERSION, OWN],
    ["a build whose commands gained a member sends to one without it", 13, OTHER_LAYOUT, OWN],
  ])("are refused, not executed, when %s", async (_case, partition, senderHeader, ownerHeader) => {
    const served = await servingOwner(partition, ownerHeader);
    try {
      const from = senderOf(senderHeader);
      const forwarded = await refusal(from.send(partition, 1, marketRead("m-2")));
      const binding = await refusal(from.sendBind(partition, 1, { actorId: "a", commandId: "c-2", fingerprint: "f", marketPartition: 3 }));
      for (const message of [forwarded, binding]) {
        expect(message).toContain("different builds");
        expect(message).toContain(`wire version ${String(senderHeader[1])}`);
        expect(plainWordsProblem(message), message).toBeUndefined();
      }
      expect(served.handled).toEqual([]);
      expect(served.bound).toEqual([]);
      // Reported once per partition and kind of refusal, however many messages are refused.
      expect(served.reported).toHaveLength(1);
    } finally {
      served.forwarder.close();
    }
  });

  it("refuses a request with no header at all (a build from before versioned messages)", async () => {
    const served = await servingOwner(14, OWN);
    try {
      const reply = await connections.sender.transport.request("cluster.partition.14.1", Uint8Array.from([0x96, 1, 2, 3, 4, 5, 6]), TIMEOUT_MS);
      expect(reply.data.length).toBe(0);
      const message = reply.headers?.get("Market-Service-Unavailable") ?? "";
      expect(message).toContain("older than versioned messages");
      expect(plainWordsProblem(message), message).toBeUndefined();
      expect(served.handled).toEqual([]);
    } finally {
      served.forwarder.close();
    }
  });

  it("refuses a reply of another build, never reading it as an answer", async () => {
    // An owner that answers every request with a body of no known header (what a build from before
    // versioned messages would send back).
    const rogue = connections.owner.transport.subscribe("cluster.partition.15.1", { queue: "owner" }, (message) => message.respond(Uint8Array.from([0x91, 0x01])));
    await connections.owner.connection.flush();
    try {
      const message = await refusal(senderOf(OWN).send(15, 1, marketRead("m-4")));
      expect(message).toContain("different builds");
    } finally {
      rogue.unsubscribe();
    }
  });
});

describe("relayed live events between two builds", () => {
  const event = { marketId: "m-3" } as unknown as EmittedEvent;

  async function relayed(publisherHeader: Uint8Array, followerHeader: Uint8Array): Promise<{ events: number; moved: number[]; errors: string[] }> {
    const seen = { events: 0, moved: [] as number[], errors: [] as string[] };
    const follower = new EventRelay(
      connections.sender.transport,
      { events: (events) => (seen.events += events.length), moved: (partition) => seen.moved.push(partition) },
      (error) => seen.errors.push(String(error)),
      followerHeader,
    );
    const publisher = new EventRelay(connections.owner.transport, { events: () => undefined, moved: () => undefined }, () => undefined, publisherHeader);
    follower.follow(13);
    await connections.sender.connection.flush();
    publisher.publishEvents(13, [event]);
    await connections.owner.connection.flush();
    await expect.poll(() => seen.events + seen.moved.length, { timeout: TIMEOUT_MS }).toBe(1);
    follower.close();
    publisher.close();
    return seen;
  }

  it("reach a follower of the same version", async () => {
    expect(await relayed(OWN, OWN)).toEqual({ events: 1, moved: [], errors: [] });
  });

  it.each([
    ["a newer build publishes to an older follower", OTHER_VERSION, OWN],
    ["an older build publishes to a newer follower", OWN, OTHER_VERSION],
  ])("end the follower's streams on the partition, as a move does, when %s", async (_case, publisherHeader, followerHeader) => {
    const seen = await relayed(publisherHeader, followerHeader);
    expect(seen.events).toBe(0);
    expect(seen.moved).toEqual([13]);
    expect(seen.errors.join("\n")).toContain("different builds");
  });
});
