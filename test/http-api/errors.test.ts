/**
 * Spec §7 and docs/errors.md: every error code the service produces, with its status and the
 * `{error: {code, message}}` body. `concurrent_update` is mapped (409) but the v1 engine never
 * produces it (docs/decisions.md T5), so no request can provoke it and it has no test here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "@market-service/client";
import {
  Harness,
  SUBJECT,
  auctionMechanism,
  claim,
  commitmentAction,
  commitmentIdOf,
  directClaimMechanism,
  expectError,
  expectStatus,
  expectUnauthenticated,
  openMarket,
  uid,
  type Principal,
} from "./support/harness.js";

let h: Harness;
let alice: Principal;
let bob: Principal;
let carol: Principal;

beforeAll(async () => {
  h = await Harness.start();
  alice = await h.principal("alice");
  bob = await h.principal("bob");
  carol = await h.principal("carol");
});

afterAll(async () => {
  await h?.close();
});

/** A body for POST /v1/markets as alice. */
function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { commandId: uid("c"), marketId: uid("m"), principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}), ...overrides };
}

describe("400 invalid_request", () => {
  it("refuses an unknown field", async () => {
    expectError(await h.post("/v1/markets", createBody({ surprise: true }), alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/auth/challenges", { actorId: "alice", keyId: "alice-key-1", extra: 1 }, { kind: "none" }), 400, "invalid_request");
  });

  it("refuses a field of the wrong type and a missing required field", async () => {
    expectError(await h.post("/v1/markets", createBody({ marketId: 42 }), alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", createBody({ principalId: undefined }), alice.auth), 400, "invalid_request");
    expectError(await h.post("/v1/markets", createBody({ subject: { schema: "", data: {} } }), alice.auth), 400, "invalid_request");
  });

  it("refuses a second JSON value after the object", async () => {
    const text = `${JSON.stringify(createBody())} {}`;
    expectError(await h.post("/v1/markets", text, alice.auth), 400, "invalid_request");
  });

  it("refuses a body that is not a JSON object", async () => {
    for (const text of ["[]", '"market"', "42", "null", "true", ""]) {
      expectError(await h.post("/v1/markets", text, alice.auth), 400, "invalid_request");
    }
  });

  it("refuses duplicate member names, also nested", async () => {
    const id = uid("m");
    expectError(await h.post("/v1/markets", `{"commandId":"x1","marketId":"${id}","marketId":"${id}-2","principalId":"alice","subject":{"schema":"s","data":{}},"mechanism":${JSON.stringify(directClaimMechanism({}))}}`, alice.auth), 400, "invalid_request");
    const nested = await h.post("/v1/markets", `{"commandId":"x2","marketId":"${id}","principalId":"alice","subject":{"schema":"s","data":{"a":1,"a":2}},"mechanism":${JSON.stringify(directClaimMechanism({}))}}`, alice.auth);
    expectError(nested, 400, "invalid_request");
    expect(nested.body.error.message).toContain("duplicate");
    // Nothing was created.
    expectError(await h.get(`/v1/markets/${id}`, alice.auth), 404, "market_not_found");
  });

  it("refuses an integer beyond 2^53 - 1 instead of rounding it", async () => {
    const marketId = uid("m");
    await h.post("/v1/markets", createBody({ marketId }), alice.auth);
    const text = `{"commandId":"${uid("p")}","principalId":"alice","expectedVersion":9007199254740993}`;
    expectError(await h.post(`/v1/markets/${marketId}/publish`, text, alice.auth), 400, "invalid_request");
    const data = `{"commandId":"${uid("c")}","marketId":"${uid("m")}","principalId":"alice","subject":{"schema":"s","data":{"n":9007199254740992}},"mechanism":${JSON.stringify(directClaimMechanism({}))}}`;
    expectError(await h.post("/v1/markets", data, alice.auth), 400, "invalid_request");
  });

  it("refuses a body over 1 MiB and accepts one just under", async () => {
    const base = JSON.stringify(createBody({ subject: { schema: "s", data: { pad: "" } } }));
    const pad = (target: number) => {
      const body = createBody({ subject: { schema: "s", data: { pad: "" } } });
      const fill = target - JSON.stringify(body).length;
      (body["subject"] as { data: { pad: string } }).data.pad = "x".repeat(fill);
      const text = JSON.stringify(body);
      expect(Buffer.byteLength(text)).toBe(target);
      return text;
    };
    expect(base.length).toBeLessThan(1000);
    const over = await h.post("/v1/markets", pad(1_048_577), alice.auth);
    expectError(over, 400, "invalid_request");
    expect(over.body.error.message).toContain("1 MiB");
    expectStatus(await h.post("/v1/markets", pad(1_048_576), alice.auth), 201);
  });

  it("refuses validation failures of the command fields (expectedVersion 0 on publish, bad currency, empty scopes)", async () => {
    const marketId = uid("m");
    await h.post("/v1/markets", createBody({ marketId }), alice.auth);
    expectError(await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 0 }, alice.auth), 400, "invalid_request");
    expectError(await h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId: uid("b"), principalId: "bob", amountMinor: 5, currency: "eur" }, bob.auth), 400, "invalid_request");
    expectError(await h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId: uid("b"), principalId: "bob", amountMinor: 0, currency: "EUR" }, bob.auth), 400, "invalid_request");
    expectError(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "bob", scopes: [] }, alice.auth), 400, "invalid_request");
    expectError(
      await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "bob", scopes: ["market:claim", "market:claim"] }, alice.auth),
      400,
      "invalid_request",
    );
    expectError(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "bob", scopes: ["market:steal"] }, alice.auth), 400, "invalid_request");
  });
});

