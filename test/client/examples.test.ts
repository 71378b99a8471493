/**
 * The examples (examples/*.ts) run as their README says — `node --import tsx examples/<name>.ts`, as
 * processes importing `@market-service/client` (the client package, built to packages/client/dist/) — against a real
 * service: provisioning writes identity files (to `example-identities/`, apart from the quick
 * start's `identities/`); a claim storm of five participants on a market of two places has exactly
 * two winners; two auction bidders learn who won at the second price, and the winner confirms; a
 * refusal is one line on stderr, never a stack trace.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketClient, parseReceipt } from "@market-service/client";
import { Harness, OPERATOR_SECRET, type Principal } from "../http-api/support/harness.js";
import { eventually, REPO_ROOT } from "../process/support.js";

let h: Harness;
let work: string;
let creator: Principal;
let asCreator: MarketClient;

interface Running {
  output(): { stdout: string; stderr: string };
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** tsx by absolute URL: the examples run in a scratch folder with no node_modules. */
const TSX = import.meta.resolve("tsx");

function example(name: string, args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, ["--import", TSX, path.join(REPO_ROOT, "examples", `${name}.ts`), ...args], { cwd: work, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
  return { output: () => ({ stdout, stderr }), done };
}

const OPERATOR_ENV = { SERVICE_HMAC_ACTOR: "operator", SERVICE_HMAC_SECRET: OPERATOR_SECRET };

beforeAll(async () => {
  // The examples sign in on the real clock: the service's starts there too (and moves only when told).
  h = await Harness.start({ startMs: Date.now() });
  work = mkdtempSync(path.join(tmpdir(), "sdk-examples-"));
  [creator] = await h.principals("creator");
  asCreator = new MarketClient({ baseUrl: h.url, credentials: creator.auth });
});

afterAll(async () => {
  await h?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("examples", { timeout: 120_000 }, () => {
  it("operator-provisioning writes one 0600 identity file per name into example-identities/, and skips names that exist", async () => {
    const names = ["p1", "p2", "p3", "p4", "p5", "b1", "b2"];
    const first = await example("operator-provisioning", ["--url", h.url, ...names], OPERATOR_ENV).done;
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(work)).not.toContain("identities");
    expect(readdirSync(path.join(work, "example-identities")).sort()).toEqual(names.map((name) => `${name}.identity.json`).sort());
    expect(statSync(path.join(work, "example-identities", "p1.identity.json")).mode & 0o777).toBe(0o600);
    const again = await example("operator-provisioning", ["--url", h.url, "--out", "ids-again", "p1"], OPERATOR_ENV).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^exists p1: /);
  });

  it("claim-storm-participant: five at once on two places, two win and keep receipts, three are told it is full", async () => {
    await asCreator.createMarket({ marketId: "storm-1", principalId: "creator", subject: { schema: "seat.v1", data: {} }, mechanism: { presetId: "direct-claim.v1", config: { capacity: 2, pricing: { mode: "free" }, confirmation: "none" } } });
    await asCreator.publishMarket("storm-1", { principalId: "creator", expectedVersion: 1 });
    const runs = ["p1", "p2", "p3", "p4", "p5"].map((who) => example("claim-storm-participant", ["--url", h.url, "--identity", `example-identities/${who}.identity.json`, "--market", "storm-1", "--receipt-out", `${who}.receipt.json`]));
    const results = await Promise.all(runs.map((run) => run.done));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const outcomes = results.map((result) => JSON.parse(result.stdout) as { principalId: string; outcome: string; commitmentId?: string });
    const winners = outcomes.filter((outcome) => outcome.outcome === "won");
    expect(winners).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome.outcome === "full")).toHaveLength(3);
    for (const winner of winners) expect(readdirSync(work)).toContain(`${winner.principalId}.receipt.json`);
    const record = await asCreator.getMarketRecord("storm-1");
    const claims = record.commands.filter((command) => command.type === "direct_claim.submit");
    expect(claims.filter((command) => command.status === "accepted").map((command) => command.identity.principalId).sort()).toEqual(winners.map((winner) => winner.principalId).sort());
    expect(claims.filter((command) => command.status === "rejected").every((command) => command.rejectionCode === "capacity_exhausted")).toBe(true);
    expect(claims).toHaveLength(5);
    expect(parseReceipt(readFileSync(path.join(work, `${winners[0]?.principalId}.receipt.json`), "utf8").trim()).ok).toBe(true);
  });

  it("auction-bidder: two bidders, the higher wins at the lower bid (second price) and confirms", async () => {
    const closesAt = new Date(h.clock.nowMs() + 60_000).toISOString();
    await asCreator.createMarket({ marketId: "lamp-1", principalId: "creator", subject: { schema: "lot.v1", data: { item: "lamp" } }, mechanism: { presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt, holdDurationSeconds: 600 } } });
    await asCreator.publishMarket("lamp-1", { principalId: "creator", expectedVersion: 1 });
    const low = example("auction-bidder", ["--url", h.url, "--identity", "example-identities/b1.identity.json", "--market", "lamp-1", "--amount-minor", "1500", "--wait-seconds", "60"]);
    const high = example("auction-bidder", ["--url", h.url, "--identity", "example-identities/b2.identity.json", "--market", "lamp-1", "--amount-minor", "2000", "--receipt-out", "b2.bid.json", "--wait-seconds", "60"]);
    await eventually(() => low.output().stderr.includes("bid placed") && high.output().stderr.includes("bid placed"), 60_000, "both bids");
    // The auction's close, on the service's clock.
    h.advance(61_000);
    const [lost, won] = await Promise.all([low.done, high.done]);
    expect(lost.code, lost.stderr).toBe(0);
    expect(won.code, won.stderr).toBe(0);
    expect(JSON.parse(lost.stdout)).toEqual({ principalId: "b1", outcome: "lost" });
    const winner = JSON.parse(won.stdout) as { outcome: string; commitmentId: string; price: { amountMinor: number } };
    expect(winner).toMatchObject({ principalId: "b2", outcome: "won", price: { rule: "second_price", amountMinor: 1500, currency: "EUR" } });
    expect(`${won.stdout}${won.stderr}`).not.toContain("2000");
    const record = await asCreator.getMarketRecord("lamp-1");
    expect(record.commands.filter((command) => command.type === "commitment.confirm" && command.status === "accepted")).toHaveLength(1);
  });

  it("a refusal is one line naming the request, status, code and message, not a stack trace", async () => {
    const missing = await example("claim-storm-participant", ["--url", h.url, "--identity", "example-identities/p1.identity.json", "--market", "no-such-market"]).done;
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^claim-storm-participant: POST \/v1\/markets\/no-such-market\/direct-claims failed: 404 market_not_found: [^\n]+ \(request id [^\n]+\)\n$/);
    const wrongSecret = await example("operator-provisioning", ["--url", h.url, "p9"], { SERVICE_HMAC_ACTOR: "operator", SERVICE_HMAC_SECRET: "not-the-secret-0123456789-abcdefghijklmnop" }).done;
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stderr).toMatch(/^operator-provisioning: POST \/v1\/admin\/identities failed: 401 unauthenticated: [^\n]+\n$/);
    const bidderMissing = await example("auction-bidder", ["--url", h.url, "--identity", "example-identities/b1.identity.json", "--market", "no-such-lamp", "--amount-minor", "100"]).done;
    expect(bidderMissing.code).toBe(1);
    expect(bidderMissing.stderr).toMatch(/^auction-bidder: POST \/v1\/markets\/no-such-lamp\/sealed-bids failed: 404 market_not_found: [^\n]+\n$/);
  });
});
