/**
 * Proofs end to end (issue 29): the real service on a loopback port serves heads and proofs of its
 * shard logs; `market-service check-proof` (the real CLI as a process) accepts a receipt with its
 * inclusion proof and a later head with its consistency proof, and fails them once a forger who holds
 * the data directory but not the key has rewritten the log (winner and loser swapped, newest entries
 * dropped, an entry edited), whether the proof comes from the service started on the forged directory
 * or from `market-service proof` over it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli as runCli, forged, readShard, writeShard } from "./support/forger.js";
import { Harness, auctionMechanism, directClaimMechanism, expectError, openMarket, uid, type Principal } from "../http-api/support/harness.js";

const work = mkdtempSync(path.join(tmpdir(), "proofs-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (args: string[]) => runCli(args, work);

let files = 0;
function saveJson(value: unknown): string {
  files += 1;
  const file = path.join(work, `file-${files}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

interface ReceiptJson {
  leafIndex: number;
  head: { logId: string; treeSize: number; rootHash: string; timeMs: number; keyId: string; signature: string };
}

function receiptOf(response: { headers: Headers }): ReceiptJson {
  const header = response.headers.get("market-receipt");
  expect(header).not.toBeNull();
  return JSON.parse(header as string) as ReceiptJson;
}

async function inclusion(h: Harness, who: Principal, leafIndex: number, treeSize: number): Promise<Record<string, unknown>> {
  const response = await h.get(`/v1/audit/logs/shard-0/inclusion?leafIndex=${leafIndex}&treeSize=${treeSize}`, await h.freshToken(who));
  expect(response.status, response.text).toBe(200);
  return response.body as Record<string, unknown>;
}

async function publicKeys(h: Harness): Promise<string> {
  const keys = await h.client.request("GET", "/v1/audit/keys");
  expect(keys.status).toBe(200);
  return saveJson(keys.body);
}


describe("proofs served and checked offline", () => {
  it("a saved receipt and its proofs pass check-proof, and fail against a log whose winner and loser were swapped, whoever serves the proof", async () => {
    const dataDir = mkdtempSync(path.join(work, "swap-"));
    let h = await Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "3" } });
    let creator: Principal, bob: Principal, carol: Principal, keyFile: string, receipt: ReceiptJson, saved: Record<string, unknown>;
    try {
      [creator, bob, carol] = await h.principals("creator", "bob", "carol");
      keyFile = await publicKeys(h);
      await openMarket(h, creator, "table-1", directClaimMechanism({ capacity: 1 }));
      const won = await h.post("/v1/markets/table-1/direct-claims", { commandId: "c-bob", principalId: "bob" }, bob.auth);
      expect(won.status).toBe(200);
      expect((await h.post("/v1/markets/table-1/direct-claims", { commandId: "c-carol", principalId: "carol" }, carol.auth)).status).toBe(409);
      receipt = receiptOf(won);
      saved = await inclusion(h, bob, receipt.leafIndex, receipt.head.treeSize);
      expect(saved["leafIndex"]).toBe(receipt.leafIndex);
      expect(saved["treeSize"]).toBe(receipt.head.treeSize);
      expect(typeof saved["entry"]).toBe("string");
      // The creator sees the claim in its market; carol (neither its submitter nor the creator) does not.
      expect(typeof (await inclusion(h, creator, receipt.leafIndex, receipt.head.treeSize))["entry"]).toBe("string");
      const hidden = await inclusion(h, carol, receipt.leafIndex, receipt.head.treeSize);
      expect(hidden["entry"]).toBeNull();
      expect(hidden["path"]).toEqual(saved["path"]);

      const proofFile = saveJson({ receipt, inclusion: saved });
      const checked = await cli(["check-proof", proofFile, "--public-key", keyFile]);
      expect(checked.stderr).toBe("");
      expect(checked.status).toBe(0);
      expect(checked.stdout).toMatch(new RegExp(`^check-proof: proven: entry ${receipt.leafIndex + 1} \\(leaf ${receipt.leafIndex}\\) \\(\\d+ bytes, given; not compared with a command: the file names none\\) is in the tree of ${receipt.head.treeSize} entries of log shard-0`));
      // Without the entry (as carol got it), the leaf hash alone is proven.
      expect((await cli(["check-proof", saveJson({ receipt, inclusion: hidden }), "--public-key", keyFile])).status).toBe(0);

      // Later: more entries, a head signed now, and the consistency proof from the receipt's head to it.
      await openMarket(h, creator, "table-2", directClaimMechanism({ capacity: 5 }));
      const head = await h.get("/v1/audit/logs/shard-0/head", bob.auth);
      expect(head.status, head.text).toBe(200);
      expect(head.body.logId).toBe("shard-0");
      expect(head.body.treeSize).toBeGreaterThan(receipt.head.treeSize);
      const consistency = await h.get(`/v1/audit/logs/shard-0/consistency?from=${receipt.head.treeSize}&to=${head.body.treeSize}`, bob.auth);
      expect(consistency.status, consistency.text).toBe(200);
      const later = await cli(["check-proof", saveJson({ receipt, inclusion: saved, head: head.body, consistency: consistency.body }), "--public-key", keyFile]);
      expect(later.status, later.stderr).toBe(0);
      expect(later.stdout).toMatch(new RegExp(`which is a prefix of the tree of ${head.body.treeSize} entries of log shard-0`));
      // A consistency proof that does not match the heads' sizes, and a head edited after signing, fail.
      const wrongSizes = await cli(["check-proof", saveJson({ receipt, inclusion: saved, head: { ...head.body, treeSize: head.body.treeSize - 1 }, consistency: consistency.body }), "--public-key", keyFile]);
      expect(wrongSizes.status).toBe(1);
      expect(wrongSizes.stderr).toMatch(/check-proof: FAILED: later head signature/);
    } finally {
      await h.close();
    }

    // The CLI gives the same proof from the stopped service's directory.
    const fromDir = await cli(["proof", "--data", dataDir, "--log", "shard-0", "--leaf", String(receipt.leafIndex), "--tree-size", String(receipt.head.treeSize)]);
    expect(fromDir.status, fromDir.stderr).toBe(0);
    expect(JSON.parse(fromDir.stdout)).toEqual(saved);

    // The forger swaps winner and loser in every command, keeps the heads, rewrites the log with the storage code.
    const original = readShard(path.join(dataDir, "shards", "00"));
    writeShard(dataDir, forged(original, { bob: "carol", carol: "bob" }, "keep heads"));
    const forgedProof = path.join(dataDir, "forged-proof.json");
    const cliForged = await cli(["proof", "--data", dataDir, "--log", "shard-0", "--leaf", String(receipt.leafIndex), "--tree-size", String(receipt.head.treeSize), "--out", forgedProof]);
    expect(cliForged.status, cliForged.stderr).toBe(0);
    const cliInclusion = JSON.parse(readFileSync(forgedProof, "utf8")) as Record<string, unknown>;
    // The forged entry names carol; it hashes to its own leaf, which is not the one the receipt's head signed.
    expect(cliInclusion["entry"]).not.toEqual(saved["entry"]);
    const cliCheck = await cli(["check-proof", saveJson({ receipt, inclusion: cliInclusion }), "--public-key", keyFile]);
    expect(cliCheck.status).toBe(1);
    expect(cliCheck.stderr).toMatch(/^check-proof: FAILED: inclusion proof: leaf \d+ does not reach the root the receipt's head signs/);

    // Dropping the heads too: the service starts on the forged directory only if an operator accepts its
    // unsigned entries (recorded in the log); it then serves proofs of the forged log.
    writeShard(dataDir, forged(original, { bob: "carol", carol: "bob" }, "drop heads"));
    h = await Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "3", AUDIT_ACCEPT_UNSIGNED_TAIL: "shard-0:1" } });
    try {
      // Enough new entries that the receipt's tree size is within the forged log again.
      for (let i = 0; i < 4; i += 1) await openMarket(h, creator, `table-x${i}`, directClaimMechanism({ capacity: 1 }));
      const served = await inclusion(h, carol, receipt.leafIndex, receipt.head.treeSize);
      const servedCheck = await cli(["check-proof", saveJson({ receipt, inclusion: served }), "--public-key", keyFile]);
      expect(servedCheck.status).toBe(1);
      expect(servedCheck.stderr).toMatch(/^check-proof: FAILED: inclusion proof:/);
    } finally {
      await h.close();
    }
  }, 240_000);

  it("a consistency proof from a saved head cannot be produced, or fails, once the newest entries were dropped; an edited entry fails", async () => {
    const dataDir = mkdtempSync(path.join(work, "drop-"));
    let h = await Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "1000" } });
    let creator: Principal, bob: Principal, keyFile: string, receipt: ReceiptJson, saved: Record<string, unknown>;
    try {
      [creator, bob] = await h.principals("creator", "bob");
      keyFile = await publicKeys(h);
      await openMarket(h, creator, "hall", directClaimMechanism({ capacity: 3 }));
      const claimed = await h.post("/v1/markets/hall/direct-claims", { commandId: uid("claim"), principalId: "bob" }, bob.auth);
      expect(claimed.status).toBe(200);
      receipt = receiptOf(claimed);
      saved = await inclusion(h, bob, receipt.leafIndex, receipt.head.treeSize);
      expect((await cli(["check-proof", saveJson({ receipt, inclusion: saved }), "--public-key", keyFile])).status).toBe(0);

      // An edited entry: one byte of the payload changed in the saved file.
      const entry = Buffer.from(saved["entry"] as string, "base64url");
      entry.writeUInt8((entry.at(-1) as number) ^ 1, entry.length - 1);
      const edited = await cli(["check-proof", saveJson({ receipt, inclusion: { ...saved, entry: entry.toString("base64url") } }), "--public-key", keyFile]);
      expect(edited.status).toBe(1);
      expect(edited.stderr).toMatch(/^check-proof: FAILED: entry: the entry \(\d+ bytes\) does not hash to the proof's leaf/);
    } finally {
      await h.close();
    }

    // The forger drops the newest entries: all but the market's creation (bob's claim and the heads among them).
    const original = readShard(path.join(dataDir, "shards", "00"));
    writeShard(dataDir, original.slice(0, 1));
    h = await Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "1000" } });
    try {
      const head = await h.get("/v1/audit/logs/shard-0/head", await h.freshToken(bob));
      expect(head.status, head.text).toBe(200);
      expect(head.body.treeSize).toBeLessThan(receipt.head.treeSize);
      // Cannot be produced: the log is shorter than the saved head.
      const refused = await h.get(`/v1/audit/logs/shard-0/consistency?from=${receipt.head.treeSize}&to=${head.body.treeSize}`, await h.freshToken(bob));
      expectError(refused, 400, "invalid_request");
      expect(refused.body.error.message).toMatch(/^from \d+ must not exceed to \d+/);
      // Once other entries took their place, it is produced, and fails the check.
      for (let i = 0; i < 4; i += 1) await openMarket(h, creator, `hall-${i}`, directClaimMechanism({ capacity: 1 }));
      const newHead = await h.get("/v1/audit/logs/shard-0/head", await h.freshToken(bob));
      expect(newHead.body.treeSize).toBeGreaterThan(receipt.head.treeSize);
      const consistency = await h.get(`/v1/audit/logs/shard-0/consistency?from=${receipt.head.treeSize}&to=${newHead.body.treeSize}`, await h.freshToken(bob));
      expect(consistency.status, consistency.text).toBe(200);
      const checked = await cli(["check-proof", saveJson({ receipt, inclusion: saved, head: newHead.body, consistency: consistency.body }), "--public-key", keyFile]);
      expect(checked.status).toBe(1);
      expect(checked.stderr).toMatch(/^check-proof: FAILED: consistency proof: the later head's tree does not extend the receipt's/);
    } finally {
      await h.close();
    }
  }, 240_000);

  it("shows a sealed bid's entry to its bidder only while the auction is open, and to the creator once it is resolved", async () => {
    const h = await Harness.start({ env: { SHARDS: "1" } });
    try {
      const [creator, bob, carol] = await h.principals("creator", "bob", "carol");
      await openMarket(h, creator, "lot-1", auctionMechanism({ closesAt: h.isoIn(60_000) }));
      const bid = await h.post("/v1/markets/lot-1/sealed-bids", { commandId: uid("bid"), principalId: "bob", amountMinor: 700, currency: "EUR" }, bob.auth);
      expect(bid.status, bid.text).toBe(200);
      const { leafIndex, head } = receiptOf(bid);
      expect(typeof (await inclusion(h, bob, leafIndex, head.treeSize))["entry"]).toBe("string");
      expect((await inclusion(h, creator, leafIndex, head.treeSize))["entry"]).toBeNull();
      expect((await inclusion(h, carol, leafIndex, head.treeSize))["entry"]).toBeNull();
      h.advance(61_000);
      const record = await h.get("/v1/markets/lot-1", creator.auth);
      expect(record.body.mechanismState.resolution).toBeDefined();
      expect(typeof (await inclusion(h, creator, leafIndex, head.treeSize))["entry"]).toBe("string");
      expect((await inclusion(h, carol, leafIndex, head.treeSize))["entry"]).toBeNull();
    } finally {
      await h.close();
    }
  }, 120_000);

  it("answers bad log ids and sizes with 404 and 400 naming them, never a 500", async () => {
    const h = await Harness.start({ env: { SHARDS: "1" } });
    try {
      const [creator] = await h.principals("creator");
      await openMarket(h, creator, "m-1", directClaimMechanism({ capacity: 1 }));
      const head = await h.get("/v1/audit/logs/shard-0/head", creator.auth);
      const size = head.body.treeSize as number;
      expect(size).toBeGreaterThan(1);
      for (const logId of ["shard-1", "shard-01", "partition-0", "nope"]) {
        const response = await h.get(`/v1/audit/logs/${logId}/head`, creator.auth);
        expectError(response, 404, "not_found");
        expect(response.body.error.message).toContain(JSON.stringify(logId));
        expectError(await h.get(`/v1/audit/logs/${logId}/inclusion?leafIndex=0&treeSize=1`, creator.auth), 404, "not_found");
        expectError(await h.get(`/v1/audit/logs/${logId}/consistency?from=1&to=1`, creator.auth), 404, "not_found");
      }
      const bad: Array<[string, RegExp]> = [
        ["inclusion?treeSize=1", /leafIndex is required/],
        ["inclusion?leafIndex=0", /treeSize is required/],
        ["inclusion?leafIndex=abc&treeSize=1", /leafIndex must be an integer/],
        ["inclusion?leafIndex=-1&treeSize=1", /leafIndex must be an integer/],
        ["inclusion?leafIndex=1.5&treeSize=2", /leafIndex must be an integer/],
        ["inclusion?leafIndex=0&treeSize=9007199254740992", /treeSize must be an integer/],
        ["inclusion?leafIndex=0&treeSize=9007199254740991", /^treeSize 9007199254740991 is beyond the log shard-0/],
        [`inclusion?leafIndex=0&treeSize=${size + 1}`, /^treeSize \d+ is beyond the log shard-0, which has \d+ entries/],
        ["inclusion?leafIndex=2&treeSize=2", /^leafIndex 2 must be below treeSize 2/],
        ["inclusion?leafIndex=0&treeSize=0", /^treeSize must be at least 1/],
        ["consistency?from=0&to=1", /^from must be at least 1/],
        ["consistency?from=2&to=1", /^from 2 must not exceed to 1/],
        [`consistency?from=1&to=${size + 1}`, /^to \d+ is beyond the log shard-0/],
        ["consistency?to=1", /from is required/],
        ["consistency?from=1&to=1&to=2", /to is repeated/],
      ];
      for (const [query, message] of bad) {
        const response = await h.get(`/v1/audit/logs/shard-0/${query}`, creator.auth);
        expectError(response, 400, "invalid_request");
        expect(response.body.error.message, query).toMatch(message);
      }
      expect((await h.client.request("GET", "/v1/audit/logs/shard-0/head")).status).toBe(401);
      expect((await h.client.request("GET", "/v1/audit/logs/shard-0/inclusion?leafIndex=0&treeSize=1")).status).toBe(401);
      // A consistency proof between equal sizes is empty; sizes up to the whole log are served.
      const same = await h.get(`/v1/audit/logs/shard-0/consistency?from=${size}&to=${size}`, creator.auth);
      expect(same.status).toBe(200);
      expect(same.body).toEqual({ oldSize: size, newSize: size, path: [] });
    } finally {
      await h.close();
    }
  }, 120_000);

  it("has no head to sign with AUDIT_HEADS=off, and check-proof refuses an unusable file with exit 2", async () => {
    const h = await Harness.start({ env: { SHARDS: "1", AUDIT_HEADS: "off" } });
    try {
      const [creator] = await h.principals("creator");
      const response = await h.get("/v1/audit/logs/shard-0/head", creator.auth);
      expectError(response, 404, "not_found");
      expect(response.body.error.message).toMatch(/log shard-0 has no signed heads/);
    } finally {
      await h.close();
    }
    const notJson = path.join(work, "not-json.json");
    writeFileSync(notJson, "{");
    const keyless = await cli(["check-proof", notJson, "--public-key", path.join(work, "missing.pem")]);
    expect(keyless.status).toBe(2);
    expect(keyless.stderr).toMatch(/check-proof: unusable: --public-key .*missing\.pem: cannot be read/);
  }, 120_000);
});
