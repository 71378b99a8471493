/**
 * A shard on a JetStream journal answers reads that replay the journal exactly as a shard on the
 * file journal does: the same commands, the same ManualClock, and then every market's record and
 * every command's old reply (none kept in the reply cache: `replyCacheEntries: 0`) compared as
 * JSON text, byte for byte. Real nats-server cluster (3 nodes, R3 stream, scripts/
 * nats-cluster.ts), real files for the file shard; the JetStream shard's work goes through the
 * shard channel's packing (wire.ts) and a real replay thread (WorkerPool), as in the service.
 * No nats-server binary is a failure (scripts/fetch-nats-server.sh), not a skip.
 */
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { isoFromMs } from "../../engine/index.js";
import { connectForJournals } from "../../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { JetStreamJournal } from "../../engine/journal/jetstream-journal.js";
import { WorkerPool } from "../../engine/pool/worker-pool.js";
import { completeReplayWork } from "../../engine/pool-worker/replay-work.js";
import { ShardCore, openFileShard } from "../../engine/runtime/shard-core.js";
import { jsonText, type ReadRequest, type ReplayWork, type ShardReply, type ShardRequest, type ShardResponse } from "../../engine/shard-protocol/shard-protocol.js";
import { packResponses, unpackResponses } from "../../engine/runtime/wire.js";
import { envelope } from "../../engine/runtime/worker-messages.js";
import { T0, auction, commands, directClaim, request, tempDir } from "../runtime/support.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

let cluster: NatsCluster;
let connection: NatsConnection;
let pool: WorkerPool;
let streams = 0;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  cluster = await NatsCluster.start();
  connection = await connectForJournals(cluster.urls);
  pool = new WorkerPool(1);
});

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

afterAll(async () => {
  await pool?.close();
  await connection?.close();
  await cluster?.stop();
});

const HOLD_SECONDS = 60;

/** A shard on a fresh JetStream stream (or on `name` again: a cold journal object on the same stream). */
async function jetStreamShard(clock: ManualClock, name: string, cacheBytes?: number): Promise<ShardCore> {
  const journal = await JetStreamJournal.open({ messaging: new NatsMessaging(connection), name, ...(cacheBytes === undefined ? {} : { cacheBytes }) });
  const { core } = await ShardCore.open({ journal, shardIndex: 0, clock, replyCacheEntries: 0 });
  cleanups.push(() => core.close());
  return core;
}

async function fileShard(clock: ManualClock): Promise<ShardCore> {
  const dir = tempDir("shard-vs-jetstream");
  cleanups.push(dir.cleanup);
  const { core } = await openFileShard({ dir: dir.dir, shardIndex: 0, clock, replyCacheEntries: 0 });
  cleanups.push(() => core.close());
  return core;
}

/**
 * The commands both shards get, batch by batch: markets whose records interleave across many
 * batches (so a record's entries are spread over stream messages holding other markets'; "hot" is
 * most of the stream, its entries are read in one pass, "quiet" a few entries far apart, read one
 * by one: engine/runtime/entry-payloads.ts),
 * refusals the records hold and refusals only the log holds, and deadlines (hold expiries and an
 * auction's close) that fire as system commands when the clock passes them.
 */
