/**
 * Spec §5 and docs/auth.md: `service-hmac-v1` request signing (skew window, every tampered part of
 * the canonical string, malformed headers), the Ed25519 challenge → bearer token flow (expiry by
 * the clock, single-use challenges, foreign keys), and static MCP tokens not working on plain HTTP.
 * Every failure is 401 `unauthenticated` with exactly "request authentication failed".
 *
 * This file keeps the default token lifetime (900 s) and challenge lifetime (120 s).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServiceResponse, signHmacRequest, signSigningPayload } from "@market-service/client";
import {
  Harness,
  OPERATOR_SECRET,
  STATIC_MCP_TOKEN,
  SUBJECT,
  directClaimMechanism,
  expectError,
  expectStatus,
  expectUnauthenticated,
  uid,
  type Principal,
} from "./support/harness.js";

const SECOND_SECRET = "second-actor-secret-abcdefghijklmnopqrstuvwxyz";

let h: Harness;
let alice: Principal;
let bob: Principal;
let marketId: string;

beforeAll(async () => {
  h = await Harness.start({ env: { AUTH_TOKEN_TTL: undefined, SERVICE_HMAC_SECRETS: `operator=${OPERATOR_SECRET},integrator=${SECOND_SECRET}` } });
  alice = await h.principal("alice");
  bob = await h.principal("bob");
  marketId = uid("m");
  const created = await h.post("/v1/markets", { commandId: uid("c"), marketId, principalId: "alice", subject: SUBJECT, mechanism: directClaimMechanism({}) }, alice.auth);
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await h?.close();
});

/** Sends exactly the given method, target, body text and headers (fetch; no re-serialization). */
async function send(method: string, target: string, headers: Record<string, string>, body?: string): Promise<ServiceResponse> {
  const response = await fetch(`${h.url}${target}`, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers }, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === "" ? undefined : JSON.parse(text) };
}

type SignedHeaders = Record<string, string> & {
  "x-service-actor": string;
  "x-service-timestamp": string;
  authorization: string;
};

function signed(input: { actorId?: string; secret?: string; method: string; uri: string; body?: string; timestampSeconds?: number }): SignedHeaders {
  const headers = signHmacRequest({
    actorId: input.actorId ?? "operator",
    secret: input.secret ?? OPERATOR_SECRET,
    method: input.method,
    uri: input.uri,
    ...(input.body === undefined ? {} : { body: input.body }),
    timestampSeconds: input.timestampSeconds ?? h.nowSeconds(),
  });
  return { "x-service-actor": headers["X-Service-Actor"], "x-service-timestamp": headers["X-Service-Timestamp"], authorization: headers.Authorization };
}

