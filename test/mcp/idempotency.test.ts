/**
 * Idempotency across transports (spec §4 "Commands", docs/decisions.md T9): a command is identified
 * by (actor, commandId), whatever the transport and credential. Actor `twin` is provisioned (so it
 * has an Ed25519 bearer token for HTTP) and also holds a static MCP token, so HTTP and MCP calls
 * are the same actor. An identical retry on the other transport returns the original result —
 * byte for byte the same JSON — and changes nothing; other content is `idempotency_conflict` there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceResponse } from "@market-service/client";
import {
  AGENT,
  AGENT_TOKEN,
  McpHarness,
  SUBJECT,
  TWIN,
  TWIN_TOKEN,
  auctionMechanism,
  bearer,
  directClaimMechanism,
  openMarket,
  textOf,
  uid,
  type Agent,
} from "./support/harness.js";

let h: McpHarness;
let twinHttpToken: string;
let twinMcp: Agent; // static token → actor twin
let twinMcpBearer: Agent; // the Ed25519 bearer token on /mcp → actor twin as well
let agent: Agent;
let market: string; // open direct-claim market by `agent`, capacity 10, participant confirmation
let auction: string;

beforeAll(async () => {
  h = await McpHarness.start();
  twinHttpToken = (await h.provision(TWIN)).token;
  twinMcp = await h.connect(TWIN_TOKEN);
  twinMcpBearer = await h.connect(twinHttpToken);
  agent = await h.connect(AGENT_TOKEN);
  market = uid("market");
  await openMarket(agent, AGENT, market, directClaimMechanism({ capacity: 10, confirmation: "participant" }));
  auction = uid("auction");
  await openMarket(agent, AGENT, auction, auctionMechanism(h.isoIn(24 * 3600_000)));
});

afterAll(async () => {
  await h?.close();
});

function httpPost(path: string, body: unknown): Promise<ServiceResponse> {
  return h.http.request("POST", path, { body, credentials: bearer(twinHttpToken) });
}

/** MCP result text and HTTP body text must be the same JSON document, byte for byte. */
async function expectSameReply(mcp: Promise<any>, http: ServiceResponse, status: number): Promise<any> {
  expect(http.status, http.text).toBe(status);
  const result = await mcp;
  expect(result.isError ?? false, textOf(result)).toBe(false);
  expect(textOf(result)).toBe(http.text);
  return http.body;
}

describe("the same command over HTTP and MCP is one command", () => {
  it("create_market: HTTP first, then MCP (keys in another order) → the original draft; and MCP first, then HTTP → 201 with it", async () => {
    const marketId = uid("m");
    const commandId = uid("c");
    const first = await httpPost("/v1/markets", { commandId, marketId, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism() });
    expect(first.status).toBe(201);
    const replay = await twinMcp.call("create_market", { mechanism: directClaimMechanism(), subject: SUBJECT, principalId: TWIN, marketId, commandId });
    expect(textOf(replay)).toBe(first.text);
    expect(replay.structuredContent).toEqual(first.body);

    const otherId = uid("m");
    const otherCommand = uid("c");
    const viaMcp = await twinMcp.ok("create_market", { commandId: otherCommand, marketId: otherId, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism() });
    const viaHttp = await httpPost("/v1/markets", { commandId: otherCommand, marketId: otherId, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism() });
    expect(viaHttp.status).toBe(201);
    expect(viaHttp.body).toEqual(viaMcp);
  });

  it("publish_market: replayed across transports, the market is published once (version 2)", async () => {
    const marketId = uid("m");
    await twinMcp.ok("create_market", { commandId: uid("c"), marketId, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism() });
    const commandId = uid("c");
    const http = await httpPost(`/v1/markets/${marketId}/publish`, { commandId, principalId: TWIN, expectedVersion: 1 });
    const body = await expectSameReply(twinMcp.call("publish_market", { commandId, marketId, principalId: TWIN, expectedVersion: 1 }), http, 200);
    expect(body.market.version).toBe(2);
    expect((await agent.ok("get_market", { marketId })).version).toBe(2);
    const record = await twinMcp.ok("get_market_record", { marketId });
    expect(record.commands.map((c: any) => c.type)).toEqual(["market.create_draft", "market.publish"]);
  });

  it("submit_direct_claim: same commitment id, same events, one allocation — in both orders and with either MCP credential", async () => {
    const before = (await agent.ok("get_market", { marketId: market })).mechanismState.allocated;
    const k1 = uid("claim");
    const viaMcp = await twinMcp.ok("submit_direct_claim", { commandId: k1, marketId: market, principalId: TWIN });
    const http = await httpPost(`/v1/markets/${market}/direct-claims`, { commandId: k1, principalId: TWIN });
    expect(http.status).toBe(200);
    expect(http.body).toEqual(viaMcp);
    expect(http.body.commitments[0].id).toBe(viaMcp.commitments[0].id);
    expect(http.body.market.version).toBe(viaMcp.market.version);
    expect(http.body.events).toEqual(viaMcp.events);
    // The same actor through its bearer token on /mcp: still the same command.
    expect(await twinMcpBearer.ok("submit_direct_claim", { commandId: k1, marketId: market, principalId: TWIN })).toEqual(viaMcp);
    expect((await agent.ok("get_market", { marketId: market })).mechanismState.allocated).toBe(before + 1);
    await twinMcp.ok("decline_commitment", { commandId: uid("d"), commitmentId: viaMcp.commitments[0].id, principalId: TWIN });

    const k2 = uid("claim");
    const first = await httpPost(`/v1/markets/${market}/direct-claims`, { commandId: k2, principalId: TWIN });
    const body = await expectSameReply(twinMcp.call("submit_direct_claim", { commandId: k2, marketId: market, principalId: TWIN }), first, 200);
    await expectSameReply(twinMcpBearer.call("submit_direct_claim", { commandId: k2, marketId: market, principalId: TWIN }), first, 200);
    await twinMcp.ok("decline_commitment", { commandId: uid("d"), commitmentId: body.commitments[0].id, principalId: TWIN });
  });

  it("confirm_commitment: the replay returns the original confirmation (not invalid_commitment_transition)", async () => {
    const claimed = await twinMcp.ok("submit_direct_claim", { commandId: uid("claim"), marketId: market, principalId: TWIN });
    const commitmentId = claimed.commitments[0].id;
    const commandId = uid("confirm");
    const http = await httpPost(`/v1/commitments/${encodeURIComponent(commitmentId)}/confirm`, { commandId, principalId: TWIN });
    const body = await expectSameReply(twinMcp.call("confirm_commitment", { commandId, commitmentId, principalId: TWIN }), http, 200);
    expect(body.commitments[0].state).toBe("committed");
    // A new confirmation (fresh commandId) is a new command, and fails.
    await twinMcp.fails("confirm_commitment", { commandId: uid("confirm"), commitmentId, principalId: TWIN }, "invalid_commitment_transition");
  });

  it("submit_sealed_bid: the same receipt, one bid", async () => {
    const commandId = uid("bid");
    const viaMcp = await twinMcp.ok("submit_sealed_bid", { commandId, marketId: auction, principalId: TWIN, amountMinor: 777, currency: "EUR" });
    const http = await httpPost(`/v1/markets/${auction}/sealed-bids`, { commandId, principalId: TWIN, amountMinor: 777, currency: "EUR" });
    expect(http.status).toBe(200);
    expect(http.body).toEqual(viaMcp);
    expect((await agent.ok("get_market", { marketId: auction })).mechanismState.bidCount).toBe(1);
  });

  it("a rejected command replays as the same rejection on the other transport", async () => {
    const commandId = uid("claim");
    const http = await httpPost(`/v1/markets/${market}/direct-claims`, { commandId, principalId: TWIN, expectedVersion: 1 });
    expect(http.status).toBe(409);
    expect(http.body.error.code).toBe("version_conflict");
    const error = await twinMcp.fails("submit_direct_claim", { commandId, marketId: market, principalId: TWIN, expectedVersion: 1 }, "version_conflict");
    expect(error).toEqual(http.body.error);
  });
});

