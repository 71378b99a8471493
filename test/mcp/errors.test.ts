/**
 * Every error class over MCP is a tool result with `isError: true` and exactly
 * `{"error":{"code","message"}}` as its text — never a JSON-RPC error (docs/decisions.md T7):
 * validation, invalid commands and mechanism configs, authority and delegations, not found,
 * conflicts, capacity. Rejected commands are recorded as on HTTP (spec §7.3).
 *
 * Actors: `agent` (static MCP token, never provisioned) creates markets; `alice` (provisioned,
 * bearer) delegates to `twin` (provisioned, used over MCP with its static token); `bob` and `carol`
 * (provisioned, bearer) participate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  jsonRpcMessages,
  openMarket,
  uid,
  type Agent,
} from "./support/harness.js";

let h: McpHarness;
let agent: Agent;
let twin: Agent;
let alice: Agent;
let bob: Agent;
let carol: Agent;
let aliceToken: string;
/** Open direct-claim market (capacity 3, participant confirmation) created by `agent`. */
let market: string;
/** Open sealed auction created by `agent`. */
let auction: string;
/** Delegations alice → twin: claim only; claim + bid but revoked. alice → bob: claim. */
const D_CLAIM = "d-alice-twin-claim";
const D_REVOKED = "d-alice-twin-revoked";
const D_BOB = "d-alice-bob-claim";

async function delegate(delegationId: string, delegateActorId: string, scopes: string[]): Promise<void> {
  const response = await h.http.request("POST", "/v1/delegations", { body: { commandId: uid("delegate"), delegationId, principalId: "alice", delegateActorId, scopes }, credentials: bearer(aliceToken) });
  expect(response.status, response.text).toBe(201);
}

beforeAll(async () => {
  h = await McpHarness.start();
  aliceToken = (await h.provision("alice")).token;
  await h.provision(TWIN); // the delegate must exist in the identity store
  agent = await h.connect(AGENT_TOKEN);
  twin = await h.connect(TWIN_TOKEN);
  alice = await h.connect(aliceToken);
  bob = await h.connect((await h.provision("bob")).token);
  carol = await h.connect((await h.provision("carol")).token);
  await delegate(D_CLAIM, TWIN, ["market:claim"]);
  await delegate(D_REVOKED, TWIN, ["market:claim", "market:bid"]);
  await delegate(D_BOB, "bob", ["market:claim"]);
  const revoked = await h.http.request("POST", `/v1/delegations/${D_REVOKED}/revoke`, { body: { commandId: uid("revoke"), principalId: "alice" }, credentials: bearer(aliceToken) });
  expect(revoked.status, revoked.text).toBe(200);
  market = uid("market");
  await openMarket(agent, AGENT, market, directClaimMechanism({ capacity: 3, confirmation: "participant" }));
  auction = uid("auction");
  await openMarket(agent, AGENT, auction, auctionMechanism(h.isoIn(24 * 3600_000)));
});

afterAll(async () => {
  await h?.close();
});

/** A valid input per tool (the target may not exist: validation comes first). */
function validInput(tool: string): Record<string, unknown> {
  switch (tool) {
    case "create_market":
      return { commandId: uid("c"), marketId: uid("m"), principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() };
    case "publish_market":
      return { commandId: uid("c"), marketId: "m", principalId: AGENT, expectedVersion: 1 };
    case "submit_direct_claim":
      return { commandId: uid("c"), marketId: "m", principalId: AGENT };
    case "submit_sealed_bid":
      return { commandId: uid("c"), marketId: "m", principalId: AGENT, amountMinor: 100, currency: "EUR" };
    case "confirm_commitment":
    case "decline_commitment":
      return { commandId: uid("c"), commitmentId: "c.bQ.1", principalId: AGENT };
    default:
      return { marketId: "m" };
  }
}

const ALL_TOOLS = [
  "create_market",
  "publish_market",
  "submit_direct_claim",
  "submit_sealed_bid",
  "confirm_commitment",
  "decline_commitment",
  "get_market",
  "get_market_record",
  "get_my_market_outcome",
];