describe("service-hmac-v1", () => {
  it("accepts a correctly signed GET and POST", async () => {
    const read = await send("GET", `/v1/markets/${marketId}`, signed({ method: "GET", uri: `/v1/markets/${marketId}` }));
    expectStatus(read, 200);
    expect(read.body.id).toBe(marketId);
    const body = JSON.stringify({ commandId: uid("c"), marketId: uid("m"), principalId: "operator", subject: SUBJECT, mechanism: directClaimMechanism({}) });
    const created = await send("POST", "/v1/markets", signed({ method: "POST", uri: "/v1/markets", body }), body);
    expectStatus(created, 201);
    expect(created.body.market.creator).toEqual({ principalId: "operator", actorId: "operator" });
    // A second configured actor, not provisioned, acts as itself.
    const other = await send("GET", `/v1/markets/${marketId}`, signed({ actorId: "integrator", secret: SECOND_SECRET, method: "GET", uri: `/v1/markets/${marketId}` }));
    expectStatus(other, 200);
  });

  it("signs the query string as part of the request URI", async () => {
    const uri = `/v1/markets/${marketId}?view=full&x=1`;
    expectStatus(await send("GET", uri, signed({ method: "GET", uri })), 200);
    expectUnauthenticated(await send("GET", uri, signed({ method: "GET", uri: `/v1/markets/${marketId}` })));
    expectUnauthenticated(await send("GET", `/v1/markets/${marketId}`, signed({ method: "GET", uri })));
  });

  it("accepts timestamps within ±300 s (inclusive) and refuses them beyond", async () => {
    const uri = `/v1/markets/${marketId}`;
    const now = h.nowSeconds();
    expectStatus(await send("GET", uri, signed({ method: "GET", uri, timestampSeconds: now - 300 })), 200);
    expectStatus(await send("GET", uri, signed({ method: "GET", uri, timestampSeconds: now + 300 })), 200);
    expectUnauthenticated(await send("GET", uri, signed({ method: "GET", uri, timestampSeconds: now - 301 })));
    expectUnauthenticated(await send("GET", uri, signed({ method: "GET", uri, timestampSeconds: now + 301 })));
    expectUnauthenticated(await send("GET", uri, signed({ method: "GET", uri, timestampSeconds: 0 })));
    // The window follows the server's clock, not the wall clock.
    const stale = signed({ method: "GET", uri });
    h.clock.advance(301_000);
    expectUnauthenticated(await send("GET", uri, stale));
    expectStatus(await send("GET", uri, signed({ method: "GET", uri })), 200);
  });

  it("refuses a tampered body, method, URI or actor, and a wrong secret", async () => {
    const body = JSON.stringify({ commandId: uid("c"), marketId: uid("m"), principalId: "operator", subject: SUBJECT, mechanism: directClaimMechanism({}) });
    const headers = signed({ method: "POST", uri: "/v1/markets", body });
    // body: one byte changed, and the same JSON reformatted
    expectUnauthenticated(await send("POST", "/v1/markets", headers, body.replace('"operator"', '"operatoR"')));
    expectUnauthenticated(await send("POST", "/v1/markets", headers, JSON.stringify(JSON.parse(body), null, 2)));
    expectUnauthenticated(await send("POST", "/v1/markets", headers, `${body} `));
    // method: signed as GET, sent as POST
    expectUnauthenticated(await send("POST", "/v1/markets", signed({ method: "GET", uri: "/v1/markets", body }), body));
    // URI: signed for another path
    expectUnauthenticated(await send("POST", "/v1/markets", signed({ method: "POST", uri: "/v1/markets/", body }), body));
    expectUnauthenticated(await send("GET", `/v1/markets/${marketId}`, signed({ method: "GET", uri: "/v1/markets/other" })));
    // actor: header swapped to another configured actor
    expectUnauthenticated(await send("POST", "/v1/markets", { ...headers, "x-service-actor": "integrator" }, body));
    // timestamp header changed after signing (still inside the window)
    expectUnauthenticated(await send("POST", "/v1/markets", { ...headers, "x-service-timestamp": String(h.nowSeconds() - 1) }, body));
    // wrong secret, unknown actor
    expectUnauthenticated(await send("POST", "/v1/markets", signed({ method: "POST", uri: "/v1/markets", body, secret: SECOND_SECRET }), body));
    expectUnauthenticated(await send("POST", "/v1/markets", signed({ actorId: "mallory", secret: OPERATOR_SECRET, method: "POST", uri: "/v1/markets", body }), body));
    // The untouched request still works (and proves the cases above failed on the tampering alone).
    expectStatus(await send("POST", "/v1/markets", headers, body), 201);
  });

  it("refuses malformed headers before any cryptography", async () => {
    const uri = `/v1/markets/${marketId}`;
    const good = signed({ method: "GET", uri });
    const signature = good.authorization.slice("Service-HMAC ".length);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The same 32 bytes with non-canonical trailing bits: a lenient decoder would take it as the signature.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const nonCanonical = signature.slice(0, -1) + alphabet[alphabet.indexOf(signature.slice(-1)) + 1];
    expect(Buffer.from(nonCanonical, "base64url")).toEqual(Buffer.from(signature, "base64url"));
    const variants: Array<Record<string, string | undefined>> = [
      { authorization: undefined },
      { "x-service-actor": undefined },
      { "x-service-timestamp": undefined },
      { authorization: "Service-HMAC" },
      { authorization: `Service-HMAC ${signature}=` },
      { authorization: `Service-HMAC ${nonCanonical}` },
      { authorization: `Service-HMAC ${signature.slice(1)}` },
      { authorization: `Service-HMAC ${signature}AAAA` },
      { authorization: `HMAC ${signature}` },
      { authorization: `Bearer ${signature}` },
      { authorization: `Service-HMAC:${signature}` },
      { authorization: `Service-HMAC ${Buffer.from(signature, "base64url").toString("base64")}` },
      { "x-service-timestamp": `+${good["x-service-timestamp"]}` },
      { "x-service-timestamp": `0${good["x-service-timestamp"]}` },
      { "x-service-timestamp": `${good["x-service-timestamp"]}.0` },
      { "x-service-timestamp": "" },
      { "x-service-actor": "" },
    ];
    for (const variant of variants) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries({ ...good, ...variant })) if (value !== undefined) headers[name] = value;
      expectUnauthenticated(await send("GET", uri, headers));
    }
    // Scheme case and extra spaces are tolerated (docs/auth.md).
    expectStatus(await send("GET", uri, { ...good, authorization: `service-hmac   ${signature}` }), 200);
  });
});

