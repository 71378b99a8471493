/**
 * Spec §2.10 and docs/decisions.md E14: the market record, with `recordHash` recomputed here
 * independently (RFC 8785 canonical JSON of {market, commands, commitments, events} via the
 * `canonicalize` package, SHA-256 via node:crypto) and `stateReconstructed` true; rejected
 * commands are in it with their `rejectionCode`; system commands too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Harness,
  ISO_MS,
  auctionMechanism,
  claim,
  commitmentAction,
  directClaimMechanism,
  expectStatus,
  openMarket,
  recordHashOf,
  uid,
  type Principal,
} from "./support/harness.js";

let h: Harness;
let alice: Principal;
let bob: Principal;
let carol: Principal;
let dave: Principal;

beforeAll(async () => {
  h = await Harness.start();
  [alice, bob, carol, dave] = await h.principals("alice", "bob", "carol", "dave");
});

afterAll(async () => {
  await h?.close();
});

async function record(marketId: string): Promise<any> {
  const response = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
  expectStatus(response, 200);
  return response.body;
}

function expectIntegrity(body: any): void {
  expect(body.integrity).toEqual({ algorithm: "sha256-canonical-json-v1", recordHash: recordHashOf(body), stateReconstructed: true });
}

describe("record integrity", () => {
  it("hashes exactly the returned view, lists accepted, rejected and system commands in order", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2, confirmation: "both", holdDurationSeconds: 60 }));
    const bobs = await claim(h, bob, marketId);
    h.clock.advance(1_000);
    const carols = await claim(h, carol, marketId);
    const rejectedClaim = uid("c");
    expect((await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: rejectedClaim, principalId: "dave" }, dave.auth)).status).toBe(409);
    const rejectedAuthority = uid("c");
    expect((await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: rejectedAuthority, principalId: "carol" }, dave.auth)).status).toBe(403);
    expectStatus(await commitmentAction(h, bob, bobs.commitments[0].id, "confirm"), 200);
    expectStatus(await commitmentAction(h, carol, carols.commitments[0].id, "decline"), 200);
    h.advance(60_000); // bob's commitment (only half confirmed) expires

    const body = await record(marketId);
    expectIntegrity(body);
    expect(body.market).toEqual((await h.get(`/v1/markets/${marketId}`, alice.auth)).body);

    const commands = body.commands as Array<Record<string, any>>;
    expect(commands.map((c) => c["sequence"])).toEqual(commands.map((_, i) => i + 1));
    expect(commands.map((c) => [c["type"], c["status"], c["rejectionCode"] ?? null])).toEqual([
      ["market.create_draft", "accepted", null],
      ["market.publish", "accepted", null],
      ["direct_claim.submit", "accepted", null],
      ["direct_claim.submit", "accepted", null],
      ["direct_claim.submit", "rejected", "capacity_exhausted"],
      ["direct_claim.submit", "rejected", "authority_reference_required"],
      ["commitment.confirm", "accepted", null],
      ["commitment.decline", "accepted", null],
      ["commitment.expire", "accepted", null],
    ]);
    expect(commands[4]).toMatchObject({ id: rejectedClaim, marketId, identity: { principalId: "dave", actorId: "dave" } });
    expect(commands[5]).toMatchObject({ id: rejectedAuthority, identity: { principalId: "carol", actorId: "dave" } });
    expect(commands[8]).toMatchObject({ identity: { principalId: "@system", actorId: "@system" } });
    for (const command of commands) {
      expect(Object.keys(command).sort()).toEqual(
        ["id", "identity", "marketId", "occurredAt", "recordedAt", "request", "sequence", "status", "type", ...(command["status"] === "rejected" ? ["rejectionCode"] : [])].sort(),
      );
      expect(command["occurredAt"]).toMatch(ISO_MS);
      expect(command["recordedAt"]).toBe(command["occurredAt"]);
      expect(command["request"]).toMatchObject({ commandId: command["id"], occurredAt: command["occurredAt"] });
    }

    // Events: one durable sequence, ids derived from it, every command's events in order.
    const events = body.events as Array<Record<string, any>>;
    expect(events.map((e) => e["sequence"])).toEqual(events.map((_, i) => i + 1));
    const ref = Buffer.from(marketId).toString("base64url");
    expect(events.map((e) => e["id"])).toEqual(events.map((_, i) => `e.${ref}.${i + 1}`));
    expect(events.map((e) => e["type"])).toEqual([
      "market.draft_created",
      "market.published",
      "direct_claim.accepted",
      "commitment.awaiting_confirmations",
      "direct_claim.accepted",
      "commitment.awaiting_confirmations",
      "commitment.confirmation_recorded",
      "commitment.declined",
      "commitment.expired",
    ]);
    expect(body.commitments.map((c: { state: string }) => c.state)).toEqual(["expired", "declined"]);
    expect(body.market).toMatchObject({ state: "open", mechanismState: { allocated: 0 } });
  });

  it("the recomputation is sensitive: any change to the view changes the hash", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({}));
    const body = await record(marketId);
    expectIntegrity(body);
    const tampered = structuredClone(body);
    tampered.commands[0].occurredAt = "2026-05-01T10:00:00.001Z";
    expect(recordHashOf(tampered)).not.toBe(body.integrity.recordHash);
    // Key order does not matter to RFC 8785; values do.
    const reordered = { events: body.events, commitments: body.commitments, commands: body.commands, market: body.market };
    expect(recordHashOf(reordered)).toBe(body.integrity.recordHash);
  });

  it("holds for free-form subject data: unicode, escapes, integer-like keys, -0, exponents, deep nesting", async () => {
    const marketId = uid("m");
    const text =
      `{"commandId":"${uid("c")}","marketId":"${marketId}","principalId":"alice","subject":{"schema":"odd.v1","data":` +
      `{"10":"ten","2":"two","a":"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\","ß":[1.5,-0,1e2,0.1,-3,true,false,null],"nul":"x\\u0000y","z":{"y":{"x":{"w":[[[[]]]]}}},"":"empty key"}}` +
      `,"mechanism":${JSON.stringify(directClaimMechanism({}))}}`;
    const created = await h.post("/v1/markets", text, alice.auth);
    expectStatus(created, 201);
    expect(created.body.market.subject.data).toEqual({
      "10": "ten",
      "2": "two",
      a: "é😀\n\t\"\\",
      ß: [1.5, 0, 100, 0.1, -3, true, false, null],
      nul: "x\u0000y",
      z: { y: { x: { w: [[[[]]]] } } },
      "": "empty key",
    });
    const body = await record(marketId);
    expectIntegrity(body);
    expect(body.market.subject).toEqual(created.body.market.subject);
  });

  it("an auction's record hashes the redacted bids while open and the revealed bids after resolution", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, auctionMechanism({ closesAt: h.isoIn(30_000) }));
    expectStatus(await h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId: uid("b"), principalId: "bob", amountMinor: 4_242, currency: "EUR" }, bob.auth), 200);
    const open = await record(marketId);
    expectIntegrity(open);
    expect(open.commands[2].request).toEqual({ sealed: true });
    h.advance(30_000);
    const resolved = await record(marketId);
    expectIntegrity(resolved);
    expect(resolved.commands[2].request).toMatchObject({ amountMinor: 4_242, currency: "EUR", principalId: "bob" });
    expect(resolved.integrity.recordHash).not.toBe(open.integrity.recordHash);
  });

  it("is readable by the creating actor and the creator principal, not by a participant", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 2 }));
    await claim(h, bob, marketId);
    expect((await h.get(`/v1/markets/${marketId}/record`, bob.auth)).status).toBe(403);
    expectIntegrity(await record(marketId));
  });
});
