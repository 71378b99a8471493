/**
 * Every tool's success path, in both response modes (MCP_RESPONSE_MODE=json and sse), through the
 * official SDK client: one service per mode, one full direct-claim flow and one full sealed-auction
 * flow in each, and the raw wire format of each mode (one JSON body vs an event stream).
 *
 * The SDK client validates every structuredContent against the tool's outputSchema (it listed the
 * tools first), so each successful call here is also an output-schema check.
 */
import { parseReceipt } from "@market-service/client/audit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT,
  AGENT_TOKEN,
  McpHarness,
  MODES,
  SUBJECT,
  auctionMechanism,
  directClaimMechanism,
  jsonRpcMessages,
  recordHashOf,
  uid,
  waitFor,
  type Agent,
} from "./support/harness.js";

describe.each(MODES)("MCP_RESPONSE_MODE=%s", (mode) => {
  let h: McpHarness;
  let creator: Agent; // static MCP token, actor `agent`
  let bob: Agent; // Ed25519 bearer token, principal = actor `bob`
  let carol: Agent;

  beforeAll(async () => {
    h = await McpHarness.start({ mode });
    creator = await h.connect(AGENT_TOKEN);
    bob = await h.connect((await h.provision("bob")).token);
    carol = await h.connect((await h.provision("carol")).token);
  });

  afterAll(async () => {
    await h?.close();
  });

  it(`answers tools/call with ${mode === "json" ? "one application/json body" : "a text/event-stream"}`, async () => {
    const marketId = uid("wire");
    const response = await h.rawPost(
      { jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "create_market", arguments: { commandId: uid("c"), marketId, principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() } } },
      { authorization: `Bearer ${AGENT_TOKEN}` },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(mode === "json" ? /^application\/json/ : /^text\/event-stream/);
    if (mode === "sse") expect(response.text).toMatch(/^event: message\ndata: /);
    const messages = jsonRpcMessages(response);
    expect(messages).toHaveLength(1);
    expect(messages[0].jsonrpc).toBe("2.0");
    expect(messages[0].id).toBe(42);
    expect(messages[0].error).toBeUndefined();
    expect(messages[0].result.isError ?? false).toBe(false);
    expect(messages[0].result.structuredContent.market.id).toBe(marketId);
    expect(JSON.parse(messages[0].result.content[0].text)).toEqual(messages[0].result.structuredContent);
    expect(response.headers.get("mcp-session-id")).toBeNull();
  });

  it("answers a JSON-RPC batch with one response per request", async () => {
    const missing = uid("missing");
    const response = await h.rawPost(
      [
        { jsonrpc: "2.0", id: "a", method: "tools/list" },
        { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "get_market", arguments: { marketId: missing } } },
      ],
      { authorization: `Bearer ${AGENT_TOKEN}` },
    );
    expect(response.status).toBe(200);
    const messages = jsonRpcMessages(response);
    expect(messages.map((m) => m.id).sort()).toEqual(["a", "b"]);
    expect(messages.find((m) => m.id === "a").result.tools).toHaveLength(9);
    expect(JSON.parse(messages.find((m) => m.id === "b").result.content[0].text).error.code).toBe("market_not_found");
  });

  it("runs a direct-claim market through every command tool and every read tool", async () => {
    const marketId = uid("dc");
    // create_market
    const created = await creator.ok("create_market", {
      commandId: uid("create"),
      marketId,
      principalId: AGENT,
      subject: SUBJECT,
      mechanism: directClaimMechanism({ capacity: 2, confirmation: "participant", holdDurationSeconds: 300 }),
    });
    expect(created.market).toMatchObject({ id: marketId, version: 1, state: "draft", creator: { principalId: AGENT, actorId: AGENT }, subject: SUBJECT, mechanismState: { allocated: 0 } });
    expect(created.events.map((e: any) => e.type)).toEqual(["market.draft_created"]);

    // publish_market
    const published = await creator.ok("publish_market", { commandId: uid("publish"), marketId, principalId: AGENT, expectedVersion: 1 });
    expect(published.market).toMatchObject({ version: 2, state: "open" });
    expect(published.events.map((e: any) => e.type)).toEqual(["market.published"]);
    expect(published.events[0].data).toEqual({ previousState: "draft", state: "open" });

    // submit_direct_claim (with and without expectedVersion)
    const claimCall = { commandId: uid("claim"), marketId, principalId: "bob", expectedVersion: 2 };
    const claimed = await bob.ok("submit_direct_claim", claimCall);
    // The accepted command's receipt (docs/proofs.md) in the result's _meta: a head of the shard's log holding it.
    const receipt = parseReceipt(JSON.stringify((await bob.call("submit_direct_claim", claimCall))._meta?.["market-service/receipt"]));
    if (!receipt.ok) throw new Error(receipt.message);
    expect(receipt.receipt.head.logId).toMatch(/^shard-\d+$/);
    expect(receipt.receipt.leafIndex).toBeLessThan(receipt.receipt.head.treeSize);
    expect(claimed.market).toMatchObject({ version: 3, state: "open", mechanismState: { allocated: 1 } });
    expect(claimed.commitments).toHaveLength(1);
    const bobCommitment = claimed.commitments[0];
    expect(bobCommitment).toMatchObject({
      marketId,
      state: "awaiting_confirmations",
      creatorPrincipalId: AGENT,
      participantPrincipalId: "bob",
      requiredConfirmationPrincipalIds: ["bob"],
      terms: { subject: SUBJECT, pricing: { mode: "posted", amountMinor: 2500, currency: "EUR" } },
    });
    expect(claimed.events.map((e: any) => e.type)).toEqual(["direct_claim.accepted", "commitment.awaiting_confirmations"]);
    const carolClaim = await carol.ok("submit_direct_claim", { commandId: uid("claim"), marketId, principalId: "carol" });
    expect(carolClaim.market).toMatchObject({ state: "closed", mechanismState: { allocated: 2 } });
    const carolCommitment = carolClaim.commitments[0];

    // confirm_commitment
    const confirmed = await bob.ok("confirm_commitment", { commandId: uid("confirm"), commitmentId: bobCommitment.id, principalId: "bob" });
    expect(confirmed.commitments).toHaveLength(1);
    expect(confirmed.commitments[0]).toMatchObject({ id: bobCommitment.id, state: "committed", confirmedPrincipalIds: ["bob"] });
    expect(confirmed.events.map((e: any) => e.type)).toEqual(["commitment.confirmation_recorded", "commitment.committed"]);

    // decline_commitment (by the creator: either party may decline, D8) releases capacity
    const declined = await creator.ok("decline_commitment", { commandId: uid("decline"), commitmentId: carolCommitment.id, principalId: AGENT });
    expect(declined.commitments[0]).toMatchObject({ id: carolCommitment.id, state: "declined" });
    expect(declined.market).toMatchObject({ state: "open", mechanismState: { allocated: 1 } });
    expect(declined.events.map((e: any) => e.type)).toEqual(["commitment.declined"]);

    // get_market: the same snapshot as the last result
    const market = await carol.ok("get_market", { marketId });
    expect(market).toEqual(declined.market);

    // get_my_market_outcome: a participant's own commitments
    const bobOutcome = await bob.ok("get_my_market_outcome", { marketId });
    expect(bobOutcome).toEqual({ marketId, principalId: "bob", bidReceipts: [], commitments: [confirmed.commitments[0]] });
    const carolOutcome = await carol.ok("get_my_market_outcome", { marketId, principalId: "carol" });
    expect(carolOutcome.commitments.map((c: any) => [c.id, c.state])).toEqual([[carolCommitment.id, "declined"]]);

    // get_market_record: everything, with a hash the test recomputes
    const record = await creator.ok("get_market_record", { marketId });
    expect(record.market).toEqual(market);
    expect(record.commands.map((c: any) => [c.type, c.status])).toEqual([
      ["market.create_draft", "accepted"],
      ["market.publish", "accepted"],
      ["direct_claim.submit", "accepted"],
      ["direct_claim.submit", "accepted"],
      ["commitment.confirm", "accepted"],
      ["commitment.decline", "accepted"],
    ]);
    expect(record.commitments.map((c: any) => c.state).sort()).toEqual(["committed", "declined"]);
    expect(record.events.map((e: any) => e.sequence)).toEqual(record.events.map((_: unknown, i: number) => i + 1));
    expect(record.integrity).toEqual({ algorithm: "sha256-canonical-json-v1", recordHash: recordHashOf(record), stateReconstructed: true });
  });

  it("runs a sealed auction: bid, close by the clock, winner learns its commitment, confirms", async () => {
    const marketId = uid("auction");
    const closesAt = h.isoIn(60 * 60_000);
    const created = await creator.ok("create_market", {
      commandId: uid("create"),
      marketId,
      principalId: AGENT,
      subject: SUBJECT,
      mechanism: auctionMechanism(closesAt, { reserveAmountMinor: 1000 }),
    });
    expect(created.market.mechanism.config).toEqual({ currency: "EUR", reserveAmountMinor: 1000, closesAt, holdDurationSeconds: 600 });
    await creator.ok("publish_market", { commandId: uid("publish"), marketId, principalId: AGENT, expectedVersion: 1 });

    // submit_sealed_bid: an amount-free receipt
    const bid = await bob.ok("submit_sealed_bid", { commandId: uid("bid"), marketId, principalId: "bob", amountMinor: 4200, currency: "EUR" });
    expect(bid.bidReceipts).toHaveLength(1);
    expect(Object.keys(bid.bidReceipts[0]).sort()).toEqual(["bidId", "marketId", "marketVersion", "state", "submittedAt"]);
    expect(bid.bidReceipts[0]).toMatchObject({ marketId, state: "active" });
    expect(bid.events.map((e: any) => e.type)).toEqual(["sealed_auction.bid_submitted"]);
    expect(bid.market.mechanismState).toEqual({ bidCount: 1 });
    await carol.ok("submit_sealed_bid", { commandId: uid("bid"), marketId, principalId: "carol", amountMinor: 3100, currency: "EUR" });

    h.advance(60 * 60_000);
    const resolved = await waitFor(() => carol.ok("get_market", { marketId }), (m) => m.mechanismState.resolution !== undefined);
    expect(resolved.state).toBe("closed");
    expect(resolved.mechanismState).toMatchObject({ bidCount: 2, resolution: "winner_selected", winningBidId: bid.bidReceipts[0].bidId });

    const outcome = await bob.ok("get_my_market_outcome", { marketId });
    expect(outcome.bidReceipts).toEqual(bid.bidReceipts);
    expect(outcome.commitments).toHaveLength(1);
    const commitment = outcome.commitments[0];
    expect(commitment).toMatchObject({
      state: "awaiting_confirmations",
      participantPrincipalId: "bob",
      requiredConfirmationPrincipalIds: ["bob"],
      terms: { winningBidId: bid.bidReceipts[0].bidId, pricing: { rule: "second_price", amountMinor: 3100, currency: "EUR" } },
    });
    const confirmed = await bob.ok("confirm_commitment", { commandId: uid("confirm"), commitmentId: commitment.id, principalId: "bob" });
    expect(confirmed.commitments[0]).toMatchObject({ id: commitment.id, state: "committed" });

    const record = await creator.ok("get_market_record", { marketId });
    expect(record.commands.map((c: any) => c.type)).toEqual([
      "market.create_draft",
      "market.publish",
      "sealed_auction.submit_bid",
      "sealed_auction.submit_bid",
      "sealed_auction.resolve",
      "commitment.confirm",
    ]);
    expect(record.integrity.recordHash).toBe(recordHashOf(record));
  });

  it("keeps concurrent calls of different actors apart (each runs as its own authenticated actor)", async () => {
    const tokens: Array<[string, string]> = [
      [AGENT, AGENT_TOKEN],
      ["dave", (await h.provision("dave")).token],
      ["erin", (await h.provision("erin")).token],
    ];
    const calls = Array.from({ length: 48 }, (_, i) => {
      const [actor, token] = tokens[i % tokens.length]!;
      const marketId = uid(`par-${actor}`);
      const name = i % 2 === 0 ? "create_market" : "get_my_market_outcome";
      const args = name === "create_market" ? { commandId: uid("c"), marketId, principalId: actor, subject: SUBJECT, mechanism: directClaimMechanism() } : { marketId: "shared-missing" };
      return h
        .rawPost({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name, arguments: args } }, { authorization: `Bearer ${token}` })
        .then((response) => ({ id: i, actor, name, marketId, response }));
    });
    for (const { id, actor, name, marketId, response } of await Promise.all(calls)) {
      expect(response.status).toBe(200);
      const [message] = jsonRpcMessages(response);
      expect(message.id).toBe(id);
      if (name === "create_market") {
        expect(message.result.isError ?? false, response.text).toBe(false);
        expect(message.result.structuredContent.market).toMatchObject({ id: marketId, creator: { principalId: actor, actorId: actor } });
      } else {
        expect(JSON.parse(message.result.content[0].text).error.code).toBe("market_not_found");
      }
    }
  });

  it("reports an application failure as an isError tool result in this mode too", async () => {
    const missing = uid("missing");
    const error = await bob.fails("get_market", { marketId: missing }, "market_not_found");
    expect(error.message).toContain(missing);
    await bob.fails("get_market", { marketId: "x", unknown: true }, "invalid_request");
  });
});
