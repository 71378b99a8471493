/**
 * Every method of the client SDK against the real service on a loopback port (the HTTP API suite's
 * harness: uWS, shard workers, durable logs in a temp dir; every reply also checked against the
 * service's OpenAPI document): each once with a success and once with a spec error, whose
 * MarketServiceError carries the code, status, message and request id, and whose guard says so; a
 * command method's error carries the command's id, every other call's none. The error's `code` is
 * one closed union (checked by the compiler here: the `@ts-expect-error` lines fail the typecheck
 * if the union ever admits any string).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Credentials, errorGuards, generateKeyPair, isMarketServiceError, MARKET_SERVICE_ERROR_CODES, MarketClient, MarketServiceError, type MarketServiceErrorCode, RECEIPT_HEADER, REQUEST_ID_HEADER, SERVICE_ERROR_CODES, type ServiceErrorCode } from "@market-service/client";
import { ERROR_CODES, STREAM_END_CODES, type StreamEndCode } from "@market-service/client/wire";
import { REQUEST_ID_HEADER as SERVER_REQUEST_ID_HEADER } from "../../gateway/http/request-id.js";
import { RECEIPT_HEADER as SERVER_RECEIPT_HEADER } from "../../gateway/routes/request-helpers.js";
import { Harness, OPERATOR_SECRET, type Principal } from "../http-api/support/harness.js";
import { conformingFetch } from "../http-api/support/openapi-conformance.js";

let h: Harness;
let client: MarketClient;
let alice: Principal;
let bob: Principal;
const as = (who: Principal): { credentials: Credentials } => ({ credentials: who.auth });
const operator = (): { credentials: Credentials } => ({ credentials: { kind: "hmac", actorId: "operator", secret: OPERATOR_SECRET, timestampSeconds: h.nowSeconds() } });

/** True only when A and B are the same type (a compile-time check). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The promise's rejection, which must be a MarketServiceError with `code` and `status`, a request
 * id, its guard true, and `commandId` (undefined unless a command method threw it).
 */
async function refused(promise: Promise<unknown>, code: ServiceErrorCode, status: number, commandId: unknown = undefined): Promise<MarketServiceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MarketServiceError);
  const failure = error as MarketServiceError;
  expect({ code: failure.code, status: failure.status, commandId: failure.commandId }).toEqual({ code, status, commandId });
  expect(failure.serviceMessage.length).toBeGreaterThan(0);
  expect(failure.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(failure.message).toContain(failure.requestId);
  expect(errorGuards[code](error)).toBe(true);
  expect(isMarketServiceError(error) && error.is(code)).toBe(true);
  // Every other guard says no.
  for (const other of MARKET_SERVICE_ERROR_CODES) if (other !== code) expect(errorGuards[other](error)).toBe(false);
  return failure;
}

const DIRECT = { presetId: "direct-claim.v1", config: { capacity: 1, pricing: { mode: "free" }, confirmation: "participant", holdDurationSeconds: 60 } } as const;

beforeAll(async () => {
  h = await Harness.start();
  client = new MarketClient({ baseUrl: h.url, fetch: conformingFetch, retry: false });
  [alice, bob] = await h.principals("alice", "bob");
});
afterAll(() => h.close());

describe("the error list", () => {
  it("is the spec's 25 codes (the engine's list) and the service's service_unavailable, then the stream's and the client's, each with a guard", () => {
    expect(SERVICE_ERROR_CODES).toEqual([...ERROR_CODES, "service_unavailable"]);
    expect(ERROR_CODES).toHaveLength(25);
    expect(MARKET_SERVICE_ERROR_CODES).toEqual([...SERVICE_ERROR_CODES, "subscriber_too_slow", "shutting_down", "owner_changed", "resume_required", "unreachable", "unexpected_reply"]);
    expect(STREAM_END_CODES.every((code) => MARKET_SERVICE_ERROR_CODES.includes(code))).toBe(true);
    expect(Object.keys(errorGuards).sort()).toEqual([...MARKET_SERVICE_ERROR_CODES].sort());
    expect(errorGuards.capacity_exhausted(new Error("capacity_exhausted"))).toBe(false);
    // The SDK names the headers itself (the server's modules hold Node code): the same names.
    expect(REQUEST_ID_HEADER).toBe(SERVER_REQUEST_ID_HEADER);
    expect(RECEIPT_HEADER).toBe(SERVER_RECEIPT_HEADER);
  });
});

