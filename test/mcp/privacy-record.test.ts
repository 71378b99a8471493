/**
 * Sealed-bid privacy over MCP (docs/decisions.md E7): while an auction is open no bid amount
 * appears in any MCP output — content text or structuredContent of any tool, the creator's record
 * and the bidders' own outcomes included, error messages too. After resolution the record shows
 * the amounts. And record integrity (E14): the recordHash a client recomputes from the record it
 * received over MCP (RFC 8785 canonical JSON of {market, commands, commitments, events}, SHA-256)
 * equals integrity.recordHash, and the MCP record is byte for byte the HTTP record.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT,
  AGENT_TOKEN,
  McpHarness,
  TWIN,
  TWIN_TOKEN,
  auctionMechanism,
  bearer,
  directClaimMechanism,
  openMarket,
  recordHashOf,
  textOf,
  uid,
  waitFor,
  type Agent,
} from "./support/harness.js";

// Distinctive amounts: ten digits, so they cannot appear by accident in ids or timestamps.
const HIGH = 9_182_736_451;
const SECOND = 5_463_728_190;
const LOW = 3_141_592_653;
const REFUSED = 7_777_123_456; // amounts of refused bids (second bid, wrong currency)
const RESERVE = 1_000;

let h: McpHarness;
let twinHttpToken: string;
let creator: Agent; // twin: provisioned and holding a static MCP token
let bob: Agent;
let carol: Agent;
let dave: Agent;
let agent: Agent;

beforeAll(async () => {
  h = await McpHarness.start({ mode: "sse" });
  twinHttpToken = (await h.provision(TWIN)).token;
  creator = await h.connect(TWIN_TOKEN);
  bob = await h.connect((await h.provision("bob")).token);
  carol = await h.connect((await h.provision("carol")).token);
  dave = await h.connect((await h.provision("dave")).token);
  agent = await h.connect(AGENT_TOKEN);
});

afterAll(async () => {
  await h?.close();
});

/** Everything a client received from one tool call, as one string. */
function everything(result: CallToolResult): string {
  return JSON.stringify(result);
}

function expectNoAmount(result: CallToolResult, amounts: number[], where: string): void {
  const seen = everything(result);
  for (const amount of amounts) expect(seen.includes(String(amount)), `${where} reveals ${amount}: ${seen.slice(0, 400)}`).toBe(false);
}

describe("sealed-bid privacy", () => {
  it("no bid amount in any MCP output while the auction is open; the record shows them after resolution", async () => {
    const marketId = uid("auction");
    const closesAt = h.isoIn(2 * 3600_000);
    await openMarket(creator, TWIN, marketId, auctionMechanism(closesAt, { reserveAmountMinor: RESERVE }));
    const secret = [HIGH, SECOND, LOW, REFUSED];
    const outputs: Array<[string, CallToolResult]> = [];
    const call = async (who: Agent, label: string, name: string, args: Record<string, unknown>) => {
      const result = await who.call(name, args);
      outputs.push([label, result]);
      return result;
    };

    const bids: Record<string, string> = {};
    for (const [who, id, amount] of [[bob, "bob", HIGH], [carol, "carol", SECOND], [dave, "dave", LOW]] as const) {
      const result = await call(who, `bid ${id}`, "submit_sealed_bid", { commandId: uid("bid"), marketId, principalId: id, amountMinor: amount, currency: "EUR" });
      expect(result.isError ?? false, textOf(result)).toBe(false);
      bids[id] = (result.structuredContent as any).bidReceipts[0].bidId;
    }
    // Refused bids: a second bid, another currency, the creator bidding. Their messages must not echo amounts.
    expect((await call(bob, "second bid", "submit_sealed_bid", { commandId: uid("bid"), marketId, principalId: "bob", amountMinor: REFUSED, currency: "EUR" })).isError).toBe(true);
    expect((await call(agent, "wrong currency", "submit_sealed_bid", { commandId: uid("bid"), marketId, principalId: AGENT, amountMinor: REFUSED, currency: "USD" })).isError).toBe(true);
    expect((await call(creator, "creator bid", "submit_sealed_bid", { commandId: uid("bid"), marketId, principalId: TWIN, amountMinor: REFUSED, currency: "EUR" })).isError).toBe(true);
    // Reads by everyone who might be curious.
    for (const [who, label] of [[creator, "creator"], [bob, "bob"], [agent, "agent"]] as const) {
      await call(who, `get_market by ${label}`, "get_market", { marketId });
      await call(who, `outcome of ${label}`, "get_my_market_outcome", { marketId });
    }
    const openRecord = await call(creator, "record while open", "get_market_record", { marketId });
    await call(bob, "record by a bidder", "get_market_record", { marketId });

    for (const [label, result] of outputs) expectNoAmount(result, secret, label);
    expect(outputs.length).toBeGreaterThan(12);

    // While open, every bid command in the record, accepted or refused, is redacted to {sealed: true}.
    const open = openRecord.structuredContent as any;
    const bidCommands = open.commands.filter((c: any) => c.type === "sealed_auction.submit_bid");
    expect(bidCommands.length).toBe(6);
    for (const command of bidCommands) expect(command.request).toEqual({ sealed: true });
    expect(open.integrity.recordHash).toBe(recordHashOf(open));

    // Resolution: the record now shows the amounts; the winner pays the second price.
    h.advance(2 * 3600_000);
    const resolved = await waitFor(() => creator.ok("get_market_record", { marketId }), (r) => r.market.mechanismState.resolution !== undefined);
    const amountsInRecord = resolved.commands
      .filter((c: any) => c.type === "sealed_auction.submit_bid" && c.status === "accepted")
      .map((c: any) => c.request.amountMinor);
    expect(amountsInRecord).toEqual([HIGH, SECOND, LOW]);
    expect(resolved.commands.filter((c: any) => c.type === "sealed_auction.submit_bid" && c.status === "rejected").map((c: any) => c.request.amountMinor)).toEqual([REFUSED, REFUSED, REFUSED]);
    expect(resolved.integrity.recordHash).toBe(recordHashOf(resolved));
    expect(resolved.integrity.recordHash).not.toBe(open.integrity.recordHash);
    const winner = await bob.ok("get_my_market_outcome", { marketId });
    expect(winner.commitments[0].terms.pricing).toEqual({ rule: "second_price", amountMinor: SECOND, currency: "EUR" });

    // Outside the creator's record, the winning amount is never shown, even after the close.
    for (const [who, name, args] of [
      [bob, "get_market", { marketId }],
      [bob, "get_my_market_outcome", { marketId }],
      [carol, "get_my_market_outcome", { marketId }],
      [agent, "get_market", { marketId }],
    ] as const) {
      expectNoAmount(await who.call(name, args), [HIGH, LOW, REFUSED], `${name} after close`);
    }
  });
});

