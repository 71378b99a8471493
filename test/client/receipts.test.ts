/**
 * Receipts in the SDK (issue 29) against the real service: every accepted command exposes its parsed
 * Market-Receipt; `checkReceipt` fetches its inclusion proof, a head signed now and the consistency
 * proof, and the engine's offline checker proves it with the public keys alone. It fails for a
 * receipt whose head was altered, for keys that are not the service's, and for a saved receipt once
 * a forger who holds the data directory but not the key has rewritten the log and an operator
 * knowingly starts the service on it (AUDIT_ACCEPT_UNSIGNED_TAIL; without it the start is refused).
 * The receipt binds its index to the sender's command: none of its single-character alterations
 * checks as proven. A receipt is plain JSON: after JSON.stringify and JSON.parse it is equal to
 * itself and still checks; a receipt object is checked member by member like the header's text.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkReceiptProof, publicKeysOf, receiptJson } from "@market-service/client/audit";
import { generateKeyPair, MarketClient, parseReceipt, type AuditKeyList, type Receipt, type ReceiptCommand } from "@market-service/client";
import { forged, readShard, writeShard } from "../audit/support/forger.js";
import { Harness } from "../http-api/support/harness.js";

const work = mkdtempSync(path.join(tmpdir(), "sdk-receipts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DIRECT = { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } } as const;

/** Another character of the same kind (a digit, a hex digit, a letter), or one that is not JSON's there. */
function alteredChar(char: string): string {
  if (/[0-8]/.test(char)) return String(Number(char) + 1);
  if (char === "9") return "8";
  if (/[a-e]/.test(char)) return String.fromCharCode(char.charCodeAt(0) + 1);
  if (char === "f") return "0";
  if (/[g-zA-Z]/.test(char)) return char === "z" || char === "Z" ? "a" : String.fromCharCode(char.charCodeAt(0) + 1);
  return char === "x" ? "y" : "x";
}

/** The receipt with its head's root hash changed in one hex digit. */
function withAlteredRoot(receipt: Receipt): Receipt {
  const { rootHash } = receipt.head;
  return { leafIndex: receipt.leafIndex, head: { ...receipt.head, rootHash: alteredChar(rootHash[0] as string) + rootHash.slice(1) } };
}

