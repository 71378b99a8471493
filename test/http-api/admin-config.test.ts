/**
 * Configuration-dependent routes, each needing its own service start:
 * - spec §4.2: the admin endpoint is not mounted when the operator allowlist is empty (404);
 * - docs/auth.md "First run": without any HMAC secret the service creates DATA_DIR/operator.secret
 *   (mode 0600) for actor `operator`, which can then provision identities; a restart reuses it.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateKeyPair, MarketClient } from "@market-service/client";
import { Harness, expectError, expectStatus, expectUnauthenticated, OPERATOR_SECRET } from "./support/harness.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("SERVICE_OPERATOR_ACTORS empty", () => {
  it("does not mount POST /v1/admin/identities: 404 not_found even for a validly signed request", async () => {
    const h = await Harness.start({ env: { SERVICE_OPERATOR_ACTORS: undefined } });
    try {
      const body = { commandId: "p-1", principalId: "alice", actorId: "alice", keyId: "alice-k", publicKey: generateKeyPair().publicKey };
      expectError(await h.post("/v1/admin/identities", body, h.operator()), 404, "not_found");
      expectError(await h.get("/v1/admin/identities", h.operator()), 404, "not_found");
      // The HMAC actor itself still works on the other routes.
      expectError(await h.get("/v1/markets/none", h.operator()), 404, "market_not_found");
      expectUnauthenticated(await h.get("/v1/markets/none", h.hmac("operator", `${OPERATOR_SECRET}x`)));
    } finally {
      await h.close();
    }
  });
});

describe("first run without HMAC secrets", () => {
  it("creates DATA_DIR/operator.secret (0600) whose operator can provision; a restart loads the same secret", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "http-api-bootstrap-"));
    dirs.push(dataDir);
    const env = { SERVICE_HMAC_SECRETS: undefined, SERVICE_OPERATOR_ACTORS: undefined, MCP_STATIC_TOKENS: undefined };
    const h = await Harness.start({ dataDir, env });
    const file = path.join(dataDir, "operator.secret");
    let secret: string;
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const text = readFileSync(file, "utf8");
      expect(text.endsWith("\n")).toBe(true);
      const parsed = JSON.parse(text) as { actorId: string; secret: string };
      expect(Object.keys(parsed).sort()).toEqual(["actorId", "secret"]);
      expect(parsed.actorId).toBe("operator");
      expect(parsed.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      secret = parsed.secret;
      expect(h.service.bootstrapNotice).toEqual(expect.stringContaining("operator.secret"));
      expect(h.service.bootstrapNotice).not.toContain(secret);

      const client = new MarketClient({ baseUrl: h.url });
      const alice = await client.provisionNewIdentity({ principalId: "alice" }, { credentials: { kind: "hmac", actorId: "operator", secret, timestampSeconds: h.nowSeconds() } });
      const { accessToken } = await client.signIn(alice);
      expect(accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // A wrong secret for the bootstrap operator is refused.
      expectUnauthenticated(await h.post("/v1/admin/identities", { commandId: "x", principalId: "bob", actorId: "bob", keyId: "bob-k", publicKey: generateKeyPair().publicKey }, h.hmac("operator", OPERATOR_SECRET)));
    } finally {
      await h.close();
    }

    const again = await Harness.start({ dataDir, env });
    try {
      expect(again.service.bootstrapNotice).toBeUndefined();
      expect(JSON.parse(readFileSync(file, "utf8")).secret).toBe(secret);
      const body = { commandId: "p-bob", principalId: "bob", actorId: "bob", keyId: "bob-k", publicKey: generateKeyPair().publicKey };
      expectStatus(await again.post("/v1/admin/identities", body, again.hmac("operator", secret)), 201);
    } finally {
      await again.close();
    }
  });
});