describe("record integrity over MCP", () => {
  it("recordHash recomputed by the client equals integrity.recordHash, after every step of a market with rejections", async () => {
    const marketId = uid("dc");
    const hashes = new Set<string>();
    const check = async () => {
      const record = await creator.ok("get_market_record", { marketId });
      expect(record.integrity).toEqual({ algorithm: "sha256-canonical-json-v1", recordHash: recordHashOf(record), stateReconstructed: true });
      expect(record.integrity.recordHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      hashes.add(record.integrity.recordHash);
      return record;
    };
    await creator.ok("create_market", { commandId: uid("c"), marketId, principalId: TWIN, subject: { schema: "odd.v1", data: { "ünïcödé": "€", "1": [1, 2.5, -0, 1e-7, 0.1], z: null, a: { b: true } } }, mechanism: directClaimMechanism({ capacity: 1 }) });
    await check();
    await creator.fails("publish_market", { commandId: uid("c"), marketId, principalId: TWIN, expectedVersion: 9 }, "version_conflict");
    await check();
    await creator.ok("publish_market", { commandId: uid("c"), marketId, principalId: TWIN, expectedVersion: 1 });
    const claimed = await bob.ok("submit_direct_claim", { commandId: uid("c"), marketId, principalId: "bob" });
    await carol.fails("submit_direct_claim", { commandId: uid("c"), marketId, principalId: "carol" }, "capacity_exhausted");
    await check();
    await bob.ok("confirm_commitment", { commandId: uid("c"), commitmentId: claimed.commitments[0].id, principalId: "bob" });
    const record = await check();
    expect(hashes.size).toBe(4);
    expect(record.commands.map((c: any) => c.status)).toEqual(["accepted", "rejected", "accepted", "accepted", "rejected", "accepted"]);

    // The MCP record and the HTTP record are the same bytes.
    const viaMcp = await creator.call("get_market_record", { marketId });
    const viaHttp = await h.http.request("GET", `/v1/markets/${marketId}/record`, { credentials: bearer(twinHttpToken) });
    expect(viaHttp.status).toBe(200);
    expect(textOf(viaMcp)).toBe(viaHttp.text);
  });

  it("the hash detects any change to the record a client received", async () => {
    const marketId = uid("dc");
    await openMarket(creator, TWIN, marketId, directClaimMechanism({ capacity: 2 }));
    const record = await creator.ok("get_market_record", { marketId });
    expect(recordHashOf(record)).toBe(record.integrity.recordHash);
    const tampered = structuredClone(record);
    tampered.events[0].occurredAt = "2000-01-01T00:00:00.000Z";
    expect(recordHashOf(tampered)).not.toBe(record.integrity.recordHash);
    const reordered = { ...record, commands: [...record.commands].reverse() };
    expect(recordHashOf(reordered)).not.toBe(record.integrity.recordHash);
  });
});

describe("direct-claim markets carry no sealed data", () => {
  it("posted prices are public (they are terms, not bids)", async () => {
    const marketId = uid("dc");
    await openMarket(creator, TWIN, marketId, directClaimMechanism({ pricing: { mode: "posted", amountMinor: 4_242, currency: "EUR" } }));
    expect((await agent.ok("get_market", { marketId })).mechanism.config.pricing.amountMinor).toBe(4_242);
  });
});
