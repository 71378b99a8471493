/**
 * Signed heads in a shard's log (issue 29): recorded at the configured interval and signed over
 * every entry before them, receipts on accepted replies, the tree carried across restarts (with and
 * without a snapshot), and `verify` with the public key refusing a log rewritten by someone who holds
 * the data directory but not the key. Real files in temp dirs, the real shard and audit code.
 */
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../engine/clock.js";
import { openFileShard } from "../../engine/runtime/shard-core.js";
import { verifyDataDir } from "../../engine/replay/audit-replay.js";
import { leafHash, parseReceipt, signedHeadOf, verifyHead } from "@market-service/client/audit";
import { decodeLogEntry, encodeLoggedHead } from "../../engine/log/logged-head.js";
import { forge, logEntries, shardDataDirs, swapParticipant, testKey, type TestKey } from "./support/heads.js";
import { CompactRange } from "../../engine/audit/merkle/compact-range.js";
import { HeadKeys } from "../../engine/audit/signing/head-keys.js";
import { T0, commands, directClaim, okJson, replyOf, request } from "../runtime/support.js";

const dataDir = shardDataDirs("heads");

const OPEN = directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" });

function openShard(dir: string, clock: ManualClock, key: TestKey, everyCommands = 4, everyMs = 1000, acceptedTails: string[] = []) {
  return openFileShard({ dir, shardIndex: 0, clock, heads: { logId: "shard-0", signer: key.signer, everyCommands, everyMs }, headChecks: { keys: new HeadKeys(key.entries), acceptedTails } });
}

describe("signed heads in a shard's log", () => {
  it("records a head every N entries over exactly the entries before it, and gives every accepted command a receipt that checks with the public key", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const { core } = await openShard(shardDir, clock, key);
    const batch = await core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1"))]);
    const claims = await core.processBatch([request(commands.claim("bob", "m1")), request(commands.claim("carol", "m1"))]);
    await core.close();

    const entries = logEntries(shardDir);
    // 2 commands, then 2 more: the 4th entry makes a head due, so the second batch ends with one.
    expect(entries.map((e) => e.entry.kind)).toEqual(["command", "command", "command", "command", "head"]);
    const recorded = entries[4]?.entry;
    if (recorded?.kind !== "head") throw new Error("no head");
    expect(recorded.head.treeSize).toBe(4);
    const tree = new CompactRange();
    for (const e of entries.slice(0, 4)) tree.append(leafHash(e.payload));
    expect(Buffer.from(recorded.head.rootHash).equals(Buffer.from(tree.root()))).toBe(true);
    expect(verifyHead(recorded.head, key.publicKey)).toBe(true);

    // Receipts: the first batch's head was signed for the batch alone (tree size 2); the second's is the recorded head.
    const accepted = [...batch, ...claims].filter((response) => replyOf(response).ok);
    expect(accepted).toHaveLength(3);
    const receipts = accepted.map((response) => {
      const reply = replyOf(response);
      if (!reply.ok || reply.receipt === undefined || reply.receipt === "") throw new Error("an accepted reply without a receipt");
      const parsed = parseReceipt(reply.receipt);
      if (!parsed.ok) throw new Error(parsed.message);
      return parsed.receipt;
    });
    expect(receipts.map((r) => r.leafIndex)).toEqual([0, 1, 2]);
    expect(receipts.map((r) => r.head.treeSize)).toEqual([2, 2, 4]);
    for (const receipt of receipts) expect(verifyHead(signedHeadOf(receipt.head), key.publicKey)).toBe(true);
    expect(receipts[2]?.head.signature).toBe(Buffer.from(recorded.head.signature).toString("hex"));
    // A rejected claim (capacity 1) is acknowledged with an error: no receipt is promised for it.
    expect(replyOf(claims[1]).ok).toBe(false);
  });

  it("records a head after `everyMs` on the periodic tick, and at no other time when nothing was appended", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const { core } = await openShard(shardDir, clock, key, 1000, 1000);
    await core.processBatch([request(commands.create("alice", "m1", OPEN))]);
    clock.advance(999);
    await core.tick();
    expect(logEntries(shardDir).map((e) => e.entry.kind)).toEqual(["command"]);
    clock.advance(1);
    await core.tick();
    clock.advance(5000);
    await core.tick();
    await core.close();
    const entries = logEntries(shardDir);
    expect(entries.map((e) => e.entry.kind)).toEqual(["command", "head"]);
    const head = entries[1]?.entry;
    expect(head?.kind === "head" && head.head.timeMs).toBe(T0 + 1000);
  });

  it("carries the tree across restarts, from a snapshot and from the log alone, so later heads still cover the whole log", async () => {
    for (const withSnapshot of [true, false]) {
      const { root, shardDir } = dataDir();
      const clock = new ManualClock(T0);
      const key = testKey();
      const first = await openShard(shardDir, clock, key, 3);
      await first.core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1")), request(commands.claim("bob", "m1"))]);
      await first.core.processBatch([request(commands.claim("carol", "m1"))]);
      if (withSnapshot) await first.core.snapshot();
      await first.core.close();
      const second = await openShard(shardDir, clock, key, 3);
      await second.core.processBatch([request(commands.claim("dave", "m1")), request(commands.claim("erin", "m1"))]);
      await second.core.close();

      const entries = logEntries(shardDir);
      // A head after 3 entries; one at each clean close over what no head covered (carol's claim; dave's and erin's).
      expect(entries.filter((e) => e.entry.kind === "head").map((e) => (e.entry.kind === "head" ? e.entry.head.treeSize : -1))).toEqual([3, 5, 8]);
      const verified = await verifyDataDir(root, { publicKeys: key.entries });
      expect(verified.problem).toBeUndefined();
      expect(verified).toMatchObject({ ok: true, signedHeads: { heads: 3, uncoveredEntries: 0 } });
      expect(verified.replay.commands).toBe(6);
    }
  });

  it("refuses to recover a log changed after a head was signed", async () => {
    const { shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const { core } = await openShard(shardDir, clock, key, 3);
    await core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1")), request(commands.claim("bob", "m1"))]);
    await core.close();
    forge(shardDir, (payload) => swapParticipant(payload, "bob", "mallory"));
    await expect(openShard(shardDir, clock, key, 3)).rejects.toThrow(/log shard-0: the head recorded at entry 4 .* the log was changed after that head was signed/);
  });
});