describe("receipts in the SDK", () => {
  it("checks a claim's receipt against the published keys; an altered head, other keys and a forged log fail", async () => {
    const dataDir = path.join(work, "data");
    const h = await Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "3" } });
    let saved: { receipt: Receipt; receiptText: string; keys: AuditKeyList; command: ReceiptCommand };
    try {
      const [creator, bob, carol] = await h.principals("creator", "bob", "carol");
      const client = new MarketClient({ baseUrl: h.url });
      const asCreator = client.withCredentials(creator.auth);
      const created = await asCreator.createMarket({ marketId: "r-1", principalId: "creator", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT });
      expect(created.receipt?.head.logId).toBe("shard-0");
      await asCreator.publishMarket("r-1", { principalId: "creator", expectedVersion: 1 });
      const won = await client.submitDirectClaim("r-1", { principalId: "bob" }, { credentials: bob.auth });
      expect(won.receipt).not.toBeNull();
      const receipt = won.receipt as Receipt;
      expect(parseReceipt(won.receiptText ?? "")).toEqual({ ok: true, receipt });
      const keys = await client.auditKeys();
      const command: ReceiptCommand = { type: "direct_claim.submit", marketId: "r-1", commandId: won.commandId, actorId: "bob" };

      // Plain JSON: through JSON.stringify and JSON.parse (a file, a database, a message) it is the same receipt.
      const kept = JSON.parse(JSON.stringify(receipt)) as Receipt;
      expect(kept).toEqual(receipt);
      // Proven at once (the head the receipt carries may be the newest), and after more commands with a consistency proof.
      const now = await client.checkReceipt(kept, keys, { credentials: bob.auth, command });
      expect(now.outcome, JSON.stringify(now)).toBe("proven");
      // A receipt object is checked like the header's text: a member that is not hex makes it unusable.
      expect(await client.checkReceipt({ ...kept, head: { ...kept.head, signature: "not hex" } }, keys, { credentials: bob.auth, command })).toMatchObject({ outcome: "unusable", reason: expect.stringMatching(/signature must be 128 lowercase hex digits/) });
      const lost = await client.submitDirectClaim("r-1", { principalId: "carol" }, { credentials: carol.auth }).catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(Error);
      for (const id of ["r-2", "r-3"]) await asCreator.createMarket({ marketId: id, principalId: "creator", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT });
      // Carol may not see bob's entry: the proofs hold, but it cannot be confirmed to be bob's command.
      expect(await client.checkReceipt(won.receiptText ?? "", keys, { credentials: carol.auth, command })).toMatchObject({ outcome: "unconfirmed" });
      const later = await client.checkReceipt(won.receiptText ?? "", keys, { credentials: bob.auth, command });
      expect(later.outcome, JSON.stringify(later)).toBe("proven");
      if (later.outcome !== "proven") throw new Error("unreachable");
      expect(later.proven).toMatch(/which is a prefix of the tree of \d+ entries/);
      expect(later.proofFile["consistency"]).toBeDefined();
      // The proof file it returns checks again offline, with a plain key map too.
      expect(checkReceiptProof(later.proofFile, publicKeysOf(keys)).outcome).toBe("proven");

      // A head altered after the fact: its signature no longer verifies.
      const altered = await client.checkReceipt(withAlteredRoot(receipt), keys, { credentials: bob.auth, command });
      expect(altered).toMatchObject({ outcome: "failed", check: "receipt head signature" });
      // A leaf the head's tree cannot hold: not a receipt at all.
      const moved = await client.checkReceipt(receiptJson(receipt.head.treeSize, JSON.stringify(receipt.head)), keys, { credentials: bob.auth, command });
      expect(moved.outcome).toBe("unusable");
      // Keys that are not the service's.
      const stranger = new Map([[receipt.head.keyId, new Uint8Array(Buffer.from(generateKeyPair().publicKey, "base64url"))]]);
      expect(await client.checkReceipt(receipt, stranger, { credentials: bob.auth, command })).toMatchObject({ outcome: "failed", check: "receipt head signature" });
      // Another leaf of the same tree has a valid proof too: only the entry's content ties the index to bob's claim.
      // (The creator sees entry 2, the market's publish; bob may not see it, so for him it stays unconfirmed.)
      const other = await client.checkReceipt(receiptJson(receipt.leafIndex - 1, JSON.stringify(receipt.head)), keys, { credentials: creator.auth, command });
      expect(other).toMatchObject({ outcome: "failed", check: "entry", reason: expect.stringMatching(/not your command "direct_claim.submit"/) });
      expect(await client.checkReceipt(receiptJson(receipt.leafIndex - 1, JSON.stringify(receipt.head)), keys, { credentials: bob.auth, command })).toMatchObject({ outcome: "unconfirmed" });
      // A command that is not the one sent: another command id, another actor.
      expect(await client.checkReceipt(receipt, keys, { credentials: bob.auth, command: { ...command, commandId: "someone-else" } })).toMatchObject({ outcome: "failed", check: "entry" });
      expect(await client.checkReceipt(receipt, keys, { credentials: bob.auth, command: { ...command, actorId: "carol" } })).toMatchObject({ outcome: "failed", check: "entry" });

      // Every single-character alteration of the receipt's text: none checks as proven.
      const text = won.receiptText ?? "";
      const outcomes = new Map<string, number>();
      for (let i = 0; i < text.length; i += 1) {
        const altered = text.slice(0, i) + alteredChar(text[i] as string) + text.slice(i + 1);
        const result = await client.checkReceipt(altered, keys, { credentials: bob.auth, command, laterHead: false });
        expect(result.outcome, `alteration at ${i}: ${altered}`).not.toBe("proven");
        outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
      }
      expect(text.length).toBeGreaterThan(300);
      expect(outcomes.get("failed")).toBeGreaterThan(100);
      expect(outcomes.get("unusable")).toBeGreaterThan(10);
      saved = { receipt, receiptText: won.receiptText ?? "", keys, command };
    } finally {
      await h.close();
    }

    // A forger with the directory but not the key: bob and carol swapped in every entry, heads dropped.
    const shardDir = path.join(dataDir, "shards", "00");
    writeShard(dataDir, forged(readShard(shardDir), { bob: "carol", carol: "bob" }, "drop heads"));
    // The service refuses to start on it: more unsigned entries than a crash leaves.
    await expect(Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "3" } })).rejects.toThrow(/log shard-0: first uncovered entry 1: .*AUDIT_ACCEPT_UNSIGNED_TAIL=shard-0:1/);
    const again = await Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "3", AUDIT_ACCEPT_UNSIGNED_TAIL: "shard-0:1" } });
    try {
      const [reader] = await again.principals("reader");
      const client = new MarketClient({ baseUrl: again.url, credentials: reader.auth });
      // The operator accepted it: the service runs on the forged log and signs heads over it with its key...
      expect((await client.getMarket("r-1")).id).toBe("r-1");
      // ...but bob's saved receipt does not check against the forged log.
      const checked = await client.checkReceipt(saved.receiptText, saved.keys, { command: saved.command });
      expect(checked.outcome, JSON.stringify(checked)).toBe("failed");
      if (checked.outcome !== "failed") throw new Error("unreachable");
      expect(["entry", "inclusion proof", "consistency proof", "later head"]).toContain(checked.check);
    } finally {
      await again.close();
    }
  }, 120_000);
});