function* script(clock: ManualClock): Generator<ShardRequest[]> {
  yield [
    request(commands.create("alice", "hot", directClaim({ capacity: 150, pricing: { mode: "free" }, confirmation: "none" }))),
    request(commands.publish("alice", "hot")),
    request(commands.create("alice", "held", directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: HOLD_SECONDS }))),
    request(commands.publish("alice", "held")),
    request(commands.create("carol", "sealed", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 30_000), holdDurationSeconds: HOLD_SECONDS }))),
    request(commands.publish("carol", "sealed", 7)), // version_conflict, in the record
    request(commands.publish("carol", "sealed")),
    request(commands.create("alice", "quiet", directClaim({ capacity: 5, pricing: { mode: "free" }, confirmation: "none" }))),
    request(commands.publish("alice", "quiet")),
  ];
  for (let round = 0; round < 40; round += 1) {
    clock.advance(250);
    const batch: ShardRequest[] = [];
    for (let i = 0; i < 1 + (round % 7); i += 1) batch.push(request(commands.claim(`p${round}-${i}`, "hot")));
    if (round % 3 === 0) batch.push(request(commands.claim(`h${round}`, "held")));
    if (round % 4 === 1) batch.push(request(commands.bid(`b${round}`, "sealed", 100 + round * 13)));
    if (round % 9 === 4) batch.push(request(commands.claim(`g${round}`, "ghost"))); // market_not_found: in the log only
    if (round % 11 === 5) batch.push(request(commands.confirm("zed", "c.bTE.9"))); // commitment_not_found: in the log only
    if (round === 20) batch.push(request(commands.claim("once", "quiet")));
    yield batch;
  }
  // Past the holds of "held" and the close of "sealed": both fire at the start of this batch.
  clock.advance(HOLD_SECONDS * 1000);
  yield [request(commands.claim("late", "held")), request(commands.claim("late", "hot"))];
  for (let round = 0; round < 10; round += 1) {
    clock.advance(100);
    yield Array.from({ length: 12 }, (_, i) => request(commands.claim(`q${round}-${i}`, "hot"))); // the hot market fills up
  }
  yield [request(commands.claim("again", "quiet"))];
}

const MARKETS = ["hot", "held", "sealed", "quiet"] as const;
const recordReads = (): ReadRequest[] => MARKETS.map((marketId) => ({ kind: "record", marketId, actorId: marketId === "sealed" ? "carol" : "alice" }));

/** A read's reply as the service finishes it: the shard's own answer, or its replay work done by `finish`. */
async function answerOf(response: ShardResponse | undefined, finish: (work: ReplayWork) => Promise<ShardReply>): Promise<ShardReply> {
  if (response === undefined) throw new Error("no response");
  if (response.kind === "command") throw new Error("a read answered with a command response");
  return response.kind === "read" ? response.reply : finish(response.work);
}

/** The reply with its JSON as text, whichever form it travelled in. */
const textOf = (reply: ShardReply) => (reply.ok ? { ok: true, json: jsonText(reply.json) } : reply);

/** The file shard's replay work, finished in-process (its source is a view of the log files). */
const finishFile = async (work: ReplayWork): Promise<ShardReply> => {
  expect(work.source.from).toBe("log");
  return completeReplayWork(work);
};

/** The JetStream shard's replay work as the service carries it: packed on the shard channel, finished on a replay thread. */
async function finishJetStream(responses: ShardResponse[]): Promise<ShardReply[]> {
  const travelled = unpackResponses(packResponses(responses.map((body, id) => envelope(id, body)))).map((item) => item.body);
  return Promise.all(
    travelled.map((response) =>
      answerOf(response, async (work) => {
        expect(work.source.from).toBe("payloads");
        return pool.replay(work);
      }),
    ),
  );
}

/** How many requests of the JetStream API for stream `name` `during` makes: message reads, and consumers created (a read pass). */
async function requestsDuring(name: string, during: () => Promise<void>): Promise<{ messageReads: number; consumers: number }> {
  const seen = { messageReads: 0, consumers: 0 };
  const subscriptions = [
    connection.subscribe(`$JS.API.STREAM.MSG.GET.${name}`, { callback: () => void (seen.messageReads += 1) }),
    connection.subscribe(`$JS.API.CONSUMER.CREATE.${name}`, { callback: () => void (seen.consumers += 1) }),
    connection.subscribe(`$JS.API.CONSUMER.CREATE.${name}.>`, { callback: () => void (seen.consumers += 1) }),
  ];
  await connection.flush();
  await during();
  await connection.flush();
  for (const subscription of subscriptions) subscription.unsubscribe();
  return seen;
}

const replyAts = (responses: ShardResponse[]): ReadRequest[] =>
  responses.map((response) => {
    if (response.kind !== "command") throw new Error("expected a command response");
    return { kind: "reply-at", position: response.position };
  });

