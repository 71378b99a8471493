/**
 * Every failure a bad SERVICE reply causes reaches the caller as a MarketServiceError (docs/client.md,
 * "Errors"), found by rewriting the real service's replies on their way to the client: a token grant
 * whose expiresAt is no date (a command's error then carries its commandId), a challenge whose
 * signingPayload is not base64url; and a key list that fails its endorsement chain makes a receipt
 * check `unusable` instead of throwing. A caller's own mistake (a malformed private key) stays a
 * plain Error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkReceiptProof } from "@market-service/client/audit";
import { Ed25519Session, MarketClient, MarketServiceError, type AuditKeyList, type Receipt } from "@market-service/client";
import { Harness, type Principal } from "../http-api/support/harness.js";

const DIRECT = { presetId: "direct-claim.v1", config: { capacity: 5, pricing: { mode: "free" }, confirmation: "none" } } as const;

let h: Harness;
let alice: Principal;
beforeAll(async () => {
  h = await Harness.start({ env: { SHARDS: "1" } });
  [alice] = await h.principals("bad-alice");
});
afterAll(() => h.close());

/** A fetch that passes `change` the JSON of each success reply to a path ending in `suffix`. */
function rewriting(suffix: string, change: (body: Record<string, unknown>) => Record<string, unknown>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!String(input).endsWith(suffix) || response.status >= 300) return response;
    const body = change((await response.json()) as Record<string, unknown>);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("resolved");
    },
    (error: unknown) => error,
  );
}

describe("bad service replies are MarketServiceErrors", () => {
  it("a token grant whose expiresAt is no date: unexpected_reply, with the command's id", async () => {
    const client = new MarketClient({ baseUrl: h.url, credentials: new Ed25519Session(alice.identity), fetch: rewriting("/v1/auth/tokens", (grant) => ({ ...grant, expiresAt: "soon" })) });
    const error = await rejection(client.createMarket({ marketId: "bad-1", principalId: "bad-alice", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT }));
    expect(error).toBeInstanceOf(MarketServiceError);
    expect(error).toMatchObject({ code: "unexpected_reply", commandId: expect.any(String) });
    expect((error as MarketServiceError).serviceMessage).toMatch(/expiresAt is not a date-time/);
  });

  it("a challenge whose signingPayload is not base64url: signIn rejects with unexpected_reply", async () => {
    const client = new MarketClient({ baseUrl: h.url, fetch: rewriting("/v1/auth/challenges", (challenge) => ({ ...challenge, signingPayload: "not base64url!" })) });
    const error = await rejection(client.signIn(alice.identity));
    expect(error).toBeInstanceOf(MarketServiceError);
    expect(error).toMatchObject({ code: "unexpected_reply", action: "POST /v1/auth/challenges" });
  });

  it("a malformed private key is the caller's mistake: a plain Error", async () => {
    const client = new MarketClient({ baseUrl: h.url });
    const error = await rejection(client.signIn({ ...alice.identity, privateKey: "short" }));
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(MarketServiceError);
  });

  it("a key list that fails its chain makes checkReceipt and checkReceiptProof unusable, not a throw", async () => {
    const client = new MarketClient({ baseUrl: h.url, credentials: alice.auth });
    const created = await client.createMarket({ marketId: "bad-2", principalId: "bad-alice", subject: { schema: "s.v1", data: {} }, mechanism: DIRECT });
    const receipt = created.receipt as Receipt;
    expect(receipt).not.toBeNull();
    const command = { type: "market.create_draft", marketId: "bad-2", commandId: created.commandId, actorId: alice.identity.actorId } as const;
    const keys = await client.auditKeys();
    const proven = await client.checkReceipt(receipt, keys, { command });
    expect(proven.outcome, JSON.stringify(proven)).toBe("proven");
    const broken: AuditKeyList = { keys: keys.keys.map((key) => ({ ...key, keyId: "0".repeat(32) })) };
    expect(await client.checkReceipt(receipt, broken, { command })).toMatchObject({ outcome: "unusable", reason: expect.stringMatching(/not a valid key history/) });
    if (proven.outcome !== "proven") throw new Error("not proven");
    expect(checkReceiptProof(proven.proofFile, broken)).toMatchObject({ outcome: "unusable", reason: expect.stringMatching(/not a valid key history/) });
  });
});