describe("validation → invalid_request", () => {
  it.each(ALL_TOOLS)("%s: unknown field, each missing required field, wrong types, no arguments", async (tool) => {
    const input = validInput(tool);
    await agent.fails(tool, { ...input, unexpected: 1 }, "invalid_request");
    for (const field of Object.keys(input)) {
      const { [field]: _removed, ...missing } = input;
      const error = await agent.fails(tool, missing, "invalid_request");
      expect(error.message, `${tool} without ${field}`).toContain(field);
      const wrongType = typeof input[field] === "string" ? 12 : typeof input[field] === "number" ? String(input[field]) : "text";
      await agent.fails(tool, { ...input, [field]: wrongType }, "invalid_request");
      await agent.fails(tool, { ...input, [field]: null }, "invalid_request");
    }
    await agent.fails(tool, {}, "invalid_request");
  });

  it("refuses field values outside their rules (lengths, control characters, ranges, currency pattern)", async () => {
    await agent.fails("get_market", { marketId: "" }, "invalid_request");
    await agent.fails("get_market", { marketId: "x".repeat(129) }, "invalid_request");
    await agent.fails("get_market", { marketId: "bad\u0007id" }, "invalid_request");
    await agent.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "bob", expectedVersion: -1 }, "invalid_request");
    await agent.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "bob", expectedVersion: 1.5 }, "invalid_request");
    await agent.fails("publish_market", { commandId: uid("c"), marketId: market, principalId: AGENT, expectedVersion: 0 }, "invalid_request");
    await bob.fails("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: "bob", amountMinor: 0, currency: "EUR" }, "invalid_request");
    await bob.fails("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: "bob", amountMinor: 100, currency: "eur" }, "invalid_request");
    // An integer beyond 2^53 − 1 never reaches the tool: the strict body parser refuses it (-32700).
    await expect(
      bob.call("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: "bob", amountMinor: Number.MAX_SAFE_INTEGER + 1, currency: "EUR" }),
    ).rejects.toThrow(/-32700.*amountMinor/);
    await agent.fails("create_market", { commandId: uid("c"), marketId: uid("m"), principalId: AGENT, subject: { schema: "s", data: {}, extra: 1 }, mechanism: directClaimMechanism() }, "invalid_request");
  });

  it("does not consume the commandId of an invalid request (nothing is recorded)", async () => {
    const commandId = uid("c");
    await bob.fails("submit_direct_claim", { commandId, marketId: market, principalId: "bob", bogus: true }, "invalid_request");
    const claimed = await bob.ok("submit_direct_claim", { commandId, marketId: market, principalId: "bob" });
    expect(claimed.commitments).toHaveLength(1);
    await bob.ok("decline_commitment", { commandId: uid("d"), commitmentId: claimed.commitments[0].id, principalId: "bob" });
  });

  it("answers over the wire with a JSON-RPC result (isError), not a JSON-RPC error", async () => {
    const response = await h.rawPost(
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_market", arguments: { marketId: 5 } } },
      { authorization: `Bearer ${AGENT_TOKEN}` },
    );
    expect(response.status).toBe(200);
    const [message] = jsonRpcMessages(response);
    expect(message.error).toBeUndefined();
    expect(message.result.isError).toBe(true);
    expect(message.result.structuredContent).toBeUndefined();
    expect(JSON.parse(message.result.content[0].text).error.code).toBe("invalid_request");
    // Arguments omitted entirely: the same application error.
    const [bare] = jsonRpcMessages(await h.rawPost({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "get_market" } }, { authorization: `Bearer ${AGENT_TOKEN}` }));
    expect(bare.error).toBeUndefined();
    expect(JSON.parse(bare.result.content[0].text).error.code).toBe("invalid_request");
  });
});

