/**
 * The gateway's side of a shard (ShardChannel): each request's answer reaches that request, in
 * whatever order the shard answers; a request's id is a slot given back once it is answered, so ids
 * stay as few as the requests in flight (decision I65); and an answer for a request that is not
 * waiting stops the channel instead of answering another request. A fake shard thread that records
 * what it is sent and answers when the test says.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { ShardChannel } from "../../engine/runtime/shard-channel.js";
import type { ShardThread } from "../../engine/runtime/shard-thread.js";
import { packResponses, unpackRequests } from "../../engine/runtime/wire.js";
import { envelope, type Envelope, type FromShard, type ShardWorkerData, type ToShard } from "../../engine/runtime/worker-messages.js";
import { marketRead, type ShardRecoveryReport, type ShardRequest, type ShardResponse } from "../../engine/shard-protocol/shard-protocol.js";
import { systemTimers } from "../../engine/timers.js";

/** A shard thread that answers `open` with `ready` and keeps every batch it is sent. */
class FakeShardThread extends EventEmitter implements ShardThread {
  readonly batches: Array<Array<Envelope<ShardRequest>>> = [];

  postMessage(message: ToShard): void {
    if (message.t === "open") queueMicrotask(() => this.emit("message", { t: "ready", report: {} as ShardRecoveryReport, idempotency: { actorIds: [], commandIds: [], fingerprints: [], positions: [] } } satisfies FromShard));
    if (message.t === "batch") this.batches.push(unpackRequests(message.items));
  }

  /** The shard answers these requests (by id) with a read reply naming the market each asked for. */
  answer(items: ReadonlyArray<Envelope<ShardRequest>>): void {
    const answers = items.map((item) => envelope<ShardResponse>(item.id, { kind: "read", reply: { ok: true, json: JSON.stringify({ asked: (item.body as { marketId: string }).marketId }) } }));
    this.emit("message", { t: "answers", items: packResponses(answers) } satisfies FromShard);
  }

  async terminate(): Promise<number> {
    this.emit("exit", 1);
    return 1;
  }

  /** The `count`-th batch, once the channel has sent it (a turn's requests leave together, in the next). */
  async batch(count: number): Promise<Array<Envelope<ShardRequest>>> {
    for (let turns = 0; this.batches.length < count; turns += 1) {
      if (turns > 1000) throw new Error(`batch ${count} was never sent`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return this.batches[count - 1] ?? [];
  }
}

const DATA: ShardWorkerData = { journal: { kind: "file", dir: "unused", reportIdempotencyAfterLsn: 0 }, shardIndex: 0, clockMode: "controlled", startMs: 0, tickIntervalMs: 100 };

async function channelOn(thread: FakeShardThread, fatal: string[] = []): Promise<ShardChannel> {
  const started = await ShardChannel.start(thread, DATA, new ManualClock(0), { onFatal: (message) => fatal.push(message), onFenced: () => undefined }, systemTimers);
  return started.channel;
}

function askedOf(response: ShardResponse): string {
  if (response.kind !== "read" || !response.reply.ok) throw new Error("expected a read reply");
  return (JSON.parse(String(response.reply.json)) as { asked: string }).asked;
}

describe("ShardChannel", () => {
  it("gives each request its own answer, whatever the order the shard answers in", async () => {
    const thread = new FakeShardThread();
    const channel = await channelOn(thread);
    const replies = ["m-0", "m-1", "m-2", "m-3"].map((marketId) => channel.request(marketRead(marketId)));
    const batch = await thread.batch(1);
    expect(batch).toHaveLength(4);
    thread.answer([batch[2], batch[0]].filter((item) => item !== undefined));
    thread.answer([batch[3], batch[1]].filter((item) => item !== undefined));
    expect((await Promise.all(replies)).map(askedOf)).toEqual(["m-0", "m-1", "m-2", "m-3"]);
    expect(channel.pending).toBe(0);
  });

  it("reuses an answered request's slot, so the slots ids name stay as few as the requests in flight", async () => {
    const thread = new FakeShardThread();
    const channel = await channelOn(thread);
    const ids = new Set<number>();
    for (let round = 0; round < 50; round += 1) {
      const replies = [channel.request(marketRead(`a-${round}`)), channel.request(marketRead(`b-${round}`))];
      const batch = await thread.batch(round + 1);
      for (const item of batch) ids.add(item.id % 2 ** 20);
      thread.answer(batch);
      expect((await Promise.all(replies)).map(askedOf)).toEqual([`a-${round}`, `b-${round}`]);
    }
    expect(ids.size).toBe(2);
  });

  it("stops when a late second answer names an earlier use of a slot a new request now holds", async () => {
    const thread = new FakeShardThread();
    const fatal: string[] = [];
    const channel = await channelOn(thread, fatal);
    const first = channel.request(marketRead("m-0"));
    const [firstItem] = await thread.batch(1);
    if (firstItem === undefined) throw new Error("no request sent");
    thread.answer([firstItem]);
    expect(askedOf(await first)).toBe("m-0");
    const second = channel.request(marketRead("m-1"));
    const [secondItem] = await thread.batch(2);
    expect(secondItem?.id).not.toBe(firstItem.id);
    expect((secondItem?.id ?? 0) % 2 ** 20).toBe(firstItem.id % 2 ** 20);
    thread.answer([firstItem]); // the first request's answer again: not the second's
    await expect(second).rejects.toThrow(/shard 0 stopped on this node/);
    expect(fatal).toEqual([`the shard answered request ${firstItem.id}, which was not waiting`]);
  });

  it("refuses what still waits when the worker ends while closing, rather than leaving it hanging", async () => {
    const thread = new FakeShardThread();
    const channel = await channelOn(thread);
    const waiting = channel.request(marketRead("m-0"));
    await thread.batch(1);
    const closed = channel.close();
    thread.emit("exit", 1);
    await expect(waiting).rejects.toThrow(/shard 0 is closing on this node/);
    await expect(closed).resolves.toBeUndefined();
  });

  it("stops when the shard answers a request that is not waiting, refusing what waits instead of answering it", async () => {
    const thread = new FakeShardThread();
    const fatal: string[] = [];
    const channel = await channelOn(thread, fatal);
    const first = channel.request(marketRead("m-0"));
    const second = channel.request(marketRead("m-1"));
    const [firstItem] = await thread.batch(1);
    if (firstItem === undefined) throw new Error("no request sent");
    thread.answer([firstItem]);
    expect(askedOf(await first)).toBe("m-0");
    thread.answer([firstItem]);
    await expect(second).rejects.toThrow(/shard 0 stopped on this node/);
    expect(fatal).toEqual([`the shard answered request ${firstItem.id}, which was not waiting`]);
    expect(channel.accepting).toBe(false);
    await expect(channel.request(marketRead("m-2"))).rejects.toThrow(/shard 0 stopped/);
  });
});
