/**
 * A log written by older code (test/compat/fixture-log, made by make-fixture-log.ts; `writtenBy` in
 * its expected.json names the commit) replays under this code to the same bytes: the audit path
 * (raw segments, no snapshots) gives every market's record and hash exactly, `verify` accepts it,
 * and a service started on it answers every market and record with the same text, authenticates the
 * identities it holds, and answers every recorded command again with the reply it gave then.
 */
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayDataDir, replayMarketRecord, verifyDataDir } from "../../engine/replay/audit-replay.js";
import { MarketClient, type Credentials, type IdentityFile } from "@market-service/client";
import { ManualClock } from "../../engine/clock.js";
import { startService, type RunningService } from "../../gateway/service.js";
import { FIXTURE_DIR, FIXTURE_ENV, FIXTURE_START_MS, type FixtureExpectations } from "./fixture.js";

const expected = JSON.parse(readFileSync(path.join(FIXTURE_DIR, "expected.json"), "utf8")) as FixtureExpectations;

/** A private copy: opening a log may write (a torn tail, new snapshots), the fixture must not change. */
function copyOfFixture(): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), "fixture-copy-")), "data");
  cpSync(path.join(FIXTURE_DIR, "data"), dir, { recursive: true });
  return dir;
}

describe("the fixture log, audited from its raw segments", () => {
  it("replays every market to the recorded record hash", async () => {
    const result = await replayDataDir(copyOfFixture(), { threads: 1 });
    const hashes = Object.fromEntries(result.markets.map((market) => [market.marketId, market.recordHash]));
    expect(hashes).toEqual(Object.fromEntries(Object.entries(expected.markets).map(([id, market]) => [id, market.recordHash])));
  });

  it("replays every market's record to the same JSON text the service answered", () => {
    const dataDir = copyOfFixture();
    for (const [marketId, market] of Object.entries(expected.markets)) {
      expect(JSON.stringify(replayMarketRecord(dataDir, marketId)), marketId).toBe(market.record);
    }
  });

  it("verifies (CRCs, chain, snapshots against the replay)", async () => {
    const result = await verifyDataDir(copyOfFixture(), { threads: 1 });
    expect(result.problem).toBeUndefined();
    expect(result.ok).toBe(true);
  });
});

/**
 * The fixture predates signed heads: none of its logs has one, and nothing can tell such a log from
 * one whose heads were stripped (decisions.md I42). A service refuses it, naming each log's first
 * uncovered entry, until its operator accepts those tails by name, as an upgrade from such a build does.
 */
const ACCEPTED_TAILS = "shard-0:1,shard-1:1";

describe("a service asked to start on the fixture log without accepting its unsigned tails", () => {
  it("refuses, naming a log, its first uncovered entry and the setting that accepts it", async () => {
    const clock = new ManualClock(FIXTURE_START_MS + 400_000);
    await expect(startService({ env: { ...FIXTURE_ENV, DATA_DIR: copyOfFixture() }, clock, controlledClock: true })).rejects.toThrow(/log (shard-[01]): first uncovered entry 1: .*AUDIT_ACCEPT_UNSIGNED_TAIL=shard-[01]:1/);
  });
});

describe("a service started on the fixture log", () => {
  let service: RunningService;
  let client: MarketClient;
  const tokens = new Map<string, Credentials>();

  beforeAll(async () => {
    // After every deadline the fixture's commands passed.
    const clock = new ManualClock(FIXTURE_START_MS + 400_000);
    service = await startService({ env: { ...FIXTURE_ENV, DATA_DIR: copyOfFixture(), AUDIT_ACCEPT_UNSIGNED_TAIL: ACCEPTED_TAILS }, clock, controlledClock: true });
    client = new MarketClient({ baseUrl: service.url });
    for (const [name, identity] of Object.entries(expected.identities)) {
      tokens.set(name, { kind: "bearer", token: (await client.signIn(identity as IdentityFile)).accessToken });
    }
  });

  afterAll(async () => {
    await service?.close();
  });

  it("authenticates every identity the log holds (challenge → token)", () => {
    expect([...tokens.keys()].sort()).toEqual(Object.keys(expected.identities).sort());
  });

  it("answers every market and record with the same text", async () => {
    for (const [marketId, market] of Object.entries(expected.markets)) {
      const credentials = tokens.get(market.creator) as Credentials;
      expect((await client.request("GET", `/v1/markets/${marketId}`, { credentials })).text, marketId).toBe(market.market);
      expect((await client.request("GET", `/v1/markets/${marketId}/record`, { credentials })).text, marketId).toBe(market.record);
    }
  });

  it("answers every recorded command again with the status and reply it gave then", async () => {
    const commands = expected.exchanges.filter((exchange) => exchange.method === "POST");
    expect(commands.length).toBeGreaterThan(25);
    for (const exchange of commands) {
      const response = await client.request("POST", exchange.route, { body: exchange.body, credentials: tokens.get(exchange.as) as Credentials });
      expect({ status: response.status, reply: response.text }, `${exchange.route} ${JSON.stringify(exchange.body)}`).toEqual({ status: exchange.status, reply: exchange.reply });
    }
  });
});