describe("one error class, one closed code union", () => {
  it("lists every code of the union once, and no string outside it type-checks as a code", () => {
    // The union is exactly the service's codes, the stream's end codes and the client's two.
    const exact: Equal<MarketServiceErrorCode, ServiceErrorCode | StreamEndCode | "unreachable" | "unexpected_reply"> = true;
    expect(exact).toBe(true);
    expect(new Set(MARKET_SERVICE_ERROR_CODES).size).toBe(MARKET_SERVICE_ERROR_CODES.length);
    const error = new MarketServiceError({ code: "owner_changed", status: 0, serviceMessage: "moved", action: "GET /v1/markets/m/events" });
    // @ts-expect-error — the stream's codes once were any string (`http_404`); no longer.
    expect(error.code === "http_404").toBe(false);
    // @ts-expect-error — a guard exists for each code of the union and for nothing else.
    expect(errorGuards.http_404).toBeUndefined();
    // @ts-expect-error — a MarketServiceError cannot be made with a code outside the union.
    expect(new MarketServiceError({ code: "page_error", status: 0, serviceMessage: "", action: "" }).code).toBe("page_error");
    expect(errorGuards.owner_changed(error)).toBe(true);
    expect(isMarketServiceError(error) && error.is("owner_changed")).toBe(true);
    expect(error.is("unreachable")).toBe(false);
    expect(error.commandId).toBeUndefined();
    // A command's copy: the original stays as it was (one error may reach several calls).
    const forCommand = error.forCommand("c-1");
    expect({ commandId: forCommand.commandId, code: forCommand.code, message: forCommand.message, original: error.commandId }).toEqual({ commandId: "c-1", code: "owner_changed", message: error.message, original: undefined });
  });

  it("a reply that is no error body of this service is unexpected_reply, its text kept", () => {
    const proxy = MarketServiceError.fromReply("GET /v1/markets/m", 502, new Headers(), "<html>Bad Gateway</html>");
    expect(proxy).toMatchObject({ code: "unexpected_reply", status: 502, serviceMessage: "<html>Bad Gateway</html>", requestId: undefined });
    const newer = MarketServiceError.fromReply("GET /v1/markets/m", 409, new Headers({ [REQUEST_ID_HEADER]: "r-1" }), JSON.stringify({ error: { code: "some_new_code", message: "later" } }));
    expect(newer).toMatchObject({ code: "unexpected_reply", status: 409, serviceMessage: "some_new_code: later", requestId: "r-1" });
    expect(MarketServiceError.fromReply("GET /v1/markets/m", 503, new Headers(), JSON.stringify({ error: { code: "service_unavailable", message: "starting" } })).code).toBe("service_unavailable");
  });
});