describe("Ed25519 challenge → bearer token", () => {
  async function challenge(actorId: string, keyId: string): Promise<{ id: string; nonce: string; signingPayload: string; expiresAt: string }> {
    const response = await h.client.request("POST", "/v1/auth/challenges", { body: { actorId, keyId } });
    expectStatus(response, 201);
    return response.body;
  }

  function redeem(body: { challengeId: string; nonce: string; signature: string }): Promise<ServiceResponse> {
    return h.client.request("POST", "/v1/auth/tokens", { body });
  }

  it("a token works until its expiry by the server clock (900 s), then 401", async () => {
    const issuedAt = h.clock.nowMs();
    const token = await h.freshToken(alice);
    const uri = `/v1/markets/${marketId}`;
    h.clock.set(issuedAt + 899_999);
    expectStatus(await h.get(uri, token), 200);
    h.clock.set(issuedAt + 900_000);
    expectUnauthenticated(await h.get(uri, token));
    // A fresh token works again.
    alice.auth = await h.freshToken(alice);
    expectStatus(await h.get(uri, alice.auth), 200);
  });

  it("a challenge is single use: replaying a redeemed challenge is 401", async () => {
    const c = await challenge("alice", "alice-key-1");
    const body = { challengeId: c.id, nonce: c.nonce, signature: signSigningPayload(c.signingPayload, alice.identity.privateKey) };
    expectStatus(await redeem(body), 201);
    expectUnauthenticated(await redeem(body));
  });

  it("a tampered signature is 401 and consumes the challenge", async () => {
    const c = await challenge("alice", "alice-key-1");
    const signature = signSigningPayload(c.signingPayload, alice.identity.privateKey);
    const bytes = Buffer.from(signature, "base64url");
    bytes[10] = (bytes[10] as number) ^ 0x01;
    expectUnauthenticated(await redeem({ challengeId: c.id, nonce: c.nonce, signature: bytes.toString("base64url") }));
    expectUnauthenticated(await redeem({ challengeId: c.id, nonce: c.nonce, signature }));
  });

  it("a wrong nonce or an unknown challenge id is 401", async () => {
    const c = await challenge("alice", "alice-key-1");
    const signature = signSigningPayload(c.signingPayload, alice.identity.privateKey);
    const otherNonce = Buffer.alloc(32, 7).toString("base64url");
    expectUnauthenticated(await redeem({ challengeId: c.id, nonce: otherNonce, signature }));
    expectUnauthenticated(await redeem({ challengeId: "AAAAAAAAAAAAAAAAAAAAAA", nonce: c.nonce, signature }));
  });

  it("a challenge expires after 120 s by the server clock", async () => {
    const c = await challenge("alice", "alice-key-1");
    h.clock.advance(120_000);
    expectUnauthenticated(await redeem({ challengeId: c.id, nonce: c.nonce, signature: signSigningPayload(c.signingPayload, alice.identity.privateKey) }));
  });

  it("a signature by a foreign key is 401; a challenge for another actor's key or an unknown key is 401", async () => {
    const c = await challenge("alice", "alice-key-1");
    expectUnauthenticated(await redeem({ challengeId: c.id, nonce: c.nonce, signature: signSigningPayload(c.signingPayload, bob.identity.privateKey) }));
    for (const body of [
      { actorId: "alice", keyId: "bob-key-1" },
      { actorId: "alice", keyId: "alice-key-9" },
      { actorId: "nobody", keyId: "nobody-key-1" },
      { actorId: "operator", keyId: "operator-key-1" },
    ]) {
      expectUnauthenticated(await h.client.request("POST", "/v1/auth/challenges", { body }));
    }
  });

  it("refuses malformed or foreign bearer tokens", async () => {
    const uri = `/v1/markets/${marketId}`;
    const token = alice.auth.token;
    for (const authorization of [`Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Bearer`, `Bearer ${"A".repeat(43)}`, `Token ${token}`, token]) {
      expectUnauthenticated(await send("GET", uri, { authorization }));
    }
    expectStatus(await send("GET", uri, { authorization: `Bearer ${token}` }), 200);
  });
});