describe("a shard on a JetStream journal", () => {
  it("answers every record and every old reply byte for byte as a shard on the file journal does", async () => {
    const clock = new ManualClock(T0);
    const onFile = await fileShard(clock);
    streams += 1;
    const name = `shard-js-${process.pid}-${streams}`;
    const onStream = await jetStreamShard(clock, name);

    const fileCommands: ShardResponse[] = [];
    const streamCommands: ShardResponse[] = [];
    let batches = 0;
    for (const batch of script(clock)) {
      const [fromFile, fromStream] = [await onFile.processBatch(batch), await onStream.processBatch(batch)];
      fileCommands.push(...fromFile);
      streamCommands.push(...fromStream);
      batches += 1;
    }
    expect(onStream.lastLsn).toBe(onFile.lastLsn);
    expect(onStream.lastLsn).toBeGreaterThan(fileCommands.length); // system commands (expiries, the close) were logged too
    expect(streamCommands.map((response) => response.kind === "command" && textOf(response.reply))).toEqual(fileCommands.map((response) => response.kind === "command" && textOf(response.reply)));

    // Records: replayed from the stream's payloads on a replay thread, from the log files in-process.
    const fileRecords = await Promise.all((await onFile.processBatch(recordReads())).map((response) => answerOf(response, finishFile)));
    const streamRecords = await finishJetStream(await onStream.processBatch(recordReads()));
    expect(streamRecords.map(textOf)).toEqual(fileRecords.map(textOf));
    const hot = JSON.parse(jsonText((fileRecords[0] as { ok: true; json: string }).json)) as { commands: Array<{ type: string }>; integrity: { stateReconstructed: boolean } };
    expect(hot.integrity.stateReconstructed).toBe(true);
    expect(hot.commands.length).toBeGreaterThan(batches); // the hot market's record spans many stream messages
    const sealed = JSON.parse(jsonText((fileRecords[2] as { ok: true; json: string }).json)) as { commands: Array<{ type: string }> };
    expect(sealed.commands.at(-1)?.type).toBe("sealed_auction.resolve");

    // Old replies: none is kept (replyCacheEntries 0), so each is reproduced from the journal.
    const fileReplies = await Promise.all((await onFile.processBatch(replyAts(fileCommands))).map((response) => answerOf(response, finishFile)));
    const streamReplyResponses = await onStream.processBatch(replyAts(streamCommands));
    expect(streamReplyResponses.filter((response) => response.kind === "replay").length).toBeGreaterThan(fileCommands.length / 2);
    const streamReplies = await finishJetStream(streamReplyResponses);
    expect(streamReplies.map(textOf)).toEqual(fileReplies.map(textOf));
    expect(streamReplies.map(textOf)).toEqual(streamCommands.map((response) => response.kind === "command" && textOf(response.reply)));

    // A record read in a batch with claims sees the batch's claims on both.
    const mixed: ShardRequest[] = [request(commands.claim("mix", "held")), recordReads()[1] as ReadRequest];
    clock.advance(5);
    const fileMixed = await onFile.processBatch(mixed);
    const streamMixed = await onStream.processBatch(mixed);
    expect(textOf(await answerOf(streamMixed[1], async (work) => completeReplayWork(work)))).toEqual(textOf(await answerOf(fileMixed[1], finishFile)));

    // A cold journal object on the same stream (its batch cache holds only the newest batch): read from the stream.
    onStream.close();
    const reopened = await jetStreamShard(clock, name, 0);
    const quietReads = await requestsDuring(name, async () => void (await reopened.processBatch([recordReads()[3] as ReadRequest])));
    expect(quietReads.consumers).toBe(0);
    expect(quietReads.messageReads).toBeGreaterThanOrEqual(4);
    const hotReads = await requestsDuring(name, async () => void (await reopened.processBatch([recordReads()[0] as ReadRequest])));
    expect(hotReads.consumers).toBeGreaterThanOrEqual(1);
    expect((await finishJetStream(await reopened.processBatch(recordReads()))).map(textOf)).toEqual(
      (await Promise.all((await onFile.processBatch(recordReads())).map((response) => answerOf(response, finishFile)))).map(textOf),
    );
    expect((await finishJetStream(await reopened.processBatch(replyAts(streamCommands)))).map(textOf)).toEqual(fileReplies.map(textOf));
  }, 120_000);
});