describe("400 invalid_command", () => {
  it("refuses a bid in another currency than the auction's, and records the rejection", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, auctionMechanism({ currency: "EUR", closesAt: h.isoIn(3_600_000) }));
    const commandId = uid("b");
    expectError(await h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId, principalId: "bob", amountMinor: 100, currency: "USD" }, bob.auth), 400, "invalid_command");
    const record = await h.get(`/v1/markets/${marketId}/record`, alice.auth);
    expect(record.body.commands.at(-1)).toMatchObject({ id: commandId, type: "sealed_auction.submit_bid", status: "rejected", rejectionCode: "invalid_command" });
    expect(record.body.market.mechanismState).toEqual({ bidCount: 0 });
  });

  it("refuses authorityRef on self-action and a validUntil not after the command time", async () => {
    expectError(await h.post("/v1/markets", createBody({ authorityRef: "some-delegation" }), alice.auth), 400, "invalid_command");
    expectError(
      await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"], validUntil: h.nowIso() }, alice.auth),
      400,
      "invalid_command",
    );
  });
});

describe("admin body validation", () => {
  it("refuses malformed public keys and reserved or invalid identifiers with 400", async () => {
    const publicKey = generateKeyPair().publicKey;
    const body = (overrides: Record<string, unknown>) => ({ commandId: uid("x"), principalId: "zed", actorId: "zed", keyId: "zed-k", publicKey, ...overrides });
    expectError(await h.post("/v1/admin/identities", body({ publicKey: publicKey.slice(1) }), h.operator()), 400, "invalid_request");
    expectError(await h.post("/v1/admin/identities", body({ publicKey: `${publicKey}=` }), h.operator()), 400, "invalid_request");
    expectError(await h.post("/v1/admin/identities", body({ publicKey: `${publicKey.slice(0, 42)}+` }), h.operator()), 400, "invalid_request");
    // 43 base64url characters, but non-canonical trailing bits / not an Ed25519 point encoding.
    expectError(await h.post("/v1/admin/identities", body({ publicKey: `${publicKey.slice(0, 42)}B` }), h.operator()), 400, "invalid_command");
    expectError(await h.post("/v1/admin/identities", body({ publicKey: Buffer.alloc(32, 0xff).toString("base64url") }), h.operator()), 400, "invalid_command");
    expectError(await h.post("/v1/admin/identities", body({ principalId: "@system" }), h.operator()), 400, "invalid_command");
    expectError(await h.post("/v1/admin/identities", body({ actorId: "@system" }), h.operator()), 400, "invalid_command");
    expectError(await h.post("/v1/admin/identities", body({ principalId: "a\u0001" }), h.operator()), 400, "invalid_request");
    // None of these created anything: the clean body is accepted.
    expectStatus(await h.post("/v1/admin/identities", body({}), h.operator()), 201);
  });
});