describe("static MCP tokens", () => {
  it("do not authenticate plain HTTP routes (401)", async () => {
    const bearer = { kind: "bearer" as const, token: STATIC_MCP_TOKEN };
    expectUnauthenticated(await h.get(`/v1/markets/${marketId}`, bearer));
    expectUnauthenticated(await h.post("/v1/markets", { commandId: uid("c"), marketId: uid("m"), principalId: "mcp-agent", subject: SUBJECT, mechanism: directClaimMechanism({}) }, bearer));
    expectUnauthenticated(await h.post("/v1/delegations", { commandId: uid("d"), delegationId: uid("del"), principalId: "mcp-agent", delegateActorId: "bob", scopes: ["market:claim"] }, bearer));
  });

  it("while the same token is accepted by /mcp (so the 401 above is about the transport)", async () => {
    const response = await h.post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { kind: "bearer", token: STATIC_MCP_TOKEN }, { accept: "application/json, text/event-stream" });
    expect(response.status, response.text).toBe(200);
    const tools = (response.body as { result?: { tools?: Array<{ name: string }> } }).result?.tools ?? [];
    expect(tools.map((tool) => tool.name)).toContain("submit_direct_claim");
  });
});

describe("unauthenticated routes", () => {
  it("healthz, challenges and tokens ignore credentials; other routes need them", async () => {
    expectStatus(await h.client.request("GET", "/healthz"), 200);
    expectStatus(await h.client.request("GET", "/healthz", { credentials: { kind: "bearer", token: "garbage" } }), 200);
    expectError(await h.client.request("POST", "/v1/auth/tokens", { body: { challengeId: "x", nonce: "y" } }), 400, "invalid_request");
    expectUnauthenticated(await h.client.request("GET", `/v1/markets/${marketId}/my-outcome`));
    expectUnauthenticated(await h.client.request("GET", `/v1/markets/${marketId}/record`));
    expectUnauthenticated(await h.client.request("POST", `/v1/commitments/c.x.1/confirm`, { body: {} }));
  });
  it("authentication is checked before the body: a bad body without credentials is 401, a non-operator's bad admin body 403", async () => {
    expectUnauthenticated(await h.post("/v1/markets", "{{{", { kind: "none" }));
    expectUnauthenticated(await h.post("/v1/delegations", "[1,2", { kind: "bearer", token: "nope" }));
    expectUnauthenticated(await h.post(`/v1/markets/${marketId}/publish`, '{"a":1,"a":2}', { kind: "none" }));
    expectError(await h.post("/v1/admin/identities", { junk: true }, alice.auth), 403, "forbidden");
  });
});
