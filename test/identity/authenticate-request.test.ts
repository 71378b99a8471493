import { describe, expect, it } from "vitest";
import type { AuthenticationRequest, AuthService } from "../../gateway/auth/index.js";
import { signHmacRequest, signSigningPayload } from "@market-service/client";
import { HMAC_SECRET, OPERATOR, T0, authFor, expectOk, openHarness, provisionSelf } from "./helpers.js";

const STATIC_TOKEN = "static-mcp-token-abcdefghijklmnopqrstuvwxyz";

function request(headers: Record<string, string>, overrides: Partial<AuthenticationRequest> = {}): AuthenticationRequest {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: (name) => lower.get(name), method: "GET", uri: "/v1/markets/m1", bodyBytes: new Uint8Array(0), transport: "http", ...overrides };
}

async function setup(): Promise<{ auth: AuthService; token: string }> {
  const h = await openHarness();
  const alice = await provisionSelf(h.store, "alice");
  const auth = authFor(h, { MCP_STATIC_TOKENS: `${STATIC_TOKEN}=mcp-agent` });
  const challenge = expectOk(await auth.createChallenge({ actorId: "alice", keyId: alice.keyId }, T0));
  const grant = expectOk(
    await auth.issueToken({ challengeId: challenge.id, nonce: challenge.nonce, signature: signSigningPayload(challenge.signingPayload, alice.privateKey) }, T0),
  );
  return { auth, token: grant.accessToken };
}

describe("authenticateRequest", () => {
  it("accepts an issued bearer token on both transports", async () => {
    const { auth, token } = await setup();
    expect(auth.authenticateRequest(request({ Authorization: `Bearer ${token}` }), T0)).toEqual({ actorId: "alice", credential: "bearer" });
    expect(auth.authenticateRequest(request({ Authorization: `bearer ${token}` }, { transport: "mcp" }), T0)).toEqual({ actorId: "alice", credential: "bearer" });
  });

  it("accepts HMAC-signed requests (exact body bytes) on both transports", async () => {
    const { auth } = await setup();
    const body = '{"commandId":"x"}';
    const headers = signHmacRequest({ actorId: OPERATOR, secret: HMAC_SECRET, method: "POST", uri: "/v1/admin/identities", body, timestampSeconds: T0 / 1000 });
    const signed = request({ ...headers }, { method: "post", uri: "/v1/admin/identities", bodyBytes: Buffer.from(body) });
    expect(auth.authenticateRequest(signed, T0)).toEqual({ actorId: OPERATOR, credential: "hmac" });
    expect(auth.authenticateRequest({ ...signed, transport: "mcp" }, T0)).toEqual({ actorId: OPERATOR, credential: "hmac" });
    expect(auth.authenticateRequest({ ...signed, bodyBytes: Buffer.from(`${body} `) }, T0)).toBeUndefined();
  });

  it("accepts static MCP tokens on /mcp only", async () => {
    const { auth } = await setup();
    const headers = { Authorization: `Bearer ${STATIC_TOKEN}` };
    expect(auth.authenticateRequest(request(headers, { transport: "mcp" }), T0)).toEqual({ actorId: "mcp-agent", credential: "static" });
    expect(auth.authenticateRequest(request(headers), T0)).toBeUndefined();
    expect(auth.authenticateStaticMcpToken(STATIC_TOKEN)).toBe("mcp-agent");
    expect(auth.authenticateStaticMcpToken(`${STATIC_TOKEN}x`)).toBeUndefined();
    expect(auth.authenticateStaticMcpToken("short")).toBeUndefined();
  });

  it.each([
    ["no Authorization header", {}],
    ["an unknown scheme", { Authorization: "Basic YWxpY2U6cHc=" }],
    ["a bare scheme", { Authorization: "Bearer" }],
    ["an unknown bearer token", { Authorization: `Bearer ${"A".repeat(43)}` }],
    ["an HMAC header without actor and timestamp", { Authorization: `Service-HMAC ${"A".repeat(43)}` }],
  ])("refuses %s", async (_name, headers) => {
    const { auth } = await setup();
    expect(auth.authenticateRequest(request(headers), T0)).toBeUndefined();
    expect(auth.authenticateRequest(request(headers, { transport: "mcp" }), T0)).toBeUndefined();
  });

  it("reports operators and whether any is configured", async () => {
    const { auth } = await setup();
    expect(auth.isOperator(OPERATOR)).toBe(true);
    expect(auth.isOperator("alice")).toBe(false);
    expect(auth.operatorsConfigured()).toBe(true);
  });
});
