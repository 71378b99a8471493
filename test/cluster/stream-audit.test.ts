/**
 * Audit from a partition's stream (issue 27), through the built command line as a real process
 * (`node dist/gateway/cli/cli.js`; `npm test` builds dist/ first, run `npm run build` before running
 * this file alone) on a real 3-node nats-server cluster.
 *
 * The same commands go through two ShardCores with one ManualClock: one on a FileJournal (a data
 * directory's shard 00), one on JetStreamJournals on stream `partition-0` whose ownership changes
 * twice (claims of epochs 1, 2 and 3, the second owner recovering from the first's snapshot). Then
 * `replay` and `verify` of the data directory, of the live stream and of its export must print the
 * same market lines (record hashes) and the records the service itself renders; a damaged export
 * or stream fails `verify`, naming the place. No nats-server binary is a failure, not a skip.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoFromMs } from "../../engine/index.js";
import { ManualClock } from "../../engine/clock.js";
import { connectForJournals } from "../../engine/messaging/nats/connect.js";
import { NatsMessaging } from "../../engine/messaging/nats/nats-messaging.js";
import { DEFAULT_SNAPSHOT_BUCKET, JetStreamJournal } from "../../engine/journal/jetstream-journal.js";
import { decodeBatch, encodeBatch } from "../../engine/journal/jetstream-batch.js";
import { openFileShard, ShardCore } from "../../engine/runtime/shard-core.js";
import type { ShardRequest } from "../../engine/shard-protocol/shard-protocol.js";
import { crc32c } from "../../storage/crc32c.js";
import { SegmentLog } from "../../storage/index.js";
import { genesisChainHash } from "../../storage/hash-chain.js";
import { CLI_JS } from "../process/support.js";
import { T0, auction, commands, directClaim, okJson, request } from "../runtime/support.js";
import { NatsCluster } from "../../scripts/nats-cluster.js";

const STREAM = "partition-0";
const MARKETS = ["dock-a", "dock-b", "lot-1"];

let cluster: NatsCluster;
let connection: NatsConnection;
let workDir: string;
let dataDir: string;
let exportFile: string;
/** Each market's record as the file-journal shard rendered it while serving. */
const liveRecords = new Map<string, { recordHash: string; json: string }>();

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to its end; never rejects (a non-zero exit is returned). */
function cli(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_JS, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const live = (): string[] => ["--nats", cluster.urls.join(","), "--stream", STREAM];

/** The same batch on both shards (the same request objects: the same command ids and fingerprints). */
async function both(file: ShardCore, stream: ShardCore, requests: ShardRequest[]): Promise<void> {
  const fromFile = await file.processBatch(requests);
  const fromStream = await stream.processBatch(requests);
  // Both decided alike (replies to commands carry positions, which differ between journals: compare kinds and codes).
  const outcome = (response: unknown): unknown => JSON.stringify(response).replace(/"position":\d+/g, "");
  expect(fromStream.map(outcome)).toEqual(fromFile.map(outcome));
}

async function openStreamOwner(epoch: number, clock: ManualClock): Promise<{ journal: JetStreamJournal; core: ShardCore; connection: NatsConnection }> {
  const own = await connectForJournals(cluster.urls);
  const journal = await JetStreamJournal.open({ messaging: new NatsMessaging(own), name: STREAM });
  // A new owner claims first, then reads the state it serves from.
  await journal.claim(epoch);
  const { core } = await ShardCore.open({ journal, shardIndex: 0, clock });
  return { journal, core, connection: own };
}

beforeAll(async () => {
  if (!existsSync(path.join(path.dirname(CLI_JS), "stream-audit.js"))) throw new Error(`${CLI_JS} is not built with the stream audit: run npm run build`);
  cluster = await NatsCluster.start();
  connection = await connectForJournals(cluster.urls);
  workDir = mkdtempSync(path.join(tmpdir(), "ms-stream-audit-"));
  dataDir = path.join(workDir, "data");
  const shardDir = path.join(dataDir, "shards", "00");
  exportFile = path.join(workDir, "partition-0.jsx");

  const clock = new ManualClock(T0);
  let file = (await openFileShard({ dir: shardDir, shardIndex: 0, clock })).core;
  let owner = await openStreamOwner(1, clock);
  const step = async (requests: ShardRequest[]): Promise<void> => {
    clock.advance(7);
    await both(file, owner.core, requests);
  };
  await step([
    request(commands.create("alice", "dock-a", directClaim({ capacity: 3, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: 60 }))),
    request(commands.publish("alice", "dock-a")),
    request(commands.create("alice", "lot-1", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 60_000), holdDurationSeconds: 60 }))),
    request(commands.publish("alice", "lot-1")),
  ]);
  for (let i = 0; i < 4; i++) await step([request(commands.claim(`p${i}`, "dock-a")), request(commands.bid(`b${i}`, "lot-1", 1_000 + 250 * i))]);
  await file.snapshot();
  await owner.core.snapshot();
  await step([request(commands.create("alice", "dock-b", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" }))), request(commands.publish("alice", "dock-b"))]);

  // The owner changes: the stream's second owner claims (epoch 2) and recovers from the snapshot and
  // the stream's suffix; the file shard restarts on its directory.
  owner.core.close();
  await owner.connection.close();
  file.close();
  file = (await openFileShard({ dir: shardDir, shardIndex: 0, clock })).core;
  owner = await openStreamOwner(2, clock);
  await step([request(commands.claim("q1", "dock-b")), request(commands.claim("q2", "dock-b")), request(commands.claim("p9", "dock-a"))]);
  // The auction closes at its deadline: a system command each shard logs from its timer wheel.
  clock.advance(60_000);
  expect(await file.tick()).toBe(await owner.core.tick());
  await step([request(commands.claim("p10", "dock-a"))]);
  for (const marketId of MARKETS) {
    const record = okJson((await file.processBatch([{ kind: "record", marketId, actorId: "alice" }]))[0]);
    liveRecords.set(marketId, { recordHash: record.integrity.recordHash, json: JSON.stringify(record) });
  }
  file.close();
  owner.core.close();
  await owner.connection.close();
  // A third owner takes over and has not written yet: the stream ends with its claim.
  const third = await connectForJournals(cluster.urls);
  const last = await JetStreamJournal.open({ messaging: new NatsMessaging(third), name: STREAM });
  await last.claim(3);
  await last.close();
  await third.close();
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await cluster?.stop();
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

describe("replay and verify from a partition's stream", () => {
  it("prints the same market lines from the data directory, the live stream and its export, with the service's record hashes", async () => {
    const fromDir = await cli(["replay", "--data", dataDir, "--threads", "1"]);
    expect(fromDir.code, fromDir.stderr).toBe(0);
    const fromStream = await cli(["replay", ...live()]);
    expect(fromStream.code, fromStream.stderr).toBe(0);
    const exported = await cli(["export-stream", ...live(), "--out", exportFile]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/exported \d+ message\(s\) of stream partition-0/);
    const fromExport = await cli(["replay", "--stream-export", exportFile]);
    expect(fromExport.code, fromExport.stderr).toBe(0);

    expect(fromStream.stdout).toBe(fromDir.stdout);
    expect(fromExport.stdout).toBe(fromDir.stdout);
    const lines = fromDir.stdout.trim().split("\n");
    expect(lines).toHaveLength(MARKETS.length);
    for (const marketId of MARKETS) {
      expect(lines.some((line) => line.startsWith(`${liveRecords.get(marketId)?.recordHash}  ${marketId}  (`))).toBe(true);
    }
    // The stream shows its three owners' claims.
    expect(fromStream.stderr).toMatch(/stream partition-0 \(partition 0\): \d+ message\(s\), 3 owner claim\(s\), last epoch 3, chain head [0-9a-f]{64}/);
    const streamChainHead = fromStream.stderr.match(/chain head ([0-9a-f]{64})/)?.[1];
    expect(fromExport.stderr.match(/chain head ([0-9a-f]{64})/)?.[1]).toBe(streamChainHead);
    // One chain rule for both journals, over the same entries: the stream's head is the file log's.
    const log = SegmentLog.open({ dir: path.join(dataDir, "shards", "00") });
    try {
      expect(log.chainHead.toString("hex")).toBe(streamChainHead);
    } finally {
      log.close();
    }
  });

  it("renders a market's full record from the stream byte for byte as from the data directory and as the service did", async () => {
    for (const marketId of MARKETS) {
      const fromDir = await cli(["replay", "--data", dataDir, "--market", marketId, "--json"]);
      const fromStream = await cli(["replay", ...live(), "--market", marketId, "--json"]);
      expect(fromStream.code, fromStream.stderr).toBe(0);
      expect(fromStream.stdout).toBe(fromDir.stdout);
      expect(fromStream.stdout.trim()).toBe(liveRecords.get(marketId)?.json);
    }
    const missing = await cli(["replay", ...live(), "--market", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no market "nope" in stream partition-0/);
  });

  it("verifies the data directory, the live stream (with its snapshot) and the export alike", async () => {
    const fromDir = await cli(["verify", "--data", dataDir, "--threads", "1"]);
    expect(fromDir.code, fromDir.stderr).toBe(0);
    const fromStream = await cli(["verify", ...live()]);
    expect(fromStream.code, fromStream.stderr).toBe(0);
    expect(fromStream.stderr).toMatch(/verified \d+ commands from 1 shard\(s\).*; 1 snapshot\(s\) matched/);
    if (!existsSync(exportFile)) expect((await cli(["export-stream", ...live(), "--out", exportFile])).code).toBe(0);
    const fromExport = await cli(["verify", "--stream-export", exportFile]);
    expect(fromExport.code, fromExport.stderr).toBe(0);
    expect(fromStream.stdout).toBe(fromDir.stdout);
    expect(fromExport.stdout).toBe(fromDir.stdout);
    const json = JSON.parse((await cli(["verify", "--stream-export", exportFile, "--json"])).stdout) as { ok: boolean; stream: { claims: number; lastEpoch: number } };
    expect(json).toMatchObject({ ok: true, stream: { claims: 3, lastEpoch: 3 } });
  });

  it("fails verify on a flipped byte of an export, naming the byte offset and the message", async () => {
    if (!existsSync(exportFile)) expect((await cli(["export-stream", ...live(), "--out", exportFile])).code).toBe(0);
    const bytes = readFileSync(exportFile);
    const records = recordsOf(bytes);
    const target = records[3] as ExportRecord;
    const damaged = path.join(workDir, "damaged.jsx");
    const flipped = Buffer.from(bytes);
    const at = target.bodyOffset + target.bodyLength - 1;
    flipped[at] = (flipped[at] as number) ^ 0x01;
    writeFileSync(damaged, flipped);
    const verify = await cli(["verify", "--stream-export", damaged]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain(`verify: FAILED: export file ${damaged}, byte offset ${target.offset}: the record of message 4: it fails its CRC`);
    const replay = await cli(["replay", "--stream-export", damaged]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(/byte offset \d+: the record of message 4/);

    // The same flip with the record's CRC made to match: the hash chain still finds it.
    const rechecked = Buffer.from(flipped);
    rechecked.writeUInt32LE(crc32c(rechecked.subarray(target.offset + 8, target.bodyOffset + target.bodyLength)), target.offset + 4);
    const edited = path.join(workDir, "edited.jsx");
    writeFileSync(edited, rechecked);
    const chainVerify = await cli(["verify", "--stream-export", edited]);
    expect(chainVerify.code).toBe(1);
    expect(chainVerify.stderr).toContain("verify: FAILED: stream partition-0, message at stream sequence 4: the hash chain breaks");

    // A truncated export: the header announces more messages than the file holds.
    const truncated = path.join(workDir, "truncated.jsx");
    writeFileSync(truncated, bytes.subarray(0, (records.at(-1) as ExportRecord).offset));
    const cut = await cli(["verify", "--stream-export", truncated]);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(new RegExp(`the record of message ${records.length}: the file ends before it`));
    // A flipped byte in the header.
    const header = Buffer.from(bytes);
    header[20] = (header[20] as number) ^ 0x20;
    const headerFile = path.join(workDir, "header.jsx");
    writeFileSync(headerFile, header);
    expect((await cli(["verify", "--stream-export", headerFile])).stderr).toMatch(/byte offset 12: the header fails its CRC/);
  });

  it("fails verify of a live stream whose chain breaks or whose claim does not raise the epoch, naming the stream sequence", async () => {
    const forge = async (name: string, body: Uint8Array): Promise<void> => {
      const journal = await JetStreamJournal.open({ messaging: new NatsMessaging(connection), name });
      await journal.claim(1);
      await journal.close();
      // A message stored by something that is not a journal, after the claim.
      await jetstream(connection).publish(`journal.${name}`, body, { expect: { lastSequence: 1 } });
    };
    await forge("partition-5", encodeBatch({ epoch: 1, firstSequence: 1, previousChain: Buffer.alloc(32, 1) }, [Buffer.from("x")]));
    const chain = await cli(["verify", "--nats", cluster.urls.join(","), "--stream", "partition-5"]);
    expect(chain.code).toBe(1);
    expect(chain.stderr).toContain("verify: FAILED: stream partition-5, message at stream sequence 2: the hash chain breaks");
    await forge("partition-6", encodeBatch({ epoch: 1, firstSequence: 1, previousChain: genesisChainHash() }, []));
    const epoch = await cli(["verify", "--nats", cluster.urls.join(","), "--stream", "partition-6"]);
    expect(epoch.code).toBe(1);
    expect(epoch.stderr).toContain("verify: FAILED: stream partition-6, message at stream sequence 2: a claim of epoch 1 does not raise the epoch 1");
    // An audit changes nothing.
    const jsm = await jetstreamManager(connection);
    expect((await jsm.streams.info("partition-6")).state.messages).toBe(2);
  });

  it("fails verify of a live stream whose newest snapshot object cannot be read, after verifying every message", async () => {
    const name = "partition-7";
    const messaging = new NatsMessaging(connection);
    const journal = await JetStreamJournal.open({ messaging, name });
    await journal.claim(1);
    await journal.close();
    // Bytes that are no snapshot at all, under the name of a snapshot at the stream's last entry (0: it holds only the claim).
    const objects = await messaging.jetStream(2_000).objects.create(DEFAULT_SNAPSHOT_BUCKET, { replicas: 3, description: "test" });
    const garbage = async (sequence: number): Promise<void> => objects.putBlob(`${name}/${String(sequence).padStart(16, "0")}`, new TextEncoder().encode("not a snapshot")).then(() => undefined);
    await garbage(0);
    const verify = await cli(["verify", "--nats", cluster.urls.join(","), "--stream", name]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(/verify: FAILED: stream partition-7: its newest snapshot cannot be read \(snapshot object partition-7\/0{16} has no JSS1 envelope\); every message of the stream verified, and a new owner, which has no older snapshot to start from, replays the stream/);
    // replay does not read snapshots.
    expect((await cli(["replay", "--nats", cluster.urls.join(","), "--stream", name])).code).toBe(0);
    // One named beyond the stream's end: a new owner refuses the open (engine/journal/jetstream-journal.ts), and verify says so.
    await garbage(5);
    const beyond = await cli(["verify", "--nats", cluster.urls.join(","), "--stream", name]);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain("its name's sequence 5 is beyond the stream's last entry 0: a new owner refuses to open the stream");
    await expect(JetStreamJournal.open({ messaging, name })).rejects.toThrow(/newer than stream partition-7/);

    // A stream with an older snapshot that can be read: that one is compared, as a new owner would start from it.
    const stored = (await objects.list()).filter((info) => !info.deleted && info.name.startsWith(`${STREAM}/`)).map((info) => Number(info.name.slice(STREAM.length + 1)));
    expect(stored).toHaveLength(1);
    const newer = `${STREAM}/${String((stored[0] as number) + 1).padStart(16, "0")}`;
    await objects.putBlob(newer, new TextEncoder().encode("not a snapshot"));
    try {
      const withOlder = await cli(["verify", ...live()]);
      expect(withOlder.code).toBe(1);
      expect(withOlder.stderr).toContain(`verify: FAILED: stream ${STREAM}: its newest snapshot cannot be read (snapshot object ${newer} has no JSS1 envelope); every message of the stream verified, and the snapshot before it (sequence ${String(stored[0])}), which a new owner tries instead, matched`);
    } finally {
      await objects.delete(newer);
    }
    expect((await cli(["verify", ...live()])).code).toBe(0);
  });

  it("refuses what it cannot audit, naming why: two sources, half a source, no stream, no NATS, an existing export file", async () => {
    const twoSources = await cli(["verify", "--data", dataDir, "--stream-export", exportFile]);
    expect(twoSources.code).toBe(1);
    expect(twoSources.stderr).toMatch(/verify: --data names a data directory, and --nats\/--stream or --stream-export a stream: give one source/);
    const liveAndExport = await cli(["replay", ...live(), "--stream-export", exportFile]);
    expect(liveAndExport.stderr).toMatch(/give one of them/);
    const noStream = await cli(["replay", "--nats", cluster.urls.join(",")]);
    expect(noStream.code).toBe(1);
    expect(noStream.stderr).toMatch(/--nats needs --stream <name>/);
    const noNats = await cli(["verify", "--stream", STREAM]);
    expect(noNats.stderr).toMatch(/--stream needs --nats/);
    const missing = await cli(["verify", "--nats", cluster.urls.join(","), "--stream", "partition-99"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/there is no stream partition-99 on this NATS cluster/);
    const unreachable = await cli(["replay", "--nats", "nats://127.0.0.1:1", "--stream", STREAM]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);
    if (!existsSync(exportFile)) expect((await cli(["export-stream", ...live(), "--out", exportFile])).code).toBe(0);
    const before = readFileSync(exportFile);
    const again = await cli(["export-stream", ...live(), "--out", exportFile]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists; an export never overwrites a file/);
    expect(readFileSync(exportFile).equals(before)).toBe(true);
    const notAnExport = path.join(workDir, "not-an-export");
    writeFileSync(notAnExport, "hello");
    expect((await cli(["verify", "--stream-export", notAnExport])).stderr).toMatch(/not a stream export/);
  });

  it("writes a self-describing export: its header names the stream and range, each record a message as stored", async () => {
    if (!existsSync(exportFile)) expect((await cli(["export-stream", ...live(), "--out", exportFile])).code).toBe(0);
    const bytes = readFileSync(exportFile);
    expect(bytes.toString("latin1", 0, 4)).toBe("JSX1");
    const headerLength = bytes.readUInt32LE(4);
    const header = JSON.parse(bytes.toString("utf8", 12, 12 + headerLength)) as Record<string, unknown>;
    const jsm = await jetstreamManager(connection);
    const info = await jsm.streams.info(STREAM);
    expect(header).toMatchObject({ format: "market-service stream export", version: 1, stream: STREAM, subject: `journal.${STREAM}`, batchFormat: "JSB2", firstStreamSequence: 1, lastStreamSequence: info.state.last_seq, messages: info.state.messages });
    const records = recordsOf(bytes);
    expect(records.map((record) => record.streamSequence)).toEqual(Array.from({ length: info.state.messages }, (_, i) => i + 1));
    for (const record of records) {
      const stored = await jsm.streams.getMessage(STREAM, { seq: record.streamSequence });
      expect(Buffer.from(bytes.subarray(record.bodyOffset, record.bodyOffset + record.bodyLength)).equals(Buffer.from(stored?.data ?? []))).toBe(true);
      expect(record.msgId).toBe(stored?.header.get("Nats-Msg-Id"));
    }
    // Messages 1, and the two owners' handovers, are claims.
    const claims = records.filter((record) => decodeBatch(bytes.subarray(record.bodyOffset, record.bodyOffset + record.bodyLength), record.streamSequence).count === 0);
    expect(claims.map((record) => decodeBatch(bytes.subarray(record.bodyOffset, record.bodyOffset + record.bodyLength), record.streamSequence).epoch)).toEqual([1, 2, 3]);
  });
});

interface ExportRecord {
  offset: number;
  streamSequence: number;
  msgId: string;
  bodyOffset: number;
  bodyLength: number;
}

/** The records of an export, parsed by the layout docs/cluster.md ("The export file: JSX1") gives (not by the reader under test). */
function recordsOf(bytes: Buffer): ExportRecord[] {
  const records: ExportRecord[] = [];
  let offset = 12 + bytes.readUInt32LE(4);
  while (offset < bytes.length) {
    const bodyLength = bytes.readUInt32LE(offset);
    const streamSequence = bytes.readDoubleLE(offset + 8);
    const idLength = bytes.readUInt16LE(offset + 16);
    const msgId = bytes.toString("utf8", offset + 18, offset + 18 + idLength);
    const bodyOffset = offset + 18 + idLength;
    records.push({ offset, streamSequence, msgId, bodyOffset, bodyLength });
    offset = bodyOffset + bodyLength;
  }
  return records;
}
