/**
 * Validation messages a person can follow (issue 25 §4): many bad bodies on every endpoint that
 * takes one, each answered with the spec's status and code and a message that names the field in
 * the spec's terms (`marketId`, `mechanism.config.capacity`, `scopes[0]`) with its rule in plain
 * words: no typia notation (`$input`, `&`, `<…>`, `MinLength`, `Format`…).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, SUBJECT, auctionMechanism, directClaimMechanism, expectError, uid, type Principal } from "./support/harness.js";
import { expectPlainMessage, TYPIA_SYNTAX } from "./support/plain-message.js";
import type { Credentials } from "@market-service/client";

let h: Harness;
let alice: Principal;

beforeAll(async () => {
  h = await Harness.start();
  [alice] = await h.principals("alice");
});

afterAll(async () => {
  await h?.close();
});

type Who = "none" | "operator" | "alice";
interface Case {
  path: string;
  who: Who;
  /** A function so that ids are fresh for each case. */
  body: () => Record<string, unknown>;
  field: string;
  /** Words the rule must contain (beyond naming the field). */
  says?: RegExp;
  status?: number;
  code?: string;
}

const LONG_ID = "x".repeat(129);
const key43 = "A".repeat(43);

const market = (fields: Record<string, unknown> = {}) => ({ commandId: uid("c"), marketId: uid("m"), principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}), ...fields });
const directConfig = (config: Record<string, unknown>) => market({ mechanism: { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none", ...config } } });
const auctionConfig = (config: Record<string, unknown>) => {
  const mechanism = auctionMechanism({ closesAt: "2030-01-01T00:00:00Z" });
  return market({ mechanism: { presetId: mechanism.presetId, config: { ...mechanism.config, ...config } } });
};
const drop = (body: Record<string, unknown>, member: string) => {
  const copy = { ...body };
  delete copy[member];
  return copy;
};
const configWithout = (member: string) => {
  const body = auctionConfig({});
  const mechanism = body["mechanism"] as { presetId: string; config: Record<string, unknown> };
  return { ...body, mechanism: { presetId: mechanism.presetId, config: drop(mechanism.config, member) } };
};
const acting = (fields: Record<string, unknown> = {}) => ({ commandId: uid("c"), principalId: "alice", ...fields });
const delegation = (fields: Record<string, unknown> = {}) => acting({ delegationId: uid("d"), delegateActorId: "bob", scopes: ["market:claim"], ...fields });
const provision = (fields: Record<string, unknown> = {}) => acting({ principalId: uid("p"), actorId: uid("a"), keyId: uid("k"), publicKey: key43, ...fields });
const INVALID_CONFIG = { status: 422, code: "invalid_mechanism_config" };

const CASES: Case[] = [
  // POST /v1/auth/challenges (unauthenticated)
  { path: "/v1/auth/challenges", who: "none", body: () => ({ keyId: "k" }), field: "actorId", says: /1–128 characters/ },
  { path: "/v1/auth/challenges", who: "none", body: () => ({ actorId: "", keyId: "k" }), field: "actorId", says: /got an empty string/ },
  { path: "/v1/auth/challenges", who: "none", body: () => ({ actorId: 5, keyId: "k" }), field: "actorId", says: /got 5/ },
  { path: "/v1/auth/challenges", who: "none", body: () => ({ actorId: "a", keyId: "k", extra: true }), field: "extra" },
  // POST /v1/auth/tokens (unauthenticated)
  { path: "/v1/auth/tokens", who: "none", body: () => ({ challengeId: "c", nonce: "n" }), field: "signature" },
  { path: "/v1/auth/tokens", who: "none", body: () => ({ challengeId: "c", nonce: "", signature: "s" }), field: "nonce", says: /1–64 characters/ },
  { path: "/v1/auth/tokens", who: "none", body: () => ({ challengeId: "c", nonce: "n", signature: "s".repeat(129) }), field: "signature", says: /got a string of 129 characters/ },
  // POST /v1/admin/identities (operator)
  { path: "/v1/admin/identities", who: "operator", body: () => provision({ publicKey: "short" }), field: "publicKey", says: /exactly 43 characters/ },
  { path: "/v1/admin/identities", who: "operator", body: () => provision({ publicKey: "!".repeat(43) }), field: "publicKey", says: /base64url.*in another form/ },
  { path: "/v1/admin/identities", who: "operator", body: () => drop(provision(), "keyId"), field: "keyId" },
  { path: "/v1/admin/identities", who: "operator", body: () => provision({ principalId: "bell\u0007" }), field: "principalId", says: /no control characters/ },
  { path: "/v1/admin/identities", who: "operator", body: () => provision({ commandId: LONG_ID }), field: "commandId", says: /got a string of 129 characters/ },
  // POST /v1/delegations
  { path: "/v1/delegations", who: "alice", body: () => delegation({ scopes: [] }), field: "scopes", says: /1–7 distinct items/ },
  { path: "/v1/delegations", who: "alice", body: () => delegation({ scopes: ["market:bid", "market:bid"] }), field: "scopes", says: /with repeats/ },
  { path: "/v1/delegations", who: "alice", body: () => delegation({ scopes: ["market:buy"] }), field: "scopes[0]", says: /one of .*"market:claim"/ },
  { path: "/v1/delegations", who: "alice", body: () => delegation({ validUntil: 5 }), field: "validUntil", says: /RFC 3339 date-time/ },
  { path: "/v1/delegations", who: "alice", body: () => delegation({ validUntil: "tomorrow" }), field: "validUntil", says: /in another form/ },
  { path: "/v1/delegations", who: "alice", body: () => drop(delegation(), "delegateActorId"), field: "delegateActorId" },
  // POST /v1/delegations/{id}/revoke
  { path: "/v1/delegations/d-1/revoke", who: "alice", body: () => ({ commandId: uid("c") }), field: "principalId" },
  { path: "/v1/delegations/d-1/revoke", who: "alice", body: () => acting({ reason: "lost" }), field: "reason" },
  // POST /v1/markets: body fields (400)
  { path: "/v1/markets", who: "alice", body: () => market({ marketId: "" }), field: "marketId", says: /1–128 characters/ },
  { path: "/v1/markets", who: "alice", body: () => market({ marketId: LONG_ID }), field: "marketId", says: /got a string of 129 characters/ },
  { path: "/v1/markets", who: "alice", body: () => drop(market(), "commandId"), field: "commandId", says: /a string of 1–128 characters/ },
  { path: "/v1/markets", who: "alice", body: () => market({ subject: "table" }), field: "subject", says: /an object \{schema, data\}/ },
  { path: "/v1/markets", who: "alice", body: () => market({ subject: { schema: "", data: {} } }), field: "subject.schema", says: /1–256 characters/ },
  { path: "/v1/markets", who: "alice", body: () => market({ subject: { schema: "s", data: [] } }), field: "subject.data", says: /a JSON object/ },
  { path: "/v1/markets", who: "alice", body: () => market({ mechanism: "direct-claim.v1" }), field: "mechanism", says: /an object \{presetId, config\}/ },
  { path: "/v1/markets", who: "alice", body: () => market({ mechanism: { presetId: "direct-claim.v1" } }), field: "mechanism.config" },
  { path: "/v1/markets", who: "alice", body: () => market({ mechanism: { presetId: "p".repeat(129), config: {} } }), field: "mechanism.presetId" },
  { path: "/v1/markets", who: "alice", body: () => market({ authorityRef: "" }), field: "authorityRef", says: /or omitted/ },
  { path: "/v1/markets", who: "alice", body: () => market({ "odd name": 1 }), field: '["odd name"]' },
  // POST /v1/markets: the mechanism's configuration (422, decided by the engine)
  { path: "/v1/markets", who: "alice", body: () => directConfig({ capacity: 0 }), field: "mechanism.config.capacity", says: /an integer from 1 to 4294967295 \(got 0\)/, ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ capacity: 1.5 }), field: "mechanism.config.capacity", says: /got 1\.5/, ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ capacity: 4294967296 }), field: "mechanism.config.capacity", ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ pricing: { mode: "auction" } }), field: "mechanism.config.pricing", says: /mode: "free"/, ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ pricing: { mode: "posted", amountMinor: 5 } }), field: "mechanism.config.pricing.currency", ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ pricing: { mode: "posted", amountMinor: 0, currency: "EUR" } }), field: "mechanism.config.pricing.amountMinor", ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ confirmation: "maybe" }), field: "mechanism.config", says: /confirmation: "none"/, ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ confirmation: "participant" }), field: "mechanism.config.holdDurationSeconds", ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ holdDurationSeconds: 30 }), field: "mechanism.config.holdDurationSeconds", says: /0, or omitted/, ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => directConfig({ colour: "red" }), field: "mechanism.config.colour", ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => auctionConfig({ currency: "eur" }), field: "mechanism.config.currency", says: /three capital letters/, ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => auctionConfig({ closesAt: "soon" }), field: "mechanism.config.closesAt", says: /RFC 3339/, ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => auctionConfig({ holdDurationSeconds: 0 }), field: "mechanism.config.holdDurationSeconds", ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => auctionConfig({ reserveAmountMinor: -1 }), field: "mechanism.config.reserveAmountMinor", ...INVALID_CONFIG },
  { path: "/v1/markets", who: "alice", body: () => configWithout("closesAt"), field: "mechanism.config.closesAt", ...INVALID_CONFIG },
  // POST /v1/markets/{id}/publish
  { path: "/v1/markets/m-any/publish", who: "alice", body: () => acting({ expectedVersion: 0 }), field: "expectedVersion", says: /from 1 to 9007199254740991 \(got 0\)/ },
  { path: "/v1/markets/m-any/publish", who: "alice", body: () => acting({ expectedVersion: "1" }), field: "expectedVersion", says: /an integer/ },
  { path: "/v1/markets/m-any/publish", who: "alice", body: () => acting({ expectedVersion: 1.5 }), field: "expectedVersion" },
  { path: "/v1/markets/m-any/publish", who: "alice", body: () => acting(), field: "expectedVersion" },
  // POST /v1/markets/{id}/direct-claims
  { path: "/v1/markets/m-any/direct-claims", who: "alice", body: () => acting({ expectedVersion: -1 }), field: "expectedVersion", says: /from 0 to/ },
  { path: "/v1/markets/m-any/direct-claims", who: "alice", body: () => acting({ commandId: null }), field: "commandId", says: /got null/ },
  { path: "/v1/markets/m-any/direct-claims", who: "alice", body: () => ({ commandId: uid("c") }), field: "principalId" },
  // POST /v1/markets/{id}/sealed-bids
  { path: "/v1/markets/m-any/sealed-bids", who: "alice", body: () => acting({ amountMinor: 0, currency: "EUR" }), field: "amountMinor", says: /from 1 to/ },
  { path: "/v1/markets/m-any/sealed-bids", who: "alice", body: () => acting({ amountMinor: 2.5, currency: "EUR" }), field: "amountMinor" },
  { path: "/v1/markets/m-any/sealed-bids", who: "alice", body: () => acting({ amountMinor: 5, currency: "euro" }), field: "currency", says: /three capital letters/ },
  { path: "/v1/markets/m-any/sealed-bids", who: "alice", body: () => acting({ currency: "EUR" }), field: "amountMinor" },
  // POST /v1/commitments/{id}/confirm and /decline
  { path: "/v1/commitments/c-any/confirm", who: "alice", body: () => acting({ note: "ok" }), field: "note" },
  { path: "/v1/commitments/c-any/decline", who: "alice", body: () => acting({ principalId: "" }), field: "principalId" },
];