describe("invalid commands and mechanism configurations", () => {
  it("invalid_command: a bid in another currency (D7), an authorityRef on self-action", async () => {
    await bob.fails("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: "bob", amountMinor: 100, currency: "USD" }, "invalid_command");
    await bob.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "bob", authorityRef: D_BOB }, "invalid_command");
  });

  it("unknown_mechanism and invalid_mechanism_config (422 on HTTP)", async () => {
    const create = (mechanism: unknown) => ({ commandId: uid("c"), marketId: uid("m"), principalId: AGENT, subject: SUBJECT, mechanism });
    await agent.fails("create_market", create({ presetId: "dutch-auction.v1", config: {} }), "unknown_mechanism");
    await agent.fails("create_market", create(directClaimMechanism({ capacity: 0 })), "invalid_mechanism_config");
    await agent.fails("create_market", create({ presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "participant" } }), "invalid_mechanism_config");
    await agent.fails("create_market", create(auctionMechanism(h.isoIn(-60_000))), "invalid_mechanism_config");
    await agent.fails("create_market", create(auctionMechanism("not a date")), "invalid_mechanism_config");
  });
});

describe("authority and delegations (403 class)", () => {
  it("acting for another principal without authorityRef: authority_reference_required", async () => {
    await twin.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "alice" }, "authority_reference_required");
    await twin.fails("get_my_market_outcome", { marketId: market, principalId: "alice" }, "authority_reference_required");
  });

  it("an unknown delegation: delegation_not_found", async () => {
    await twin.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "alice", authorityRef: "d-missing" }, "delegation_not_found");
  });

  it("a delegation naming another actor, or lacking the scope: actor_not_authorized", async () => {
    await twin.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "alice", authorityRef: D_BOB }, "actor_not_authorized");
    await twin.fails("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: "alice", authorityRef: D_CLAIM, amountMinor: 100, currency: "EUR" }, "actor_not_authorized");
    await bob.fails("get_my_market_outcome", { marketId: market, principalId: "alice", authorityRef: D_CLAIM }, "actor_not_authorized");
  });

  it("a delegation from another principal, the creator in its own market, a stranger confirming: principal_not_authorized", async () => {
    await twin.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "carol", authorityRef: D_CLAIM }, "principal_not_authorized");
    await agent.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: AGENT }, "principal_not_authorized");
    await agent.fails("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: AGENT, amountMinor: 100, currency: "EUR" }, "principal_not_authorized");
    const claimed = await carol.ok("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "carol" });
    const commitmentId = claimed.commitments[0].id;
    await bob.fails("confirm_commitment", { commandId: uid("c"), commitmentId, principalId: "bob" }, "principal_not_authorized");
    await bob.fails("decline_commitment", { commandId: uid("c"), commitmentId, principalId: "bob" }, "principal_not_authorized");
    // The creator may decline (D8) but not confirm a participant-confirmation commitment.
    await agent.fails("confirm_commitment", { commandId: uid("c"), commitmentId, principalId: AGENT }, "principal_not_authorized");
    await carol.ok("decline_commitment", { commandId: uid("c"), commitmentId, principalId: "carol" });
  });

  it("a revoked delegation: delegation_inactive", async () => {
    await twin.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "alice", authorityRef: D_REVOKED }, "delegation_inactive");
  });

  it("the record is for its creator only: forbidden", async () => {
    await bob.fails("get_market_record", { marketId: market }, "forbidden");
    await twin.fails("get_market_record", { marketId: market }, "forbidden");
  });

  it("a valid delegation works over MCP, and the refusals above are in the market's record", async () => {
    const claimed = await twin.ok("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "alice", authorityRef: D_CLAIM });
    expect(claimed.commitments[0].participantPrincipalId).toBe("alice");
    expect(claimed.events[0]).toMatchObject({ principalId: "alice", actorId: TWIN, authorityRef: D_CLAIM });
    const outcome = await twin.ok("get_my_market_outcome", { marketId: market, principalId: "alice", authorityRef: D_CLAIM });
    expect(outcome.commitments.map((c: any) => c.id)).toEqual([claimed.commitments[0].id]);
    // alice herself sees the same, without a delegation
    expect(await alice.ok("get_my_market_outcome", { marketId: market })).toEqual(outcome);
    const record = await agent.ok("get_market_record", { marketId: market });
    const rejected = record.commands.filter((c: any) => c.status === "rejected").map((c: any) => c.rejectionCode);
    for (const code of ["authority_reference_required", "delegation_not_found", "actor_not_authorized", "principal_not_authorized", "delegation_inactive", "invalid_command"]) {
      expect(rejected, code).toContain(code);
    }
    await twin.fails("decline_commitment", { commandId: uid("c"), commitmentId: claimed.commitments[0].id, principalId: "alice", authorityRef: D_CLAIM }, "actor_not_authorized");
    await alice.ok("decline_commitment", { commandId: uid("c"), commitmentId: claimed.commitments[0].id, principalId: "alice" });
  });
});