describe("401 unauthenticated", () => {
  it("refuses a missing or unknown credential with exactly 'request authentication failed'", async () => {
    expectUnauthenticated(await h.get("/v1/markets/x", { kind: "none" }));
    expectUnauthenticated(await h.get("/v1/markets/x", { kind: "bearer", token: "A".repeat(43) }));
    expectUnauthenticated(await h.post("/v1/markets", createBody(), { kind: "none" }));
    expectUnauthenticated(await h.post("/v1/delegations", {}, { kind: "none" }));
    expectUnauthenticated(await h.post("/v1/admin/identities", {}, { kind: "none" }));
    expectUnauthenticated(await h.client.request("POST", "/v1/auth/challenges", { body: { actorId: "alice", keyId: "nope" } }));
  });
});

describe("403", () => {
  it("forbidden: a non-operator on the admin endpoint", async () => {
    const response = await h.post("/v1/admin/identities", { commandId: uid("x"), principalId: "eve", actorId: "eve", keyId: "eve-k", publicKey: generateKeyPair().publicKey }, alice.auth);
    expectError(response, 403, "forbidden");
  });

  it("forbidden: the record read by a non-creator", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({}));
    expectError(await h.get(`/v1/markets/${marketId}/record`, bob.auth), 403, "forbidden");
    expectError(await h.get(`/v1/markets/${marketId}/record`, h.operator()), 403, "forbidden");
  });

  it("forbidden: a delegation issued or revoked by an actor other than its principal", async () => {
    expectError(
      await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, bob.auth),
      403,
      "forbidden",
    );
    const delegationId = uid("del");
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId, principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, alice.auth), 201);
    expectError(await h.post(`/v1/delegations/${delegationId}/revoke`, { commandId: uid("r"), principalId: "alice" }, bob.auth), 403, "forbidden");
    // bob as himself cannot revoke alice's delegation either.
    expectError(await h.post(`/v1/delegations/${delegationId}/revoke`, { commandId: uid("r"), principalId: "bob" }, bob.auth), 403, "forbidden");
  });

  it("authority_reference_required: acting for another principal without authorityRef", async () => {
    expectError(await h.post("/v1/markets", createBody({ principalId: "alice" }), bob.auth), 403, "authority_reference_required");
  });

  it("principal_not_authorized: the creator claiming or bidding in its own market; a delegation granted by another principal", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({}));
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "alice" }, alice.auth), 403, "principal_not_authorized");
    const auctionId = uid("m");
    await openMarket(h, alice, auctionId, auctionMechanism({ closesAt: h.isoIn(3_600_000) }));
    expectError(await h.post(`/v1/markets/${auctionId}/sealed-bids`, { commandId: uid("b"), principalId: "alice", amountMinor: 10, currency: "EUR" }, alice.auth), 403, "principal_not_authorized");
    // carol delegates to bob; bob cites it to act for alice.
    const delegationId = uid("del");
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId, principalId: "carol", delegateActorId: "bob", scopes: ["market:create"] }, carol.auth), 201);
    expectError(await h.post("/v1/markets", createBody({ principalId: "alice", authorityRef: delegationId }), bob.auth), 403, "principal_not_authorized");
  });

  it("actor_not_authorized: the delegation names another delegate, or lacks the scope", async () => {
    const delegationId = uid("del");
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId, principalId: "alice", delegateActorId: "bob", scopes: ["market:publish"] }, alice.auth), 201);
    expectError(await h.post("/v1/markets", createBody({ principalId: "alice", authorityRef: delegationId }), carol.auth), 403, "actor_not_authorized");
    expectError(await h.post("/v1/markets", createBody({ principalId: "alice", authorityRef: delegationId }), bob.auth), 403, "actor_not_authorized");
  });

  it("delegation_inactive: revoked, and expired by the clock", async () => {
    const revokedId = uid("del");
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: revokedId, principalId: "alice", delegateActorId: "bob", scopes: ["market:create"] }, alice.auth), 201);
    expectStatus(await h.post(`/v1/delegations/${revokedId}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 200);
    expectError(await h.post("/v1/markets", createBody({ principalId: "alice", authorityRef: revokedId }), bob.auth), 403, "delegation_inactive");

    const expiringId = uid("del");
    expectStatus(
      await h.post("/v1/delegations", { commandId: uid("d"), delegationId: expiringId, principalId: "alice", delegateActorId: "bob", scopes: ["market:create"], validUntil: h.isoIn(60_000) }, alice.auth),
      201,
    );
    expectStatus(await h.post("/v1/markets", createBody({ principalId: "alice", authorityRef: expiringId }), bob.auth), 201);
    h.advance(60_000); // validUntil is exclusive
    expectError(await h.post("/v1/markets", createBody({ principalId: "alice", authorityRef: expiringId }), bob.auth), 403, "delegation_inactive");
  });

  it("delegation_not_found: 403 when cited as authorityRef", async () => {
    expectError(await h.post("/v1/markets", createBody({ principalId: "alice", authorityRef: "no-such-delegation" }), bob.auth), 403, "delegation_not_found");
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({}));
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "carol", authorityRef: "no-such-delegation" }, bob.auth), 403, "delegation_not_found");
    expectError(await h.get(`/v1/markets/${marketId}/my-outcome?principalId=carol&authorityRef=no-such-delegation`, bob.auth), 403, "delegation_not_found");
  });
});

describe("404", () => {
  it("not_found: an unknown route", async () => {
    for (const [method, path] of [
      ["GET", "/index.html"], // `GET /` is the live page (docs/live-page.md)
      ["GET", "/v1"],
      ["GET", "/v1/nothing-here"],
      ["POST", "/v2/markets"],
      ["GET", "/v1/markets/m/unknown-sub-resource"],
      ["POST", "/v1/markets//publish"],
    ] as const) {
      expectError(await h.client.request(method, path, { body: method === "POST" ? {} : undefined, credentials: alice.auth }), 404, "not_found");
    }
  });

  it("market_not_found: read and commands on a market that does not exist", async () => {
    expectError(await h.get("/v1/markets/ghost", alice.auth), 404, "market_not_found");
    expectError(await h.get("/v1/markets/ghost/record", alice.auth), 404, "market_not_found");
    expectError(await h.post("/v1/markets/ghost/publish", { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth), 404, "market_not_found");
    expectError(await h.post("/v1/markets/ghost/direct-claims", { commandId: uid("c"), principalId: "bob" }, bob.auth), 404, "market_not_found");
    expectError(await h.post("/v1/markets/ghost/sealed-bids", { commandId: uid("b"), principalId: "bob", amountMinor: 1, currency: "EUR" }, bob.auth), 404, "market_not_found");
  });

  it("commitment_not_found: an unknown commitment of a real market, one of an unknown market, and a malformed id", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ confirmation: "participant" }));
    for (const id of [commitmentIdOf(marketId, 7), commitmentIdOf("ghost", 1), "not-a-commitment-id", "c.bTE.01", "c.%2F%2F.1", "c..1"]) {
      expectError(await h.post(`/v1/commitments/${id}/confirm`, { commandId: uid("x"), principalId: "bob" }, bob.auth), 404, "commitment_not_found");
      expectError(await h.post(`/v1/commitments/${id}/decline`, { commandId: uid("x"), principalId: "bob" }, bob.auth), 404, "commitment_not_found");
    }
  });

  it("identity_not_found: a delegation to an unknown actor", async () => {
    expectError(
      await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "alice", delegateActorId: "nobody", scopes: ["market:claim"] }, alice.auth),
      404,
      "identity_not_found",
    );
  });

  it("delegation_not_found: 404 on revoke of a delegation that does not exist", async () => {
    expectError(await h.post("/v1/delegations/never-issued/revoke", { commandId: uid("r"), principalId: "alice" }, alice.auth), 404, "delegation_not_found");
  });
});

describe("405 method_not_allowed", () => {
  it("answers 405 with an allow header for a known path and another method", async () => {
    const cases: Array<[method: "GET" | "PUT" | "DELETE" | "POST", path: string, allowed: string]> = [
      ["GET", "/v1/markets", "POST"],
      ["DELETE", "/v1/markets/m1", "GET"],
      ["PUT", "/v1/markets/m1/publish", "POST"],
      ["GET", "/v1/commitments/c.x.1/confirm", "POST"],
      ["GET", "/v1/auth/tokens", "POST"],
      ["GET", "/v1/delegations", "POST"],
    ];
    for (const [method, path, allowed] of cases) {
      const response = await h.client.request(method, path, { credentials: alice.auth });
      expectError(response, 405, "method_not_allowed");
      expect(response.headers.get("allow")).toContain(allowed);
    }
  });
});

describe("409", () => {
  it("idempotency_conflict: the same commandId with different content", async () => {
    const body = createBody();
    expectStatus(await h.post("/v1/markets", body, alice.auth), 201);
    expectError(await h.post("/v1/markets", { ...body, subject: { schema: "other", data: {} } }, alice.auth), 409, "idempotency_conflict");
  });

  it("version_conflict: publish and claim with a stale expectedVersion", async () => {
    const marketId = uid("m");
    await h.post("/v1/markets", createBody({ marketId }), alice.auth);
    expectError(await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 2 }, alice.auth), 409, "version_conflict");
    await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth);
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "bob", expectedVersion: 1 }, bob.auth), 409, "version_conflict");
    expectStatus(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "bob", expectedVersion: 2 }, bob.auth), 200);
  });

  it("invalid_market_transition: republish, claim in a draft, an existing market id, a second claim, a claim in an auction", async () => {
    const marketId = uid("m");
    await h.post("/v1/markets", createBody({ marketId, mechanism: directClaimMechanism({ capacity: 5 }) }), alice.auth);
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "bob" }, bob.auth), 409, "invalid_market_transition");
    await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 1 }, alice.auth);
    expectError(await h.post(`/v1/markets/${marketId}/publish`, { commandId: uid("p"), principalId: "alice", expectedVersion: 2 }, alice.auth), 409, "invalid_market_transition");
    expectError(await h.post("/v1/markets", createBody({ marketId }), alice.auth), 409, "invalid_market_transition");
    await claim(h, bob, marketId);
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "bob" }, bob.auth), 409, "invalid_market_transition");
    expectError(await h.post(`/v1/markets/${marketId}/sealed-bids`, { commandId: uid("b"), principalId: "carol", amountMinor: 5, currency: "EUR" }, carol.auth), 409, "invalid_market_transition");
    const auctionId = uid("m");
    await openMarket(h, alice, auctionId, auctionMechanism({ closesAt: h.isoIn(3_600_000) }));
    expectError(await h.post(`/v1/markets/${auctionId}/direct-claims`, { commandId: uid("c"), principalId: "bob" }, bob.auth), 409, "invalid_market_transition");
  });

  it("invalid_commitment_transition: confirming twice, declining a committed commitment", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ confirmation: "participant" }));
    const id = (await claim(h, bob, marketId)).commitments[0].id;
    expectStatus(await commitmentAction(h, bob, id, "confirm"), 200);
    expectError(await commitmentAction(h, bob, id, "confirm"), 409, "invalid_commitment_transition");
    expectError(await commitmentAction(h, bob, id, "decline"), 409, "invalid_commitment_transition");
    expectError(await commitmentAction(h, alice, id, "decline"), 409, "invalid_commitment_transition");
  });

  it("capacity_exhausted: a claim with nothing left", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1 }));
    await claim(h, bob, marketId);
    expectError(await h.post(`/v1/markets/${marketId}/direct-claims`, { commandId: uid("c"), principalId: "carol" }, carol.auth), 409, "capacity_exhausted");
  });

  it("identity_conflict: an identifier already bound to different key material", async () => {
    const first = generateKeyPair();
    expectStatus(await h.post("/v1/admin/identities", { commandId: uid("x"), principalId: "frank", actorId: "frank", keyId: "frank-k", publicKey: first.publicKey }, h.operator()), 201);
    const other = generateKeyPair().publicKey;
    for (const body of [
      { principalId: "frank", actorId: "frank", keyId: "frank-k", publicKey: other }, // key id with another public key
      { principalId: "frank", actorId: "frank", keyId: "frank-k2", publicKey: other }, // second key for an actor
      { principalId: "frank2", actorId: "frank", keyId: "frank-k3", publicKey: other }, // actor under a new principal
      { principalId: "frank3", actorId: "frank3", keyId: "frank-k4", publicKey: first.publicKey }, // a known public key under a new key id
    ]) {
      expectError(await h.post("/v1/admin/identities", { commandId: uid("x"), ...body }, h.operator()), 409, "identity_conflict");
    }
  });

  it("delegation_conflict: a duplicate delegation id and a repeated revocation", async () => {
    const delegationId = uid("del");
    const body = { delegationId, principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] };
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), ...body }, alice.auth), 201);
    expectError(await h.post("/v1/delegations", { commandId: uid("d"), ...body }, alice.auth), 409, "delegation_conflict");
    expectStatus(await h.post(`/v1/delegations/${delegationId}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 200);
    expectError(await h.post(`/v1/delegations/${delegationId}/revoke`, { commandId: uid("r"), principalId: "alice" }, alice.auth), 409, "delegation_conflict");
  });
});

