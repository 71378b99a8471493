/**
 * The 503 messages of the cluster's own making, in plain words (docs/errors.md): what a shard that
 * stopped, and a partition's owner that did not answer, tell the client, checked against the
 * plain-words rule (plainWordsProblem, scripts/plain-words.ts) — and the rule itself
 * against the messages issue 35 found in 503 bodies, which it must refuse.
 */
import { NoRespondersError, RequestError, TimeoutError } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { ownerNotAnswering } from "../../engine/cluster/forwarding.js";
import { messagingErrorOf } from "../../engine/messaging/nats/nats-errors.js";
import { shardRefusal, type ShardStop } from "../../engine/runtime/shard-channel.js";
import { plainWordsProblem } from "../../scripts/plain-words.js";

describe("the plain-words rule", () => {
  it("refuses what issue 35 found in 503 bodies: class names, NATS's error text, doubled prefixes", () => {
    const found = [
      "JournalEpochFencedError: refused: stream partition-2 records epoch 3, and this writer's epoch is 2",
      "partition 1 has no owner answering right now (RequestError: no responders: 'cluster.partition.1'); retry shortly",
      "partition 0: partition 0: this node no longer serves partition 0",
      "partition 0: this node no longer serves partition 0",
      "Error: the JetStream journal partition-3 failed: Error: batch x-1 not acknowledged within the append deadline",
      "partition 5: this node does not bind keys for partition 5 now; retry shortly",
    ];
    expect(found.map((message) => [message, plainWordsProblem(message) !== undefined])).toEqual(found.map((message) => [message, true]));
  });

  it("accepts the service's plain messages", () => {
    for (const message of [
      "the identity log cannot be reached; nothing was recorded, retry later",
      "no acknowledgement within 5000 ms (NATS or a partition's owner is slow or out of reach); retry with the same commandId",
      "this node is cut off from NATS (disconnected); retry shortly",
      "partition 3 has no owner right now; retry shortly",
    ]) {
      expect(plainWordsProblem(message), message).toBeUndefined();
    }
  });
});

describe("a stopped shard's refusal", () => {
  const stops: ShardStop[] = ["fatal", "fenced", "stopped", "closing"];

  it.each(["partition 4", "shard 1"])("names %s once, in plain words, for every way it stops", (name) => {
    for (const why of stops) {
      const message = shardRefusal(name, why);
      expect(plainWordsProblem(message), message).toBeUndefined();
      expect(message.startsWith(`${name} `), message).toBe(true);
    }
  });

  it("tells a takeover from a failure", () => {
    expect(shardRefusal("partition 4", "fenced")).toBe("partition 4 was taken over by another node; retry shortly");
    expect(shardRefusal("partition 4", "fatal")).toBe("partition 4 stopped on this node after a failure; retry shortly");
  });
});

describe("a partition's owner not answering a forwarded request", () => {
  const noResponders = new RequestError("no responders: 'cluster.partition.1.7'", { cause: new NoRespondersError("cluster.partition.1.7") });

  it("says that nobody owns the partition for now, without NATS's words, when nobody listens at the lease's epoch", () => {
    for (const error of [noResponders, new NoRespondersError("cluster.keys.1.7")]) {
      const message = ownerNotAnswering(1, messagingErrorOf(error), 5000);
      expect(message).toBe("partition 1 has no owner right now (it is changing hands); retry shortly");
      expect(plainWordsProblem(message), message).toBeUndefined();
    }
  });

  it("says how long it waited when the owner did not answer in time, and that the same commandId is the way to retry", () => {
    const message = ownerNotAnswering(2, messagingErrorOf(new TimeoutError()), 5000);
    expect(message).toBe("the owner of partition 2 did not answer within 5000 ms; retry with the same commandId");
    expect(plainWordsProblem(message), message).toBeUndefined();
  });

  it("says only that the owner cannot be reached for any other failure, whatever the error says", () => {
    const message = ownerNotAnswering(3, messagingErrorOf(new Error("DrainingConnectionError: connection draining at Object.<anonymous> (nats.js:12)")), 5000);
    expect(message).toBe("the owner of partition 3 cannot be reached now; retry shortly");
    expect(plainWordsProblem(message), message).toBeUndefined();
  });
});