function credentials(who: Who): Credentials {
  if (who === "operator") return h.operator();
  if (who === "alice") return alice.auth;
  return { kind: "none" };
}

describe("validation messages name the field and state its rule in plain words", () => {
  it.each(CASES.map((c, index) => [`${index + 1}: ${c.path} ${c.field}`, c] as const))("%s", async (_name, c) => {
    const response = await h.post(c.path, c.body(), credentials(c.who));
    expectError(response, c.status ?? 400, c.code ?? "invalid_request");
    const message = response.body.error.message as string;
    expectPlainMessage(message, c.field);
    if (c.says !== undefined) expect(message).toMatch(c.says);
  });

  it("covers every endpoint that takes a body", () => {
    const covered = new Set(CASES.map((c) => c.path.replace(/\/(m-any|c-any|d-1)\//, "/{id}/")));
    expect([...covered].sort()).toEqual(
      [
        "/v1/admin/identities",
        "/v1/auth/challenges",
        "/v1/auth/tokens",
        "/v1/commitments/{id}/confirm",
        "/v1/commitments/{id}/decline",
        "/v1/delegations",
        "/v1/delegations/{id}/revoke",
        "/v1/markets",
        "/v1/markets/{id}/direct-claims",
        "/v1/markets/{id}/publish",
        "/v1/markets/{id}/sealed-bids",
      ].sort(),
    );
  });

  it("still refuses integers beyond 2^53 - 1 (not rounded), in plain words", async () => {
    for (const literal of ["9007199254740992", "9007199254740993", "1e300"]) {
      const response = await h.post("/v1/markets/m-any/publish", `{"commandId":"${uid("c")}","principalId":"alice","expectedVersion":${literal}}`, alice.auth);
      expectError(response, 400, "invalid_request");
      expect(response.body.error.message).not.toMatch(TYPIA_SYNTAX);
    }
    const capacity = await h.post("/v1/markets", JSON.stringify(directConfig({ capacity: 1 })).replace('"capacity":1', '"capacity":9007199254740993'), alice.auth);
    expectError(capacity, 400, "invalid_request");
  });
});