describe("422", () => {
  it("unknown_mechanism: an unknown preset id", async () => {
    expectError(await h.post("/v1/markets", createBody({ mechanism: { presetId: "dutch-auction.v1", config: {} } }), alice.auth), 422, "unknown_mechanism");
    expectError(await h.post("/v1/markets", createBody({ mechanism: { presetId: "direct-claim.v2", config: directClaimMechanism({}).config } }), alice.auth), 422, "unknown_mechanism");
  });

  it("invalid_mechanism_config: configurations that do not match the preset", async () => {
    const invalid: Array<Record<string, unknown>> = [
      { capacity: 0, pricing: { mode: "free" }, confirmation: "none" },
      { capacity: 1, pricing: { mode: "free" }, confirmation: "participant" }, // hold required
      { capacity: 1, pricing: { mode: "free" }, confirmation: "none", holdDurationSeconds: 5 }, // must be 0
      { capacity: 1, pricing: { mode: "posted", amountMinor: 0, currency: "EUR" }, confirmation: "none" },
      { capacity: 1, pricing: { mode: "free" }, confirmation: "always" },
      { capacity: 1, pricing: { mode: "free" }, confirmation: "none", extra: true },
    ];
    for (const config of invalid) {
      expectError(await h.post("/v1/markets", createBody({ mechanism: { presetId: "direct-claim.v1", config } }), alice.auth), 422, "invalid_mechanism_config");
    }
    // An auction must close after the command time.
    expectError(await h.post("/v1/markets", createBody({ mechanism: auctionMechanism({ closesAt: h.nowIso() }) }), alice.auth), 422, "invalid_mechanism_config");
    expectError(await h.post("/v1/markets", createBody({ mechanism: auctionMechanism({ closesAt: "tomorrow" }) }), alice.auth), 422, "invalid_mechanism_config");
  });
});
