/**
 * Signed heads end to end (issue 29): the real service on a loopback port answers every accepted
 * command with a `Market-Receipt` header whose head verifies with the key `GET /v1/audit/keys`
 * publishes; after a clean stop, `market-service verify --public-key` (the real CLI as a process)
 * passes the data directory and fails it once a forger who holds the directory but not the key has
 * rewritten a shard's log (winner and loser swapped, every chain value, CRC and header recomputed,
 * snapshots deleted).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseReceipt, signedHeadOf, verifyHead } from "@market-service/client/audit";
import { base64UrlDecode } from "@market-service/client/wire";
import { cli as runCli, forged, readShard, writeShard } from "./support/forger.js";
import { Harness, directClaimMechanism, openMarket } from "../http-api/support/harness.js";

const work = mkdtempSync(path.join(tmpdir(), "receipts-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (args: string[]) => runCli(args, work);

describe("receipts and verify --public-key", () => {
  it("answers accepted commands with a receipt the published key checks, and verify with that key passes the log until a forger rewrites it", async () => {
    const dataDir = path.join(work, "data");
    const h = await Harness.start({ dataDir, env: { SHARDS: "1", AUDIT_HEAD_EVERY_COMMANDS: "3" } });
    let publicKeyFile: string;
    try {
      const [creator, bob, carol] = await h.principals("creator", "bob", "carol");
      await openMarket(h, creator, "table-1", directClaimMechanism({ capacity: 1 }));
      const won = await h.post("/v1/markets/table-1/direct-claims", { commandId: "c-bob", principalId: "bob" }, bob.auth);
      expect(won.status).toBe(200);
      const lost = await h.post("/v1/markets/table-1/direct-claims", { commandId: "c-carol", principalId: "carol" }, carol.auth);
      expect(lost.status).toBe(409);
      expect(lost.headers.get("market-receipt")).toBeNull();

      const keys = await h.client.request("GET", "/v1/audit/keys");
      expect(keys.status).toBe(200);
      const current = keys.body.keys.at(-1) as { keyId: string; publicKey: string };
      const header = won.headers.get("market-receipt");
      expect(header).not.toBeNull();
      const parsed = parseReceipt(header as string);
      if (!parsed.ok) throw new Error(parsed.message);
      expect(parsed.receipt.head.logId).toBe("shard-0");
      expect(parsed.receipt.head.keyId).toBe(current.keyId);
      expect(verifyHead(signedHeadOf(parsed.receipt.head), base64UrlDecode(current.publicKey))).toBe(true);
      expect(parsed.receipt.leafIndex).toBeLessThan(parsed.receipt.head.treeSize);
      // An idempotent retry gets the original reply, receipt included.
      const retried = await h.post("/v1/markets/table-1/direct-claims", { commandId: "c-bob", principalId: "bob" }, bob.auth);
      expect(retried.text).toBe(won.text);
      expect(retried.headers.get("market-receipt")).toBe(header);
      // After a restart the reply is replayed from the log: the receipt names the same entry, under a head signed now.
      await h.restart();
      const replayed = await h.post("/v1/markets/table-1/direct-claims", { commandId: "c-bob", principalId: "bob" }, await h.freshToken(bob));
      expect(replayed.text).toBe(won.text);
      const again = parseReceipt(replayed.headers.get("market-receipt") ?? "");
      if (!again.ok) throw new Error(again.message);
      expect(again.receipt.leafIndex).toBe(parsed.receipt.leafIndex);
      expect(again.receipt.head.treeSize).toBeGreaterThan(parsed.receipt.head.treeSize);
      expect(verifyHead(signedHeadOf(again.receipt.head), base64UrlDecode(current.publicKey))).toBe(true);
      publicKeyFile = path.join(work, "keys.json");
      writeFileSync(publicKeyFile, keys.text);
    } finally {
      await h.close();
    }

    const verified = await cli(["verify", "--data", dataDir, "--public-key", publicKeyFile]);
    expect(verified.stderr).toMatch(/signed head\(s\) verified: roots and signatures checked/);
    expect(verified.status, verified.stderr).toBe(0);

    // A forger who keeps the signed heads is caught by their roots alone, key or not.
    const shardDir = path.join(dataDir, "shards", "00");
    const original = readShard(shardDir);
    writeShard(dataDir, forged(original, { bob: "carol", carol: "bob" }, "keep heads"));
    const rootsOnly = await cli(["verify", "--data", dataDir]);
    expect(rootsOnly.status).toBe(1);
    expect(rootsOnly.stderr).toMatch(/verify: FAILED: log shard-0: the head recorded at entry \d+ has a root hash that is not the entries' before it/);
    // One who drops them leaves a log that is consistent in itself (verify without the key passes it,
    // as every verify did before signed heads), and only the key tells it is not the service's.
    writeShard(dataDir, forged(original, { bob: "carol", carol: "bob" }, "drop heads"));
    const unkeyed = await cli(["verify", "--data", dataDir]);
    expect(unkeyed.status, unkeyed.stderr).toBe(0);
    expect(unkeyed.stdout).toMatch(/table-1/);
    const keyed = await cli(["verify", "--data", dataDir, "--public-key", publicKeyFile]);
    expect(keyed.status).toBe(1);
    expect(keyed.stderr).toMatch(/verify: FAILED: log shard-0: \d+ entries and no signed head/);

    const unusable = await cli(["verify", "--data", dataDir, "--public-key", path.join(work, "missing.pem")]);
    expect(unusable.status).toBe(2);
    expect(unusable.stderr).toMatch(/--public-key .*missing\.pem: cannot be read/);
  }, 120_000);
});