describe("every method: a success and a spec error", () => {
  it("health", async () => {
    expect(await client.health()).toEqual({ status: "ok" });
    // The only refusal /healthz has is a 503 while starting or stopping: retries.test.ts checks it.
  });

  it("createChallenge, issueToken, signIn", async () => {
    const challenge = await client.createChallenge({ actorId: "alice", keyId: "alice-key-1" });
    expect(challenge.actorId).toBe("alice");
    await refused(client.createChallenge({ actorId: "nobody", keyId: "nobody-key" }), "unauthenticated", 401);
    const grant = await client.signIn(alice.identity);
    expect(grant.tokenType).toBe("Bearer");
    expect(grant.actorId).toBe("alice");
    const again = await client.createChallenge({ actorId: "alice", keyId: "alice-key-1" });
    await refused(client.issueToken({ challengeId: again.id, nonce: again.nonce, signature: "A".repeat(86) }), "unauthenticated", 401);
    await refused(client.issueToken({ challengeId: "", nonce: "x", signature: "y" }), "invalid_request", 400);
  });

  it("provisionIdentity and provisionNewIdentity", async () => {
    const keys = generateKeyPair();
    const made = await client.provisionIdentity({ principalId: "carol", actorId: "carol", keyId: "carol-key-1", publicKey: keys.publicKey }, operator());
    expect(made.status).toBe(201);
    expect(made.body.principal.id).toBe("carol");
    expect(made.commandId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await refused(client.provisionIdentity({ principalId: "carol", actorId: "carol", keyId: "carol-key-1", publicKey: generateKeyPair().publicKey }, operator()), "identity_conflict", 409, expect.stringMatching(UUID));
    await refused(client.provisionIdentity({ commandId: "dora-1", principalId: "dora", actorId: "dora", keyId: "dora-key-1", publicKey: keys.publicKey }, as(alice)), "forbidden", 403, "dora-1");
    const dave = await client.provisionNewIdentity({ principalId: "dave" }, operator());
    expect((await client.signIn(dave)).actorId).toBe("dave");
    await refused(client.provisionNewIdentity({ principalId: "dave" }, operator()), "identity_conflict", 409, expect.stringMatching(/^provision-/));
  });

  it("issueDelegation and revokeDelegation", async () => {
    const issued = await client.issueDelegation({ delegationId: "d-alice-bob", principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, as(alice));
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ id: "d-alice-bob", principalId: "alice", actorId: "bob", scopes: ["market:claim"] });
    await refused(client.issueDelegation({ delegationId: "d-x", principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, as(bob)), "forbidden", 403, expect.stringMatching(UUID));
    const revoked = await client.revokeDelegation("d-alice-bob", { principalId: "alice" }, as(alice));
    expect(revoked.body.revokedAt).toBeDefined();
    await refused(client.revokeDelegation("no-such-delegation", { principalId: "alice", commandId: "revoke-1" }, as(alice)), "delegation_not_found", 404, "revoke-1");
  });

  it("createMarket, publishMarket, submitDirectClaim, confirmCommitment, declineCommitment, getMarket, getMarketRecord, getMyOutcome", async () => {
    const created = await client.createMarket({ marketId: "sdk-m1", principalId: "alice", subject: { schema: "seat.v1", data: { row: 1 } }, mechanism: DIRECT }, as(alice));
    expect(created.status).toBe(201);
    expect(created.body.market).toMatchObject({ id: "sdk-m1", state: "draft", version: 1 });
    expect(created.receipt).not.toBeNull();
    // A preset the wire's union does not hold does not compile; sent anyway, the service answers 422.
    // @ts-expect-error: "no-such.v1" is no preset id
    await refused(client.createMarket({ marketId: "sdk-m2", principalId: "alice", subject: { schema: "seat.v1", data: {} }, mechanism: { presetId: "no-such.v1", config: {} } }, as(alice)), "unknown_mechanism", 422, expect.stringMatching(UUID));

    // The id the refused command was sent with: the caller's own, or the one the client made.
    await refused(client.publishMarket("sdk-m1", { principalId: "alice", expectedVersion: 7, commandId: "publish-stale" }, as(alice)), "version_conflict", 409, "publish-stale");
    const published = await client.publishMarket("sdk-m1", { principalId: "alice", expectedVersion: 1 }, as(alice));
    expect(published.body.market.state).toBe("open");

    const claimed = await client.submitDirectClaim("sdk-m1", { principalId: "bob" }, as(bob));
    const commitment = claimed.body.commitments[0];
    expect(commitment?.state).toBe("awaiting_confirmations");
    await refused(client.submitDirectClaim("no-such-market", { principalId: "bob" }, as(bob)), "market_not_found", 404, expect.stringMatching(UUID));

    await refused(client.confirmCommitment("no-such-commitment", { principalId: "bob" }, as(bob)), "commitment_not_found", 404, expect.stringMatching(UUID));
    const confirmed = await client.confirmCommitment(commitment?.id ?? "", { principalId: "bob" }, as(bob));
    expect(confirmed.body.commitments[0]?.state).toBe("committed");
    await refused(client.declineCommitment(commitment?.id ?? "", { principalId: "bob" }, as(bob)), "invalid_commitment_transition", 409, expect.stringMatching(UUID));

    // A second market for a decline that succeeds.
    await client.createMarket({ marketId: "sdk-m3", principalId: "alice", subject: { schema: "seat.v1", data: { row: 3 } }, mechanism: DIRECT }, as(alice));
    await client.publishMarket("sdk-m3", { principalId: "alice", expectedVersion: 1 }, as(alice));
    const second = await client.submitDirectClaim("sdk-m3", { principalId: "bob" }, as(bob));
    const declined = await client.declineCommitment(second.body.commitments[0]?.id ?? "", { principalId: "bob" }, as(bob));
    expect(declined.body.commitments[0]?.state).toBe("declined");

    const market = await client.getMarket("sdk-m1", as(bob));
    expect(market).toMatchObject({ id: "sdk-m1", state: "closed" });
    await refused(client.getMarket("no-such-market", as(bob)), "market_not_found", 404);

    const record = await client.getMarketRecord("sdk-m1", as(alice));
    expect(record.commands.map((command) => command.id)).toContain(claimed.commandId);
    await refused(client.getMarketRecord("sdk-m1", as(bob)), "forbidden", 403);

    const outcome = await client.getMyOutcome("sdk-m1", as(bob));
    expect(outcome.commitments.map((c) => c.id)).toEqual([commitment?.id]);
    await refused(client.getMyOutcome("sdk-m1", { ...as(bob), forPrincipal: { principalId: "alice", authorityRef: "no-such-delegation" } }), "delegation_not_found", 403);
  });

  it("submitSealedBid", async () => {
    const closesAt = new Date(h.clock.nowMs() + 3_600_000).toISOString();
    const auction = { presetId: "sealed-forward-auction.v1", config: { currency: "EUR", closesAt, holdDurationSeconds: 60 } } as const;
    await client.createMarket({ marketId: "sdk-a1", principalId: "alice", subject: { schema: "lot.v1", data: { item: "lamp" } }, mechanism: auction }, as(alice));
    await client.publishMarket("sdk-a1", { principalId: "alice", expectedVersion: 1 }, as(alice));
    const bid = await client.submitSealedBid("sdk-a1", { principalId: "bob", amountMinor: 1500, currency: "EUR" }, as(bob));
    expect(bid.body.bidReceipts?.[0]?.state).toBe("active");
    expect(JSON.stringify(bid.body)).not.toContain("1500");
    await refused(client.submitSealedBid("no-such-market", { principalId: "bob", amountMinor: 1600, currency: "EUR", commandId: "bid-nowhere" }, as(bob)), "market_not_found", 404, "bid-nowhere");
  });

  it("auditKeys, logHead, inclusionProof, consistencyProof", async () => {
    const keys = await client.auditKeys();
    expect(keys.keys.length).toBeGreaterThan(0);
    const head = await client.logHead("shard-0", as(bob));
    expect(head.logId).toBe("shard-0");
    expect(head.treeSize).toBeGreaterThan(1);
    await refused(client.logHead("shard-99", as(bob)), "not_found", 404);
    const inclusion = await client.inclusionProof("shard-0", 0, head.treeSize, as(bob));
    expect(inclusion).toMatchObject({ leafIndex: 0, treeSize: head.treeSize });
    await refused(client.inclusionProof("shard-0", head.treeSize + 5, head.treeSize + 10, as(bob)), "invalid_request", 400);
    const consistency = await client.consistencyProof("shard-0", 1, head.treeSize, as(bob));
    expect(consistency).toMatchObject({ oldSize: 1, newSize: head.treeSize });
    await refused(client.consistencyProof("shard-0", head.treeSize, 1, as(bob)), "invalid_request", 400);
    await refused(client.logHead("shard-0", { credentials: { kind: "bearer", token: "not-a-token" } }), "unauthenticated", 401);
  });

  it("request: one raw exchange, no error thrown for a refusal", async () => {
    const reply = await client.request("GET", "/v1/markets/sdk-m1", { credentials: alice.auth });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe("sdk-m1");
    const refusedReply = await client.request("DELETE", "/v1/markets/sdk-m1", { credentials: alice.auth });
    expect(refusedReply.status).toBe(405);
    expect(refusedReply.body.error.code).toBe("method_not_allowed");
  });
});

describe("ids no URL can name", () => {
  it("refuses . and .. as path ids before sending anything, with invalid_request naming the field; the service refuses them as new ids", async () => {
    let sent = 0;
    const counting = new MarketClient({ baseUrl: h.url, retry: false, fetch: (input, init) => ((sent += 1), fetch(input, init)) });
    for (const id of [".", ".."]) {
      // Each with the command id its error must carry: none for a read.
      const calls: Array<[string, Promise<unknown>, unknown]> = [
        ["marketId", counting.getMarketRecord(id, as(alice)), undefined],
        ["marketId", counting.getMarket(id, as(alice)), undefined],
        ["marketId", counting.getMyOutcome(id, as(alice)), undefined],
        ["marketId", counting.publishMarket(id, { principalId: "alice", expectedVersion: 1, commandId: `dots-${id}` }, as(alice)), `dots-${id}`],
        ["commitmentId", counting.confirmCommitment(id, { principalId: "alice" }, as(alice)), expect.stringMatching(UUID)],
        ["delegationId", counting.revokeDelegation(id, { principalId: "alice" }, as(alice)), expect.stringMatching(UUID)],
        ["logId", counting.logHead(id, as(alice)), undefined],
      ];
      for (const [field, call, commandId] of calls) {
        const error = await call.then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(MarketServiceError);
        expect(error).toMatchObject({ code: "invalid_request", status: 0, requestId: undefined });
        expect((error as MarketServiceError).commandId).toEqual(commandId);
        expect((error as MarketServiceError).serviceMessage).toBe(`${field} may not be "." or "..": URL parsers remove such a segment from a path, so no request can name it`);
      }
      expect(() => counting.subscribe(id, as(alice))).toThrow(expect.objectContaining({ name: "MarketServiceError", code: "invalid_request", status: 0, commandId: undefined }));
      // A command method's refusal carries the command id, like every error of a command.
      await expect(counting.publishMarket(id, { principalId: "alice", expectedVersion: 1, commandId: "dots-cmd" }, as(alice))).rejects.toMatchObject({ commandId: "dots-cmd" });
      expect(sent).toBe(0);

      // The service: 400 invalid_request naming the field, for a new market or delegation.
      const market = await refused(client.createMarket({ marketId: id, principalId: "alice", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT }, as(alice)), "invalid_request", 400, expect.stringMatching(UUID));
      expect(market.serviceMessage).toBe(`marketId: must be a string of 1–128 characters with no control characters, and not "." or ".." (got a string of ${id.length} character${id.length === 1 ? "" : "s"} in another form)`);
      const delegation = await refused(client.issueDelegation({ delegationId: id, principalId: "alice", delegateActorId: "bob", scopes: ["market:claim"] }, as(alice)), "invalid_request", 400, expect.stringMatching(UUID));
      expect(delegation.serviceMessage).toContain("delegationId: must be");
    }
    // Dots inside an id are ordinary characters.
    await client.createMarket({ marketId: "...", principalId: "alice", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT }, as(alice));
    expect((await client.getMarket("...", as(alice))).id).toBe("...");
  });
});