describe("not found", () => {
  it("market_not_found from every tool that targets a market", async () => {
    const missing = uid("no-such-market");
    await agent.fails("publish_market", { commandId: uid("c"), marketId: missing, principalId: AGENT, expectedVersion: 1 }, "market_not_found");
    await bob.fails("submit_direct_claim", { commandId: uid("c"), marketId: missing, principalId: "bob" }, "market_not_found");
    await bob.fails("submit_sealed_bid", { commandId: uid("c"), marketId: missing, principalId: "bob", amountMinor: 10, currency: "EUR" }, "market_not_found");
    await bob.fails("get_market", { marketId: missing }, "market_not_found");
    await bob.fails("get_market_record", { marketId: missing }, "market_not_found");
    await bob.fails("get_my_market_outcome", { marketId: missing }, "market_not_found");
  });

  it("commitment_not_found for ids the service never generated and for unused ordinals (D1)", async () => {
    const unused = `c.${Buffer.from(market, "utf8").toString("base64url")}.999`;
    for (const commitmentId of ["nonsense", "c.!!.1", unused, `c.${Buffer.from("no-market", "utf8").toString("base64url")}.1`]) {
      await bob.fails("confirm_commitment", { commandId: uid("c"), commitmentId, principalId: "bob" }, "commitment_not_found");
      await bob.fails("decline_commitment", { commandId: uid("c"), commitmentId, principalId: "bob" }, "commitment_not_found");
    }
  });
});

