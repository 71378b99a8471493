/**
 * Two builds in one cluster refuse each other instead of misreading (docs/cluster.md, "Upgrading:
 * the whole cluster stops"; engine/cluster/inter-node-wire.ts): over a real nats-server, nodes
 * speaking two inter-node wire versions forward, bind and relay to each other, and every message
 * of the other version is refused in plain words, never decoded or acted on. The same calls
 * between nodes of one version go through, so a refusal here is the version's doing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventRelay } from "../../engine/cluster/event-relay.js";
import { Forwarder } from "../../engine/cluster/forwarding.js";
import { INTER_NODE_WIRE_VERSION } from "../../engine/cluster/inter-node-wire.js";
import { connectMessaging, type NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { marketRead, okReply, type EmittedEvent, type ShardRequest } from "../../engine/runtime/shard-protocol.js";
import { plainWordsProblem, UnavailableError } from "../../engine/runtime/unavailable.js";
import { systemTimers } from "../../engine/timers.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

const OTHER_VERSION = INTER_NODE_WIRE_VERSION + 1;
const TIMEOUT_MS = 5_000;

let nats: NatsCluster;
let owner: NatsMessaging;
let sender: NatsMessaging;

beforeAll(async () => {
  nats = await NatsCluster.start();
  const url = nats.nodes[0]?.url as string;
  owner = await connectMessaging([url], "owner");
  sender = await connectMessaging([url], "sender");
}, 90_000);

afterAll(async () => {
  await owner?.close();
  await sender?.close();
  await nats?.stop();
});

/** An owner serving `partition` at epoch 1 that records what it was asked and what it reported. */
async function servingOwner(partition: number, version: number) {
  const handled: ShardRequest[] = [];
  const bound: string[] = [];
  const reported: string[] = [];
  const forwarder = new Forwarder(owner.transport, systemTimers, TIMEOUT_MS, (_partition, error) => reported.push(String(error)), version);
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
  await owner.connection.flush();
  return { forwarder, handled, bound, reported };
}

function senderOf(version: number): Forwarder {
  return new Forwarder(sender.transport, systemTimers, TIMEOUT_MS, () => undefined, version);
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
  it("go through between nodes of one version", async () => {
    const served = await servingOwner(10, INTER_NODE_WIRE_VERSION);
    const from = senderOf(INTER_NODE_WIRE_VERSION);
    await expect(from.send(10, 1, marketRead("m-1"))).resolves.toMatchObject({ ok: true, json: '{"answered":true}' });
    await expect(from.sendBind(10, 1, { actorId: "a", commandId: "c-1", fingerprint: "f", marketPartition: 3 })).resolves.toBe("bound");
    expect(served.handled).toEqual([marketRead("m-1")]);
    expect(served.bound).toEqual(["c-1"]);
    served.forwarder.close();
  });

  it.each([
    ["an older build sends to a newer owner", INTER_NODE_WIRE_VERSION, OTHER_VERSION],
    ["a newer build sends to an older owner", OTHER_VERSION, INTER_NODE_WIRE_VERSION],
  ])("are refused, not executed, when %s", async (_case, senderVersion, ownerVersion) => {
    const served = await servingOwner(11, ownerVersion);
    const from = senderOf(senderVersion);
    const forwarded = await refusal(from.send(11, 1, marketRead("m-2")));
    const binding = await refusal(from.sendBind(11, 1, { actorId: "a", commandId: "c-2", fingerprint: "f", marketPartition: 3 }));
    for (const message of [forwarded, binding]) {
      expect(message).toContain("different builds");
      expect(message).toContain(`version ${senderVersion}`);
      expect(plainWordsProblem(message), message).toBeUndefined();
    }
    expect(served.handled).toEqual([]);
    expect(served.bound).toEqual([]);
    expect(served.reported).toHaveLength(2);
    served.forwarder.close();
  });

  it("refuses a request with no version at all (a build from before versioned messages)", async () => {
    const served = await servingOwner(12, INTER_NODE_WIRE_VERSION);
    const reply = await sender.transport.request("cluster.partition.12.1", Uint8Array.from([0x91, 0x01]), TIMEOUT_MS);
    expect(reply.data.length).toBe(0);
    expect(reply.headers?.get("Market-Service-Unavailable")).toContain("no version");
    expect(served.handled).toEqual([]);
    served.forwarder.close();
  });
});

describe("relayed live events between two builds", () => {
  const event = { marketId: "m-3" } as unknown as EmittedEvent;

  async function relayed(publisherVersion: number, followerVersion: number): Promise<{ events: number; moved: number[]; errors: string[] }> {
    const seen = { events: 0, moved: [] as number[], errors: [] as string[] };
    const follower = new EventRelay(
      sender.transport,
      { events: (events) => (seen.events += events.length), moved: (partition) => seen.moved.push(partition) },
      (error) => seen.errors.push(String(error)),
      followerVersion,
    );
    const publisher = new EventRelay(owner.transport, { events: () => undefined, moved: () => undefined }, () => undefined, publisherVersion);
    follower.follow(13);
    await sender.connection.flush();
    publisher.publishEvents(13, [event]);
    await owner.connection.flush();
    await expect.poll(() => seen.events + seen.moved.length, { timeout: TIMEOUT_MS }).toBe(1);
    follower.close();
    publisher.close();
    return seen;
  }

  it("reach a follower of the same version", async () => {
    expect(await relayed(INTER_NODE_WIRE_VERSION, INTER_NODE_WIRE_VERSION)).toEqual({ events: 1, moved: [], errors: [] });
  });

  it("end the follower's streams on the partition, as a move does, when the versions differ", async () => {
    const seen = await relayed(OTHER_VERSION, INTER_NODE_WIRE_VERSION);
    expect(seen.events).toBe(0);
    expect(seen.moved).toEqual([13]);
    expect(seen.errors.join("\n")).toContain("different builds");
  });
});
