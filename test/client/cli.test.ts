/**
 * The CLI's participant commands, which run on the SDK, as processes of the built CLI against a real
 * service: `claim` and `bid` with an identity file keep the receipt (`--receipt-out`);
 * `check-receipt` proves it with the public keys given, writes the proof file that `check-proof` then
 * checks offline, and fails an altered receipt; refusals name the code and the request id.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketClient, parseReceipt } from "@market-service/client";
import { Harness, type Principal } from "../http-api/support/harness.js";
import { CLI_JS } from "../process/support.js";
import { freePort } from "../../scripts/free-port.js";

let h: Harness;
let work: string;
let creator: Principal;

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_JS, ...args], { cwd: work, env: { ...process.env, SERVICE_HMAC_ACTOR: "operator", SERVICE_HMAC_SECRET: "operator-secret-0123456789-abcdefghijklmnop", ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  // The CLI signs in on the real clock: the service's starts there too.
  h = await Harness.start({ startMs: Date.now() });
  work = mkdtempSync(path.join(tmpdir(), "sdk-cli-"));
  [creator] = await h.principals("creator");
  const client = new MarketClient({ baseUrl: h.url, credentials: creator.auth });
  await client.createMarket({ marketId: "cli-m", principalId: "creator", subject: { schema: "s.v1", data: {} }, mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" } } });
  await client.publishMarket("cli-m", { principalId: "creator", expectedVersion: 1 });
  const closesAt = new Date(Date.now() + 3_600_000).toISOString();
  await client.createMarket({ marketId: "cli-a", principalId: "creator", subject: { schema: "lot.v1", data: {} }, mechanism: { presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt, holdDurationSeconds: 60 } } });
  await client.publishMarket("cli-a", { principalId: "creator", expectedVersion: 1 });
  writeFileSync(path.join(work, "keys.json"), JSON.stringify(await client.auditKeys()));
  for (const who of ["bob", "carol"]) {
    const provisioned = await cli(["provision", "--principal", who, "--out", `${who}.json`, "--url", h.url]);
    expect(provisioned.code, provisioned.stderr).toBe(0);
  }
});

afterAll(async () => {
  await h?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("claim, bid and check-receipt", { timeout: 120_000 }, () => {
  it("claims with an identity file and keeps a receipt that check-receipt proves and check-proof checks again offline", async () => {
    const claimed = await cli(["claim", "--identity", "bob.json", "--market", "cli-m", "--url", h.url, "--receipt-out", "bob.receipt.json"]);
    expect(claimed.code, claimed.stderr).toBe(0);
    expect(JSON.parse(claimed.stdout).commitments[0].participantPrincipalId).toBe("bob");
    expect(claimed.stderr).toMatch(/claim on market "cli-m" accepted: command [0-9a-f-]{36}, entry \d+ of log shard-\d, receipt → bob\.receipt\.json/);
    // A kept receipt: the header's receipt and the command it is for.
    const kept = JSON.parse(readFileSync(path.join(work, "bob.receipt.json"), "utf8")) as { receipt: unknown; command: Record<string, string> };
    expect(parseReceipt(JSON.stringify(kept.receipt)).ok).toBe(true);
    expect(kept.command).toEqual({ type: "direct_claim.submit", marketId: "cli-m", commandId: expect.stringMatching(/^[0-9a-f-]{36}$/), actorId: "bob" });

    const checked = await cli(["check-receipt", "bob.receipt.json", "--identity", "bob.json", "--public-key", "keys.json", "--url", h.url, "--proof-out", "bob.proof.json"]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^check-receipt: proven: entry \d+ \(leaf \d+\)/);
    expect(checked.stdout).toContain(`(your command "direct_claim.submit" "${kept.command["commandId"] ?? ""}" on market "cli-m" by actor "bob")`);
    const offline = await cli(["check-proof", "bob.proof.json", "--public-key", "keys.json"]);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toMatch(/^check-proof: proven: entry \d+ \(leaf \d+\) \(your command/);

    // Offline, from the saved files alone: no identity, no service.
    const saved = await cli(["check-receipt", "bob.receipt.json", "--public-key", "keys.json", "--proof", "bob.proof.json"]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toMatch(/^check-receipt: proven: entry \d+/);
    // The receipt's index moved by one: the saved proof is for another leaf (offline), and the service's proof of that leaf is another command (online).
    const receipt = kept.receipt as { leafIndex: number };
    writeFileSync(path.join(work, "moved.receipt.json"), JSON.stringify({ ...kept, receipt: { ...receipt, leafIndex: receipt.leafIndex - 1 } }));
    const movedOffline = await cli(["check-receipt", "moved.receipt.json", "--public-key", "keys.json", "--proof", "bob.proof.json"]);
    expect(movedOffline.code).toBe(1);
    expect(movedOffline.stderr).toMatch(/^check-receipt: FAILED: inclusion proof: /);
    const movedOnline = await cli(["check-receipt", "moved.receipt.json", "--identity", "bob.json", "--public-key", "keys.json", "--url", h.url]);
    expect(movedOnline.code, movedOnline.stderr).toBe(1);
    expect(movedOnline.stderr).toMatch(/^check-receipt: FAILED: entry: the service withholds the receipt's entry from actor "bob", who sees every entry of theirs: it is not your command/);
    // The service out of reach: nothing could be checked (exit 3), not a forgery (exit 1).
    const down = await cli(["check-receipt", "bob.receipt.json", "--identity", "bob.json", "--public-key", "keys.json", "--url", "http://127.0.0.1:9"]);
    expect(down.code, down.stderr).toBe(3);
    // The SDK rides out a restart first (I45): its first retry is announced, then the verdict.
    expect(down.stderr).toMatch(/^market-service: cannot reach http:\/\/127\.0\.0\.1:9 .*trying again/);
    expect(down.stderr).toMatch(/^check-receipt: could not check: .*check offline with --proof/m);
  });

  it("fails an altered receipt (exit 1) and refuses an unusable one (exit 2)", async () => {
    const text = readFileSync(path.join(work, "bob.receipt.json"), "utf8");
    const value = JSON.parse(text) as { receipt: { head: { treeSize: number; rootHash: string } } };
    const head = value.receipt.head;
    head.rootHash = `${head.rootHash[0] === "0" ? "1" : "0"}${head.rootHash.slice(1)}`;
    writeFileSync(path.join(work, "altered.receipt.json"), JSON.stringify(value));
    const altered = await cli(["check-receipt", "altered.receipt.json", "--identity", "bob.json", "--public-key", "keys.json", "--url", h.url]);
    expect(altered.code).toBe(1);
    expect(altered.stderr).toMatch(/^check-receipt: FAILED: receipt head signature: the head's signature does not verify/);
    writeFileSync(path.join(work, "junk.receipt.json"), JSON.stringify({ receipt: {}, command: JSON.parse(text).command }));
    const junk = await cli(["check-receipt", "junk.receipt.json", "--identity", "bob.json", "--public-key", "keys.json", "--url", h.url]);
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(/^check-receipt: unusable: junk\.receipt\.json: receipt: receipt\.leafIndex/);
    // A bare receipt (the header alone) needs its command named.
    writeFileSync(path.join(work, "bare.receipt.json"), JSON.stringify(JSON.parse(text).receipt));
    const bare = await cli(["check-receipt", "bare.receipt.json", "--identity", "bob.json", "--public-key", "keys.json", "--url", h.url]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^check-receipt: unusable: bare\.receipt\.json is a bare receipt: give the command it is for with --type, --market, --command-id and --actor/);
    const named = await cli(["check-receipt", "bare.receipt.json", "--identity", "bob.json", "--public-key", "keys.json", "--url", h.url, "--type", "direct_claim.submit", "--market", "cli-m", "--command-id", JSON.parse(text).command.commandId, "--actor", "bob"]);
    expect(named.code, named.stderr).toBe(0);
    const neither = await cli(["check-receipt", "bare.receipt.json", "--public-key", "keys.json"]);
    expect(neither.code).toBe(2);
  });

  it("names the code and the request id of a refused claim, and sends nothing when the receipt file exists", async () => {
    const full = await cli(["claim", "--identity", "carol.json", "--market", "cli-m", "--url", h.url]);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/^market-service: POST \/v1\/markets\/cli-m\/direct-claims failed: 409 capacity_exhausted: .* \(request id [A-Za-z0-9._:-]+\)/);
    const kept = await cli(["claim", "--identity", "carol.json", "--market", "cli-m", "--url", h.url, "--receipt-out", "bob.receipt.json"]);
    expect(kept.code).toBe(1);
    expect(kept.stderr).toContain("bob.receipt.json exists; refusing to overwrite a receipt");
    const record = await new MarketClient({ baseUrl: h.url, credentials: creator.auth }).getMarketRecord("cli-m");
    expect(record.commands.filter((command) => command.identity.principalId === "carol")).toHaveLength(1);
  });

  it("goes to $MARKET_SERVICE_URL before the identity file's URL, and a claim that got no answer names its command id to repeat it safely", async () => {
    const closed = await freePort();
    const url = `http://127.0.0.1:${closed}`;
    const lost = await cli(["claim", "--identity", "bob.json", "--market", "cli-m", "--command-id", "bob-lost-1"], { MARKET_SERVICE_URL: url });
    expect(lost.code).toBe(1);
    const lines = lost.stderr.trim().split("\n");
    expect(lines[0]).toBe(`market-service: cannot reach ${url} (connection refused, ECONNREFUSED): is the service running, and on this port? — trying again for up to 20 s`);
    expect(lines[lines.length - 1]).toBe(
      `market-service: cannot reach ${url} (connection refused, ECONNREFUSED): is the service running, and on this port? (the command may or may not have been recorded: run it again with --command-id bob-lost-1 to learn which, without doing it twice)`,
    );
  });

  it("bids with an identity file, never printing the amount, and keeps the receipt", async () => {
    const bid = await cli(["bid", "--identity", "carol.json", "--market", "cli-a", "--amount-minor", "4321", "--currency", "EUR", "--url", h.url, "--receipt-out", "carol.bid.json"]);
    expect(bid.code, bid.stderr).toBe(0);
    expect(`${bid.stdout}${bid.stderr}`).not.toContain("4321");
    expect(JSON.parse(bid.stdout).bidReceipts[0].state).toBe("active");
    expect(existsSync(path.join(work, "carol.bid.json"))).toBe(true);
    const checked = await cli(["check-receipt", "carol.bid.json", "--identity", "carol.json", "--public-key", "keys.json", "--url", h.url]);
    expect(checked.code, checked.stderr).toBe(0);
    const refused = await cli(["bid", "--identity", "carol.json", "--market", "cli-a", "--amount-minor", "0", "--currency", "EUR", "--url", h.url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--amount-minor.*an integer from 1/);
  });
});