describe("verify with the public key: a forger with the data directory but not the key", () => {
  /** A capacity-1 market bob won and carol lost, heads every 2 entries. */
  async function wonByBob(): Promise<{ root: string; shardDir: string; key: TestKey; receipt: string }> {
    const { root, shardDir } = dataDir();
    const clock = new ManualClock(T0);
    const key = testKey();
    const { core } = await openShard(shardDir, clock, key, 2);
    await core.processBatch([request(commands.create("alice", "m1", OPEN)), request(commands.publish("alice", "m1"))]);
    const [won] = await core.processBatch([request(commands.claim("bob", "m1"))]);
    const [lost] = await core.processBatch([request(commands.claim("carol", "m1"))]);
    expect(okJson(won).commitments[0].participantPrincipalId).toBe("bob");
    expect(replyOf(lost).ok).toBe(false);
    await core.snapshot();
    await core.close();
    const reply = replyOf(won);
    return { root, shardDir, key, receipt: reply.ok ? (reply.receipt ?? "") : "" };
  }

  it("passes the untouched log, and fails the rewritten one at the first head after the change — swapping winner and loser, every chain value, CRC and header recomputed, snapshots deleted", async () => {
    const { root, shardDir, key } = await wonByBob();
    const publicKeys = key.entries;
    expect(await verifyDataDir(root, { publicKeys })).toMatchObject({ ok: true });

    forge(shardDir, (payload) => swapParticipant(payload, "bob", "carol", "carol", "bob"));
    // Every chain value and CRC is valid again: what fails is the heads' roots, with or without the key.
    const unkeyed = await verifyDataDir(root);
    expect(unkeyed.problem ?? "").toMatch(/log shard-0: the head recorded at entry 6 has a root hash/);
    // With the key, the first head after the first changed entry does not match.
    const keyed = await verifyDataDir(root, { publicKeys });
    expect(keyed.ok).toBe(false);
    expect(keyed.problem).toMatch(/log shard-0: the head recorded at entry 6 has a root hash that is not the entries' before it/);
  });

  it("fails a rewritten log whose heads were dropped: nothing in it is signed", async () => {
    const { root, shardDir, key } = await wonByBob();
    forge(shardDir, (payload) => (decodeLogEntry(payload).kind === "head" ? undefined : swapParticipant(payload, "bob", "carol", "carol", "bob")));
    expect(await verifyDataDir(root)).toMatchObject({ ok: true });
    const keyed = await verifyDataDir(root, { publicKeys: key.entries });
    expect(keyed).toMatchObject({ ok: false, problem: expect.stringMatching(/log shard-0: \d+ entries and no signed head/) });
  });

  it("fails heads signed with a key not given, or whose signature does not verify", async () => {
    const { root, key } = await wonByBob();
    const other = testKey();
    expect(await verifyDataDir(root, { publicKeys: other.entries })).toMatchObject({ ok: false, problem: expect.stringContaining(`signed with key ${key.keyId}, which is not among the public keys given`) });
    // A head whose signature was altered (its root still the entries'): the signature is what fails.
    const { shardDir } = { shardDir: path.join(root, "shards", "00") };
    forge(shardDir, (payload) => {
      const entry = decodeLogEntry(payload);
      if (entry.kind !== "head") return payload;
      const signature = entry.head.signature.slice();
      signature[0] = (signature[0] as number) ^ 1;
      return encodeLoggedHead({ ...entry.head, signature });
    });
    expect(await verifyDataDir(root, { publicKeys: key.entries })).toMatchObject({ ok: false, problem: expect.stringContaining(`signature that does not verify with key ${key.keyId}`) });
  });
});

