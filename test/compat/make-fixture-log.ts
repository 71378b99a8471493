/**
 * Writes `test/compat/fixture-log/`: a small data directory written by the service as it is when
 * this runs, with what it answered, so later code can be held to replaying it byte for byte
 * (test/compat/fixture-log.test.ts). Both mechanisms, identities and a delegation (issued, used,
 * revoked), accepted and rejected commands, a hold expiry, an auction resolved with a decline and a
 * promotion, an auction closing with no trade, idempotent retries.
 *
 * The committed fixture is the output of one run; running this again replaces it (only do that on
 * purpose: the point of the fixture is that it was written by older code).
 *
 *   node --import tsx test/compat/make-fixture-log.ts
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { MarketClient, type Credentials, type IdentityFile } from "@market-service/client";
import { ManualClock } from "../../engine/clock.js";
import { startService, type RunningService } from "../../gateway/service.js";
import { FIXTURE_DIR, FIXTURE_ENV, FIXTURE_START_MS, OPERATOR, type FixtureExpectations, type RecordedExchange } from "./fixture.js";

const workDir = mkdtempSync(path.join(tmpdir(), "fixture-log-"));
const dataDir = path.join(workDir, "data");
const clock = new ManualClock(FIXTURE_START_MS);
let service: RunningService = await startService({ env: { ...FIXTURE_ENV, DATA_DIR: dataDir }, clock, controlledClock: true, onFatal: (m) => fail(m) });
let client = new MarketClient({ baseUrl: service.url });
const exchanges: RecordedExchange[] = [];
const identities: Record<string, IdentityFile> = {};
const tokens: Record<string, Credentials> = {};

function fail(message: string): never {
  throw new Error(message);
}

function iso(offsetMs: number): string {
  return new Date(clock.nowMs() + offsetMs).toISOString();
}

async function send(method: "GET" | "POST", route: string, body: unknown, as: string, expectStatus: number): Promise<any> {
  const credentials = tokens[as] ?? fail(`no token for ${as}`);
  const response = await client.request(method, route, { body, credentials });
  if (response.status !== expectStatus) fail(`${method} ${route} as ${as}: ${response.status} ${response.text}`);
  exchanges.push({ method, route, body: body ?? null, as, status: response.status, reply: response.text });
  return response.body;
}

function advance(ms: number): void {
  clock.advance(ms);
  service.publishTime();
}

const operator = { ...OPERATOR, timestampSeconds: Math.floor(clock.nowMs() / 1000) };
for (const name of ["alice", "bob", "carol", "dave", "erin"]) {
  identities[name] = await client.provisionNewIdentity({ principalId: name, commandId: `provision-${name}` }, { credentials: { kind: "hmac", ...operator } });
  tokens[name] = { kind: "bearer", token: (await client.signIn(identities[name] as IdentityFile)).accessToken };
}

const subject = { schema: "table.v1", data: { seats: 4, note: "Fensterplatz — 窓際" } };
const direct = (capacity: number, confirmation: string, holdDurationSeconds?: number) => ({
  presetId: "direct-claim.v1",
  config: { capacity, pricing: { mode: "free" }, confirmation, ...(holdDurationSeconds === undefined ? {} : { holdDurationSeconds }) },
});
const auction = (closesAt: string) => ({ presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt, holdDurationSeconds: 60, reserveAmountMinor: 50 } });

// A direct claim with participant confirmation: accepted, refused for capacity, confirmed, expired, re-claimed.
await send("POST", "/v1/markets", { commandId: "d1-create", marketId: "table-1", principalId: "alice", subject, mechanism: direct(2, "participant", 60) }, "alice", 201);
await send("POST", "/v1/markets/table-1/publish", { commandId: "d1-publish-stale", principalId: "alice", expectedVersion: 7 }, "alice", 409);
await send("POST", "/v1/markets/table-1/publish", { commandId: "d1-publish", principalId: "alice", expectedVersion: 1 }, "alice", 200);
const bobClaim = await send("POST", "/v1/markets/table-1/direct-claims", { commandId: "d1-bob", principalId: "bob" }, "bob", 200);
await send("POST", "/v1/markets/table-1/direct-claims", { commandId: "d1-carol", principalId: "carol" }, "carol", 200);
await send("POST", "/v1/markets/table-1/direct-claims", { commandId: "d1-dave", principalId: "dave" }, "dave", 409);
await send("POST", "/v1/markets/table-1/direct-claims", { commandId: "d1-alice-own", principalId: "alice" }, "alice", 403);
const bobCommitment = (bobClaim.commitments as Array<{ id: string; participantPrincipalId: string }>).find((c) => c.participantPrincipalId === "bob")?.id ?? fail("no commitment for bob");
await send("POST", `/v1/commitments/${bobCommitment}/confirm`, { commandId: "d1-bob-confirm", principalId: "bob" }, "bob", 200);
// Carol's hold expires (commitment.expire); a shard takes the time before the requests sent after it.
advance(61_000);
await send("POST", "/v1/markets/table-1/direct-claims", { commandId: "d1-dave-again", principalId: "dave" }, "dave", 200);
// Idempotent retries: the same command answers the same; another body with the same id conflicts.
await send("POST", "/v1/markets/table-1/direct-claims", { commandId: "d1-bob", principalId: "bob" }, "bob", 200);
await send("POST", "/v1/markets/table-1/direct-claims", { commandId: "d1-bob", principalId: "bob", expectedVersion: 3 }, "bob", 409);

// A delegation: alice lets erin claim for her; used, revoked, refused.
await send("POST", "/v1/delegations", { commandId: "del-1", delegationId: "alice-to-erin", principalId: "alice", delegateActorId: "erin", scopes: ["market:claim"] }, "alice", 201);
await send("POST", "/v1/markets", { commandId: "d2-create", marketId: "table-2", principalId: "bob", subject, mechanism: direct(1, "none") }, "bob", 201);
await send("POST", "/v1/markets/table-2/publish", { commandId: "d2-publish", principalId: "bob", expectedVersion: 1 }, "bob", 200);
await send("POST", "/v1/markets/table-2/direct-claims", { commandId: "d2-erin-for-alice", principalId: "alice", authorityRef: "alice-to-erin" }, "erin", 200);
await send("POST", "/v1/delegations/alice-to-erin/revoke", { commandId: "del-1-revoke", principalId: "alice" }, "alice", 200);
await send("POST", "/v1/markets", { commandId: "d3-create", marketId: "table-3", principalId: "bob", subject, mechanism: direct(3, "none") }, "bob", 201);
await send("POST", "/v1/markets/table-3/publish", { commandId: "d3-publish", principalId: "bob", expectedVersion: 1 }, "bob", 200);
await send("POST", "/v1/markets/table-3/direct-claims", { commandId: "d3-erin-for-alice", principalId: "alice", authorityRef: "alice-to-erin" }, "erin", 403);
await send("POST", "/v1/markets/table-3/direct-claims", { commandId: "d3-dave", principalId: "dave" }, "dave", 200);

// A sealed auction: three bids and a refused one, closed by the clock, the winner declines, the next is promoted and confirms.
await send("POST", "/v1/markets", { commandId: "a1-create", marketId: "slot-1", principalId: "carol", subject, mechanism: auction(iso(300_000)) }, "carol", 201);
await send("POST", "/v1/markets/slot-1/publish", { commandId: "a1-publish", principalId: "carol", expectedVersion: 1 }, "carol", 200);
await send("POST", "/v1/markets/slot-1/sealed-bids", { commandId: "a1-alice", principalId: "alice", amountMinor: 100, currency: "EUR" }, "alice", 200);
await send("POST", "/v1/markets/slot-1/sealed-bids", { commandId: "a1-bob", principalId: "bob", amountMinor: 250, currency: "EUR" }, "bob", 200);
await send("POST", "/v1/markets/slot-1/sealed-bids", { commandId: "a1-dave", principalId: "dave", amountMinor: 180, currency: "EUR" }, "dave", 200);
await send("POST", "/v1/markets/slot-1/sealed-bids", { commandId: "a1-bob-again", principalId: "bob", amountMinor: 300, currency: "EUR" }, "bob", 409);
await send("GET", "/v1/markets/slot-1/my-outcome", undefined, "bob", 200);
// A second auction that closes with no bid.
await send("POST", "/v1/markets", { commandId: "a2-create", marketId: "slot-2", principalId: "dave", subject, mechanism: auction(iso(300_000)) }, "dave", 201);
await send("POST", "/v1/markets/slot-2/publish", { commandId: "a2-publish", principalId: "dave", expectedVersion: 1 }, "dave", 200);
advance(301_000); // both auctions close: sealed_auction.resolve
const outcome = await send("GET", "/v1/markets/slot-1/my-outcome", undefined, "bob", 200);
const bobWin = (outcome.commitments as Array<{ id: string }>)[0]?.id ?? fail("bob did not win");
await send("POST", `/v1/commitments/${bobWin}/decline`, { commandId: "a1-bob-decline", principalId: "bob" }, "bob", 200);
const daveOutcome = await send("GET", "/v1/markets/slot-1/my-outcome", undefined, "dave", 200);
const daveWin = (daveOutcome.commitments as Array<{ id: string }>)[0]?.id ?? fail("dave was not promoted");
await send("POST", `/v1/commitments/${daveWin}/confirm`, { commandId: "a1-dave-confirm", principalId: "dave" }, "dave", 200);

// Restart once (snapshots written), then a few more commands, so the log has frames after a snapshot.
await service.close();
service = await startService({ env: { ...FIXTURE_ENV, DATA_DIR: dataDir }, clock, controlledClock: true, onFatal: (m) => fail(m) });
client = new MarketClient({ baseUrl: service.url });
await send("POST", "/v1/markets/table-3/direct-claims", { commandId: "d3-carol", principalId: "carol" }, "carol", 200);
await send("POST", "/v1/markets/table-3/direct-claims", { commandId: "d3-dave", principalId: "dave" }, "dave", 200);

// What the service answers for each market now: the market, and its record (creator) with its hash.
const creators: Record<string, string> = { "table-1": "alice", "table-2": "bob", "table-3": "bob", "slot-1": "carol", "slot-2": "dave" };
const markets: FixtureExpectations["markets"] = {};
for (const [marketId, creator] of Object.entries(creators)) {
  const market = await client.request("GET", `/v1/markets/${marketId}`, { credentials: tokens[creator] });
  const record = await client.request("GET", `/v1/markets/${marketId}/record`, { credentials: tokens[creator] });
  if (market.status !== 200 || record.status !== 200) fail(`reading ${marketId}: ${market.status} ${record.status}`);
  markets[marketId] = { creator, market: market.text, record: record.text, recordHash: (record.body as { integrity: { recordHash: string } }).integrity.recordHash };
}
await service.close();

const expectations: FixtureExpectations = { writtenBy: process.env["FIXTURE_COMMIT"] ?? "unknown", identities, exchanges, markets };
rmSync(FIXTURE_DIR, { recursive: true, force: true });
cpSync(dataDir, path.join(FIXTURE_DIR, "data"), { recursive: true });
rmSync(path.join(FIXTURE_DIR, "data", "market-service.pid"), { force: true });
writeFileSync(path.join(FIXTURE_DIR, "expected.json"), `${JSON.stringify(expectations, null, 1)}\n`);
rmSync(workDir, { recursive: true, force: true });
process.stdout.write(`fixture written to ${FIXTURE_DIR}: ${exchanges.length} exchanges, ${Object.keys(markets).length} markets\n`);
