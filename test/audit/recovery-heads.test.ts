/**
 * Recovery and signed heads (issue 35): a shard checks every head it reads — root, size and signature
 * against the key history — and refuses a log with more entries after its last verified head than a
 * crash leaves, in one line naming the log and its first uncovered entry; an operator's acceptance
 * (AUDIT_ACCEPT_UNSIGNED_TAIL) starts it and is recorded in the log by a head entry that verify
 * reports. Real files, the real shard, the storage code as a forger would use it; time is a manual clock.
 */
import { cpSync, mkdirSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { openFileShard } from "../../engine/runtime/shard-core.js";
import { verifyDataDir } from "../../engine/replay/audit-replay.js";
import { leafHash, parseReceipt, signedHeadOf, verifyHead } from "@market-service/client/audit";
import { decodeLogEntry } from "../../engine/log/logged-head.js";
import { CompactRange } from "../../engine/audit/merkle/compact-range.js";
import { HeadKeys } from "../../engine/audit/signing/head-keys.js";
import { T0, commands, directClaim, replyOf, request } from "../runtime/support.js";
import { forge, logEntries, shardDataDirs, swapParticipant, testKey, withRecomputedRoots, type TestKey } from "./support/heads.js";

const dataDir = shardDataDirs("recovery-heads");

const OPEN = directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" });

interface Opening {
  everyCommands?: number;
  everyMs?: number;
  acceptedTails?: string[];
  /** The key history recovery checks with (default: the signing key's). */
  keys?: TestKey;
}

function openShard(dir: string, clock: ManualClock, key: TestKey, opening: Opening = {}) {
  return openFileShard({
    dir,
    shardIndex: 0,
    clock,
    heads: { logId: "shard-0", signer: key.signer, everyCommands: opening.everyCommands ?? 4, everyMs: opening.everyMs ?? 1000 },
    headChecks: { keys: new HeadKeys((opening.keys ?? key).entries), acceptedTails: opening.acceptedTails ?? [] },
  });
}

/** A capacity-1 market bob won and carol lost, then `more` claims of others, one batch each `stepMs` apart; stopped cleanly. */
async function market(shardDir: string, clock: ManualClock, key: TestKey, more: number, stepMs: number, opening: Opening = {}): Promise<void> {
  const { core } = await openShard(shardDir, clock, key, opening);
  await core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1"))]);
  await core.processBatch([request(commands.claim("bob", "m1"))]);
  await core.processBatch([request(commands.claim("carol", "m1"))]);
  for (let i = 0; i < more; i += 1) {
    clock.advance(stepMs);
    await core.processBatch([request(commands.claim(`p${i}`, "m1"))]);
  }
  await core.close();
}

describe("recovery checks the heads it reads", () => {
  it("puts a head inside a batch longer than the interval, so no prefix of the log has more than N entries after its last head; receipts name the right entries", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const { core } = await openShard(shardDir, clock, key, { everyCommands: 3 });
    const sent = [commands.create("alice", "m1", directClaim({ capacity: 20, pricing: { mode: "free" }, confirmation: "none" })), commands.publish("alice", "m1"), ...Array.from({ length: 8 }, (_, i) => commands.claim(`p${i}`, "m1"))];
    const responses = await core.processBatch(sent.map((command) => request(command)));
    await core.close();
    const entries = logEntries(shardDir);
    // 10 commands: a head after each 3rd entry since the last head, inside the batch, and one at its end (due: 3 more).
    expect(entries.map((e) => (e.entry.kind === "head" ? "H" : "c")).join("")).toBe("cccHcccHcccHc" + "H");
    const tree = new CompactRange();
    let last = 0;
    for (const e of entries) {
      if (e.entry.kind === "head") {
        expect(e.sequence - 1 - last).toBeLessThanOrEqual(3);
        expect(Buffer.from(e.entry.head.rootHash).equals(Buffer.from(tree.root()))).toBe(true);
        last = e.sequence;
      }
      tree.append(leafHash(e.payload));
    }
    // Each accepted command's receipt names its own entry, heads inside the batch notwithstanding.
    responses.forEach((response, i) => {
      const reply = replyOf(response);
      if (!reply.ok || reply.receipt === undefined) throw new Error(`command ${i} has no receipt`);
      const receipt = parseReceipt(reply.receipt);
      if (!receipt.ok) throw new Error(receipt.message);
      const entry = entries[receipt.receipt.leafIndex]?.entry;
      expect(entry?.kind).toBe("command");
      expect(entry?.kind === "command" && entry.logged.c.commandId).toBe(sent[i]?.commandId);
    });
  });

  it("starts on what a crash leaves: entries after the last head within the interval, and the batch being written", async () => {
    const { root, shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const { core } = await openShard(shardDir, clock, key, { everyCommands: 5, everyMs: 1000 });
    // The batch a crash interrupts comes later than the interval: only its own entries share its stamp.
    await core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1"))]);
    clock.advance(400);
    await core.processBatch([request(commands.claim("bob", "m1"))]);
    clock.advance(400);
    await core.processBatch([request(commands.claim("carol", "m1"))]);
    // The batch a crash interrupts: 700 ms later its head is due, and the crash leaves its entry without that head.
    clock.advance(700);
    await core.processBatch([request(commands.claim("dave", "m1"))]);
    const crashed = dataDir().root;
    cpSync(root, crashed, { recursive: true });
    await core.close();
    const crashedShard = path.join(crashed, "shards", "00");
    expect(logEntries(crashedShard).map((e) => e.entry.kind)).toEqual(["command", "command", "command", "command", "command", "head"]);
    let at = 0;
    forge(crashedShard, (payload) => (at++ === 5 ? undefined : payload));
    const reopened = await openShard(crashedShard, clock, key, { everyCommands: 5, everyMs: 1000 });
    expect(reopened.report.acceptedUnsignedTail).toBeUndefined();
    // The tail gets a head at once (it is older than the interval by the last head's time).
    await reopened.core.tick();
    await reopened.core.close();
    expect(logEntries(crashedShard).at(-1)?.entry.kind).toBe("head");
    expect(await verifyDataDir(crashed, { publicKeys: key.entries, headInterval: { everyCommands: 5, everyMs: 1000 } })).toMatchObject({ ok: true });
  });

  it("keeps the replies of the commands it replays: retried after it, they are answered as given without a replay, an acceptance's receipt naming its entry under a head over the recovered log", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const { core } = await openShard(shardDir, clock, key);
    const given = [
      ...(await core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1"))])),
      ...(await core.processBatch([request(commands.claim("bob", "m1"))])),
      ...(await core.processBatch([request(commands.claim("carol", "m1"))])),
    ];
    await core.close();
    const logged = logEntries(shardDir).length;
    const reopened = await openShard(shardDir, clock, key);
    expect(reopened.report.framesReplayed).toBe(4);
    const retried = await reopened.core.processBatch(given.map((response) => ({ kind: "reply-at", position: response.kind === "command" ? response.position : -1 })));
    retried.forEach((response, i) => {
      // Kept: answered at once, not handed over as a replay of the market's record.
      expect(response?.kind, `command ${i}`).toBe("read");
      const reply = replyOf(response);
      const original = replyOf(given[i]);
      if (!reply.ok || !original.ok) {
        expect(reply).toEqual(original);
        return;
      }
      expect(reply.json).toEqual(original.json);
      const receipt = parseReceipt(reply.receipt ?? "");
      const first = parseReceipt(original.receipt ?? "");
      if (!receipt.ok || !first.ok) throw new Error(`command ${i}: ${receipt.ok ? "" : receipt.message} ${first.ok ? "" : first.message}`);
      expect(receipt.receipt.leafIndex).toBe(first.receipt.leafIndex);
      expect(receipt.receipt.head.treeSize).toBe(logged);
      expect(verifyHead(signedHeadOf(receipt.receipt.head), key.publicKey)).toBe(true);
    });
    expect(replyOf(retried[3])).toMatchObject({ ok: false, code: "capacity_exhausted" });
    await reopened.core.close();
  });

  it("refuses a log whose heads were removed when more entries follow the last verified head than the interval allows, naming the log and its first uncovered entry", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    await market(shardDir, clock, key, 6, 0, { everyCommands: 4 });
    // Swap the winner, re-chain, recompute CRCs, strip every head (snapshots deleted).
    forge(shardDir, (payload) => (decodeLogEntry(payload).kind === "head" ? undefined : swapParticipant(payload, "bob", "carol", "carol", "bob")));
    await expect(openShard(shardDir, clock, key, { everyCommands: 4 })).rejects.toThrow(
      /^log shard-0: first uncovered entry 1: 10 entries \(1…10\) follow no verified head, more than AUDIT_HEAD_EVERY_COMMANDS=4 entries: more than a crash leaves, so heads were removed or the log was changed; to start on it anyway set AUDIT_ACCEPT_UNSIGNED_TAIL=shard-0:1 \(the acceptance is logged and recorded in the log\)$/,
    );
  });

  it("refuses a short log whose heads were removed when its entries span more than the time interval before their last batch", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    // 6 entries over 3 s: heads every second were recorded (and are now removed).
    await market(shardDir, clock, key, 2, 1500, { everyCommands: 10_000 });
    forge(shardDir, (payload) => (decodeLogEntry(payload).kind === "head" ? undefined : swapParticipant(payload, "bob", "carol", "carol", "bob")));
    await expect(openShard(shardDir, clock, key, { everyCommands: 10_000 })).rejects.toThrow(/^log shard-0: first uncovered entry 1: 6 entries \(1…6\) follow no verified head, spanning 1500 ms before their last batch, not less than AUDIT_HEAD_EVERY_SECONDS=1/);
  });

  it("refuses heads whose roots a forger recomputed over the rewritten entries, keeping the old signatures", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    await market(shardDir, clock, key, 0, 0, { everyCommands: 2 });
    const payloads = logEntries(shardDir).map((e) => swapParticipant(e.payload, "bob", "carol", "carol", "bob"));
    // Each head's root recomputed over the rewritten entries before it; its signature kept.
    const rewritten = withRecomputedRoots(payloads);
    let at = 0;
    forge(shardDir, () => rewritten[at++]);
    await expect(openShard(shardDir, clock, key, { everyCommands: 2 })).rejects.toThrow(new RegExp(`^log shard-0: the head recorded at entry \\d+ has a signature that does not verify with key ${key.keyId}$`));
    // And a head signed by a key outside the history.
    const other = testKey();
    const { shardDir: second } = dataDir();
    await market(second, clock, other, 0, 0, { everyCommands: 2 });
    await expect(openShard(second, clock, other, { everyCommands: 2, keys: key })).rejects.toThrow(new RegExp(`is signed with key ${other.keyId}, which is not among the public keys given`));
  });

  it("starts on a refused tail the operator accepts by name, records the acceptance in a head entry, and verify reports it", async () => {
    const { root, shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    await market(shardDir, clock, key, 6, 0, { everyCommands: 4 });
    forge(shardDir, (payload) => (decodeLogEntry(payload).kind === "head" ? undefined : payload));
    // A name that is not this tail's accepts nothing.
    await expect(openShard(shardDir, clock, key, { everyCommands: 4, acceptedTails: ["shard-0:2", "shard-1:1"] })).rejects.toThrow(/AUDIT_ACCEPT_UNSIGNED_TAIL=shard-0:1/);
    const accepted = await openShard(shardDir, clock, key, { everyCommands: 4, acceptedTails: ["shard-0:1"] });
    expect(accepted.report.acceptedUnsignedTail).toEqual({ logId: "shard-0", from: 1, to: 10 });
    await accepted.core.close();
    const entries = logEntries(shardDir);
    const recorded = entries[10]?.entry;
    expect(recorded?.kind === "head" && recorded.acceptedFrom).toBe(1);
    expect(recorded?.kind === "head" && recorded.head.treeSize).toBe(10);
    // The next start needs no acceptance: the tail is covered.
    const again = await openShard(shardDir, clock, key, { everyCommands: 4 });
    expect(again.report.headsChecked).toBeGreaterThanOrEqual(1);
    await again.core.close();
    const verified = await verifyDataDir(root, { publicKeys: key.entries, headInterval: { everyCommands: 4, everyMs: 1000 } });
    expect(verified).toMatchObject({ ok: true, signedHeads: { acceptedTails: [{ logId: "shard-0", from: 1, to: 10 }], signaturesChecked: true } });
  });

  it("recovers from a snapshot's anchor (the last head and the tree before it) and ignores an anchor whose head does not verify", async () => {
    const { root, shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const first = await openShard(shardDir, clock, key, { everyCommands: 3 });
    await first.core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1")), request(commands.claim("bob", "m1"))]);
    await first.core.processBatch([request(commands.claim("carol", "m1"))]);
    await first.core.snapshot();
    await first.core.close();
    // The snapshot records a head over what no head covered first (entry 6, over 5 entries), and
    // that head is its anchor: recovery reads the log from it, and checks it, not from entry 4's.
    const second = await openShard(shardDir, clock, key, { everyCommands: 3 });
    expect(second.report.snapshotLsn).toBe(6);
    expect(second.report.headsChecked).toBe(1);
    // A snapshot written right after recovery keeps the anchor recovery read from the log (the head
    // decoded from its frame, which outlives the frame's buffer): the next start uses it.
    await second.core.snapshot();
    await second.core.close();
    const third = await openShard(shardDir, clock, key, { everyCommands: 3 });
    expect(third.report.headsChecked).toBe(1);
    await third.core.close();
    // Under another key history the anchor's head does not verify: the tree is rebuilt from entry 1, whose heads then fail.
    await expect(openShard(shardDir, clock, key, { everyCommands: 3, keys: testKey() })).rejects.toThrow(/log shard-0: the head recorded at entry 4 is signed with key/);
    expect(await verifyDataDir(root, { publicKeys: key.entries })).toMatchObject({ ok: true });
  });

  it("keeps the head it recovered intact after the log reader has moved on: a snapshot after recovery anchors the next start", async () => {
    const { root, shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const capacity = directClaim({ capacity: 100_000, pricing: { mode: "free" }, confirmation: "none" });
    const first = await openShard(shardDir, clock, key, { everyCommands: 2 });
    await first.core.processBatch([request(commands.create("alice", "big", capacity)), request(commands.publish("alice", "big"))]);
    await first.core.processBatch([request(commands.claim("bob", "big"))]);
    await first.core.close();
    // More than the log reader's 4 MiB chunk of entries after those heads, none of them covered (a crash's tail).
    const second = await openShard(shardDir, clock, key, { everyCommands: 100_000, everyMs: 3_600_000 });
    for (let batch = 0; batch < 30; batch += 1) {
      await second.core.processBatch(Array.from({ length: 1000 }, (_, i) => request(commands.claim(`p-${batch}-${i}`, "big"))));
    }
    const crashed = dataDir();
    cpSync(root, crashed.root, { recursive: true });
    await second.core.close();
    // Recovery reads the early heads, then the rest through reused buffers; its last head must survive that.
    const third = await openShard(crashed.shardDir, clock, key, { everyCommands: 100_000, everyMs: 3_600_000 });
    const headsFromStart = third.report.headsChecked;
    expect(headsFromStart).toBeGreaterThanOrEqual(2);
    await third.core.snapshot();
    // (Not closed: a clean close would record a head over the tail, and the snapshot's anchor is what is tested.)
    const fourth = await openShard(crashed.shardDir, clock, key, { everyCommands: 100_000, everyMs: 3_600_000 });
    expect(fourth.report.headsChecked).toBe(1);
    await fourth.core.close();
  });
});