describe("other content under the same commandId is idempotency_conflict on the other transport", () => {
  it("HTTP first, MCP second: another subject, another operation, expectedVersion 0 vs omitted (T9)", async () => {
    const marketId = uid("m");
    const commandId = uid("c");
    expect((await httpPost("/v1/markets", { commandId, marketId, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism() })).status).toBe(201);
    await twinMcp.fails("create_market", { commandId, marketId, principalId: TWIN, subject: { ...SUBJECT, data: { changed: 1 } }, mechanism: directClaimMechanism() }, "idempotency_conflict");
    await twinMcp.fails("publish_market", { commandId, marketId, principalId: TWIN, expectedVersion: 1 }, "idempotency_conflict");

    const fresh = uid("market");
    await openMarket(agent, AGENT, fresh, directClaimMechanism({ capacity: 10 }));
    const claimId = uid("claim");
    const claimed = await httpPost(`/v1/markets/${fresh}/direct-claims`, { commandId: claimId, principalId: TWIN });
    expect(claimed.status, claimed.text).toBe(200);
    await twinMcp.fails("submit_direct_claim", { commandId: claimId, marketId: fresh, principalId: TWIN, expectedVersion: 0 }, "idempotency_conflict");
    await twinMcpBearer.fails("submit_direct_claim", { commandId: claimId, marketId: market, principalId: TWIN }, "idempotency_conflict");
    // The original is untouched: one allocation.
    expect((await agent.ok("get_market", { marketId: fresh })).mechanismState.allocated).toBe(1);
  });

  it("MCP first, HTTP second: 409 idempotency_conflict with the spec's error body", async () => {
    const commandId = uid("bid");
    await twinMcp.fails("submit_sealed_bid", { commandId, marketId: auction, principalId: TWIN, amountMinor: 5, currency: "USD" }, "invalid_command");
    const http = await httpPost(`/v1/markets/${auction}/sealed-bids`, { commandId, principalId: TWIN, amountMinor: 6, currency: "USD" });
    expect(http.status).toBe(409);
    expect(http.body).toEqual({ error: { code: "idempotency_conflict", message: expect.any(String) } });
    const marketId = uid("m");
    const created = uid("c");
    await twinMcp.ok("create_market", { commandId: created, marketId, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism() });
    const conflict = await httpPost("/v1/markets", { commandId: created, marketId, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism({ capacity: 2 }) });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("idempotency_conflict");
  });

  it("commandIds are per actor: another actor's same commandId is its own command", async () => {
    const commandId = uid("shared");
    const mine = uid("m");
    await twinMcp.ok("create_market", { commandId, marketId: mine, principalId: TWIN, subject: SUBJECT, mechanism: directClaimMechanism() });
    const theirs = uid("m");
    const other = await agent.ok("create_market", { commandId, marketId: theirs, principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() });
    expect(other.market).toMatchObject({ id: theirs, creator: { actorId: AGENT } });
  });
});