describe("conflicts (409 class) and capacity", () => {
  it("version_conflict on publish and on a claim with a stale expectedVersion", async () => {
    const draft = uid("draft");
    await agent.ok("create_market", { commandId: uid("c"), marketId: draft, principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() });
    await agent.fails("publish_market", { commandId: uid("c"), marketId: draft, principalId: AGENT, expectedVersion: 2 }, "version_conflict");
    await bob.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "bob", expectedVersion: 1 }, "version_conflict");
  });

  it("invalid_market_transition: create an existing id, publish twice, claim in a draft, wrong mechanism, second claim", async () => {
    const draft = uid("draft");
    await agent.ok("create_market", { commandId: uid("c"), marketId: draft, principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() });
    await agent.fails("create_market", { commandId: uid("c"), marketId: draft, principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() }, "invalid_market_transition");
    await bob.fails("submit_direct_claim", { commandId: uid("c"), marketId: draft, principalId: "bob" }, "invalid_market_transition");
    await agent.fails("publish_market", { commandId: uid("c"), marketId: market, principalId: AGENT, expectedVersion: (await bob.ok("get_market", { marketId: market })).version }, "invalid_market_transition");
    await bob.fails("submit_direct_claim", { commandId: uid("c"), marketId: auction, principalId: "bob" }, "invalid_market_transition");
    await bob.fails("submit_sealed_bid", { commandId: uid("c"), marketId: market, principalId: "bob", amountMinor: 10, currency: "EUR" }, "invalid_market_transition");
    const held = await bob.ok("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "bob" });
    await bob.fails("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "bob" }, "invalid_market_transition");
    await bob.ok("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: "bob", amountMinor: 10, currency: "EUR" });
    await bob.fails("submit_sealed_bid", { commandId: uid("c"), marketId: auction, principalId: "bob", amountMinor: 20, currency: "EUR" }, "invalid_market_transition");
    await bob.ok("decline_commitment", { commandId: uid("c"), commitmentId: held.commitments[0].id, principalId: "bob" });
  });

  it("invalid_commitment_transition: confirm twice, decline a committed or declined commitment", async () => {
    const claimed = await carol.ok("submit_direct_claim", { commandId: uid("c"), marketId: market, principalId: "carol" });
    const commitmentId = claimed.commitments[0].id;
    await carol.ok("confirm_commitment", { commandId: uid("c"), commitmentId, principalId: "carol" });
    await carol.fails("confirm_commitment", { commandId: uid("c"), commitmentId, principalId: "carol" }, "invalid_commitment_transition");
    await carol.fails("decline_commitment", { commandId: uid("c"), commitmentId, principalId: "carol" }, "invalid_commitment_transition");
  });

  it("idempotency_conflict: the same commandId with other content, in the same tool or another", async () => {
    const commandId = uid("c");
    const draft = uid("draft");
    const created = await agent.ok("create_market", { commandId, marketId: draft, principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() });
    // Identical: the original result.
    expect(await agent.ok("create_market", { commandId, marketId: draft, principalId: AGENT, subject: SUBJECT, mechanism: directClaimMechanism() })).toEqual(created);
    // Other content, same tool; then another tool.
    await agent.fails("create_market", { commandId, marketId: draft, principalId: AGENT, subject: { ...SUBJECT, data: { other: true } }, mechanism: directClaimMechanism() }, "idempotency_conflict");
    await agent.fails("publish_market", { commandId, marketId: draft, principalId: AGENT, expectedVersion: 1 }, "idempotency_conflict");
    // A rejected command is also kept: its retry with other content conflicts too.
    const rejectedId = uid("c");
    await agent.fails("publish_market", { commandId: rejectedId, marketId: draft, principalId: AGENT, expectedVersion: 7 }, "version_conflict");
    await agent.fails("publish_market", { commandId: rejectedId, marketId: draft, principalId: AGENT, expectedVersion: 7 }, "version_conflict");
    await agent.fails("publish_market", { commandId: rejectedId, marketId: draft, principalId: AGENT, expectedVersion: 1 }, "idempotency_conflict");
  });

  it("capacity_exhausted once every unit is held, recorded as a rejected claim", async () => {
    const small = uid("small");
    await openMarket(agent, AGENT, small, directClaimMechanism({ capacity: 1, confirmation: "none" }));
    const won = await bob.ok("submit_direct_claim", { commandId: uid("c"), marketId: small, principalId: "bob" });
    expect(won.commitments[0].state).toBe("committed");
    expect(won.market.state).toBe("closed");
    await carol.fails("submit_direct_claim", { commandId: uid("c"), marketId: small, principalId: "carol" }, "capacity_exhausted");
    const record = await agent.ok("get_market_record", { marketId: small });
    expect(record.commands.at(-1)).toMatchObject({ type: "direct_claim.submit", status: "rejected", rejectionCode: "capacity_exhausted", identity: { principalId: "carol", actorId: "carol" } });
  });
});

describe("protocol errors stay protocol errors", () => {
  it("an unknown tool is a JSON-RPC error (-32602), not a tool result", async () => {
    await expect(agent.client.callTool({ name: "delete_market", arguments: {} })).rejects.toThrow(/-32602/);
    const [message] = jsonRpcMessages(await h.rawPost({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "delete_market", arguments: {} } }, { authorization: `Bearer ${AGENT_TOKEN}` }));
    expect(message.result).toBeUndefined();
    expect(message.error.code).toBe(-32602);
  });

  it("an unknown method is -32601", async () => {
    const [message] = jsonRpcMessages(await h.rawPost({ jsonrpc: "2.0", id: 10, method: "resources/list" }, { authorization: `Bearer ${AGENT_TOKEN}` }));
    expect(message.error.code).toBe(-32601);
  });
});
