/**
 * Hot-path authentication benchmarks (tinybench). Not a vitest file (no `.test.ts`).
 * Run: node --import tsx test/identity/auth.bench.ts
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Bench } from "tinybench";
import { AuthService, loadAuthConfig } from "../../gateway/auth/index.js";
import { systemClock } from "../../engine/clock.js";
import { generateKeyPair, signHmacRequest, signSigningPayload } from "@market-service/client";
import { IdempotencyIndex } from "../../engine/idempotency/index.js";
import { IdentityStore } from "../../engine/identity/index.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "auth-bench-"));
const SECRET = "bench-secret-0123456789abcdefghijklmnop";
try {
  const store = await IdentityStore.open({
    dir: path.join(root, "identity"),
    clock: systemClock,
    idempotency: new IdempotencyIndex(),
    isOperator: (id) => id === "op",
  });
  const pair = generateKeyPair();
  await store.provisionIdentity("op", { commandId: "p", principalId: "alice", actorId: "alice", keyId: "k", publicKey: pair.publicKey });
  const auth = new AuthService(loadAuthConfig({ SERVICE_HMAC_SECRETS: `op=${SECRET}` }, root), store);

  // 10,000 other live tokens (100 actors × 100) so the Map is not trivially small.
  const now = Date.now();
  for (let a = 0; a < 100; a++) {
    await store.provisionIdentity("op", { commandId: `p${a}`, principalId: `u${a}`, actorId: `u${a}`, keyId: `k${a}`, publicKey: generateKeyPair().publicKey });
    const recorded = [];
    for (let i = 0; i < 100; i++) {
      recorded.push(store.recordToken({ hash: `filler-${a}-${i}`, actorId: `u${a}`, keyId: `k${a}`, audience: "market-service", issuedAtMs: now, expiresAtMs: now + 3_600_000 }));
    }
    await Promise.all(recorded);
  }
  if (store.state.tokens.size !== 10_000) throw new Error(`expected 10,000 live tokens, have ${store.state.tokens.size}`);
  const challenge = await auth.createChallenge({ actorId: "alice", keyId: "k" }, now);
  if (!challenge.ok) throw new Error("challenge failed");
  const grant = await auth.issueToken(
    { challengeId: challenge.body.id, nonce: challenge.body.nonce, signature: signSigningPayload(challenge.body.signingPayload, pair.privateKey) },
    now,
  );
  if (!grant.ok) throw new Error("token failed");
  const token = grant.body.accessToken;

  const body = Buffer.from(JSON.stringify({ commandId: "c-1", principalId: "alice", amountMinor: 1200, currency: "EUR" }).padEnd(300, " "));
  const ts = Math.floor(now / 1000);
  const post = signHmacRequest({ actorId: "op", secret: SECRET, method: "POST", uri: "/v1/markets/m-1/sealed-bids", body, timestampSeconds: ts });
  const get = signHmacRequest({ actorId: "op", secret: SECRET, method: "GET", uri: "/v1/markets/m-1", timestampSeconds: ts });
  const hmacPost = { actorHeader: "op", timestampHeader: String(ts), authorizationHeader: post.Authorization, method: "post", uri: "/v1/markets/m-1/sealed-bids", bodyBytes: body };
  const hmacGet = { actorHeader: "op", timestampHeader: String(ts), authorizationHeader: get.Authorization, method: "get", uri: "/v1/markets/m-1", bodyBytes: new Uint8Array(0) };
  const headers = new Map([["authorization", `Bearer ${token}`]]);
  const bearerRequest = { headers: (n: string) => headers.get(n), method: "GET", uri: "/v1/markets/m-1", bodyBytes: new Uint8Array(0), transport: "http" as const };

  const bench = new Bench({ time: 2_000, warmup: true });
  bench
    .add("authenticateBearer (valid token, 10k live tokens)", () => {
      if (auth.authenticateBearer(token, now) !== "alice") throw new Error("bearer failed");
    })
    .add("authenticateRequest (Authorization: Bearer)", () => {
      if (auth.authenticateRequest(bearerRequest, now) === undefined) throw new Error("request failed");
    })
    .add("authenticateHmac (GET, empty body)", () => {
      if (auth.authenticateHmac(hmacGet, now) !== "op") throw new Error("hmac failed");
    })
    .add("authenticateHmac (POST, 300-byte body)", () => {
      if (auth.authenticateHmac(hmacPost, now) !== "op") throw new Error("hmac failed");
    })
    .add("authenticateBearer (unknown token)", () => {
      if (auth.authenticateBearer("A".repeat(43), now) !== undefined) throw new Error("accepted");
    });
  await bench.run();
  console.table(
    bench.tasks.map((task) => {
      const result = task.result as { throughput?: { mean: number }; latency?: { mean: number; p99?: number } } | undefined;
      return {
        task: task.name,
        "ops/s": Math.round(result?.throughput?.mean ?? 0).toLocaleString("en-US"),
        "mean µs": ((result?.latency?.mean ?? 0) * 1000).toFixed(2),
        "p99 µs": ((result?.latency?.p99 ?? 0) * 1000).toFixed(2),
      };
    }),
  );
  await store.close();
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
