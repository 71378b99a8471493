import { randomBytes, sign as nodeSign, createPrivateKey, verify as nodeVerify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AUTHENTICATION_FAILED, type AuthenticationChallenge } from "../../gateway/auth/index.js";
import { ed25519PublicKeyObject } from "../../gateway/auth/key-cache.js";
import { hashTokenText } from "../../gateway/auth/token-hash.js";
import { base64UrlDecode, generateKeyPair, signSigningPayload } from "@market-service/client";
import { MAX_LIVE_TOKENS_PER_KEY } from "../../engine/identity/index.js";
import { TOKEN_SWEEP_INTERVAL_MS } from "../../engine/identity/store.js";
import {
  OPERATOR,
  T0,
  authFor,
  expectOk,
  openHarness,
  provisionSelf,
  readAllFiles,
  type Harness,
  type ProvisionedKey,
} from "./helpers.js";
import type { AuthService } from "../../gateway/auth/index.js";

const iso = (ms: number): string => new Date(ms).toISOString();

async function setup(env = {}): Promise<{ h: Harness; auth: AuthService; alice: ProvisionedKey }> {
  const h = await openHarness();
  const alice = await provisionSelf(h.store, "alice");
  return { h, auth: authFor(h, env), alice };
}

async function challengeFor(auth: AuthService, who: ProvisionedKey, nowMs: number): Promise<AuthenticationChallenge> {
  return expectOk(await auth.createChallenge({ actorId: who.actorId, keyId: who.keyId }, nowMs));
}

async function login(auth: AuthService, who: ProvisionedKey, nowMs: number): Promise<string> {
  const challenge = await challengeFor(auth, who, nowMs);
  const signature = signSigningPayload(challenge.signingPayload, who.privateKey);
  return expectOk(await auth.issueToken({ challengeId: challenge.id, nonce: challenge.nonce, signature }, nowMs)).accessToken;
}

describe("Ed25519 challenges", () => {
  it("issues a challenge whose signing payload binds audience, id, actor, key, nonce and expiry", async () => {
    const { auth, alice } = await setup();
    const reply = await auth.createChallenge({ actorId: "alice", keyId: "alice-key" }, T0);
    expect(reply.ok && reply.status).toBe(201);
    const challenge = expectOk(reply);
    expect(challenge).toMatchObject({ actorId: "alice", keyId: "alice-key", audience: "market-service", expiresAt: iso(T0 + 120_000) });
    expect(challenge.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(challenge.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const payload = Buffer.from(challenge.signingPayload, "base64url").toString("utf8");
    expect(payload).toBe(
      ["market-service-auth-v1", "market-service", challenge.id, "alice", "alice-key", challenge.nonce, iso(T0 + 120_000)].join("\n"),
    );
    expect(alice.publicKey).toHaveLength(43);
  });

  it.each([
    ["unknown actor", { actorId: "nobody", keyId: "alice-key" }],
    ["unknown key", { actorId: "alice", keyId: "nope" }],
    ["another actor's key", { actorId: "bob", keyId: "alice-key" }],
  ])("refuses a challenge for an %s with 401", async (_name, body) => {
    const { h, auth } = await setup();
    await provisionSelf(h.store, "bob");
    expect(await auth.createChallenge(body, T0)).toEqual(AUTHENTICATION_FAILED);
    expect(AUTHENTICATION_FAILED).toEqual({ ok: false, code: "unauthenticated", message: "request authentication failed" });
  });

  it("refuses challenges for a revoked key or a disabled actor", async () => {
    const { h, auth } = await setup();
    const bob = await provisionSelf(h.store, "bob");
    await h.store.revokeKey(OPERATOR, { commandId: "rk", keyId: "alice-key" });
    await h.store.disableActor(OPERATOR, { commandId: "da", actorId: "bob" });
    expect(await auth.createChallenge({ actorId: "alice", keyId: "alice-key" }, T0)).toEqual(AUTHENTICATION_FAILED);
    expect(await auth.createChallenge({ actorId: bob.actorId, keyId: bob.keyId }, T0)).toEqual(AUTHENTICATION_FAILED);
  });

  it("exchanges a valid signature for a 43-character bearer token with the configured lifetime", async () => {
    const { auth, alice } = await setup();
    const challenge = await challengeFor(auth, alice, T0);
    const signature = signSigningPayload(challenge.signingPayload, alice.privateKey);
    const reply = await auth.issueToken({ challengeId: challenge.id, nonce: challenge.nonce, signature }, T0 + 1_000);
    expect(reply).toMatchObject({ ok: true, status: 201, body: { tokenType: "Bearer", actorId: "alice", expiresAt: iso(T0 + 901_000) } });
    const token = expectOk(reply).accessToken;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(auth.authenticateBearer(token, T0 + 2_000)).toBe("alice");
  });

  it("is single-use: the challenge is consumed by any attempt, even a failed one", async () => {
    const { auth, alice } = await setup();
    const challenge = await challengeFor(auth, alice, T0);
    const signature = signSigningPayload(challenge.signingPayload, alice.privateKey);
    const body = { challengeId: challenge.id, nonce: challenge.nonce, signature };
    expect((await auth.issueToken(body, T0)).ok).toBe(true);
    expect(await auth.issueToken(body, T0)).toEqual(AUTHENTICATION_FAILED);

    const second = await challengeFor(auth, alice, T0);
    const good = { challengeId: second.id, nonce: second.nonce, signature: signSigningPayload(second.signingPayload, alice.privateKey) };
    expect(await auth.issueToken({ ...good, nonce: challenge.nonce }, T0)).toEqual(AUTHENTICATION_FAILED);
    expect(await auth.issueToken(good, T0)).toEqual(AUTHENTICATION_FAILED); // consumed by the wrong-nonce attempt
    expect(auth.outstandingChallenges).toBe(0);
  });

  it("gives a token to exactly one of two identical requests arriving at once", async () => {
    const { auth, alice } = await setup();
    const challenge = await challengeFor(auth, alice, T0);
    const body = { challengeId: challenge.id, nonce: challenge.nonce, signature: signSigningPayload(challenge.signingPayload, alice.privateKey) };
    const replies = await Promise.all([auth.issueToken(body, T0), auth.issueToken(body, T0)]);
    expect(replies.filter((reply) => reply.ok)).toHaveLength(1);
    expect(replies.filter((reply) => !reply.ok)).toEqual([AUTHENTICATION_FAILED]);
    expect(auth.outstandingChallenges).toBe(0);
  });

  it("refuses an expired challenge (valid strictly before expiresAt)", async () => {
    const { auth, alice } = await setup({ AUTH_CHALLENGE_TTL: "30" });
    const late = await challengeFor(auth, alice, T0);
    const sign = (c: AuthenticationChallenge) => ({ challengeId: c.id, nonce: c.nonce, signature: signSigningPayload(c.signingPayload, alice.privateKey) });
    expect(await auth.issueToken(sign(late), T0 + 30_000)).toEqual(AUTHENTICATION_FAILED);
    const inTime = await challengeFor(auth, alice, T0);
    expect((await auth.issueToken(sign(inTime), T0 + 29_999)).ok).toBe(true);
  });

  it.each([
    ["a wrong nonce", (c: AuthenticationChallenge, sig: string) => ({ challengeId: c.id, nonce: randomBytes(32).toString("base64url"), signature: sig })],
    ["a signature by another key", (c: AuthenticationChallenge) => ({ challengeId: c.id, nonce: c.nonce, signature: signSigningPayload(c.signingPayload, generateKeyPair().privateKey) })],
    ["a signature over other bytes", (c: AuthenticationChallenge, _sig: string, pk: string) => ({ challengeId: c.id, nonce: c.nonce, signature: signSigningPayload(Buffer.from("x").toString("base64url"), pk) })],
    ["a tampered signature", (c: AuthenticationChallenge, sig: string) => ({ challengeId: c.id, nonce: c.nonce, signature: (sig[0] === "A" ? "B" : "A") + sig.slice(1) })],
    ["a signature that is not base64url", (c: AuthenticationChallenge) => ({ challengeId: c.id, nonce: c.nonce, signature: "!".repeat(86) })],
    ["a short signature", (c: AuthenticationChallenge, sig: string) => ({ challengeId: c.id, nonce: c.nonce, signature: sig.slice(0, 80) })],
    ["an unknown challenge id", (c: AuthenticationChallenge, sig: string) => ({ challengeId: `${c.id}x`, nonce: c.nonce, signature: sig })],
  ])("refuses %s with 401", async (_name, tamper) => {
    const { auth, alice } = await setup();
    const challenge = await challengeFor(auth, alice, T0);
    const signature = signSigningPayload(challenge.signingPayload, alice.privateKey);
    expect(await auth.issueToken(tamper(challenge, signature, alice.privateKey), T0)).toEqual(AUTHENTICATION_FAILED);
  });

  it("refuses a challenge signed with a foreign key: bob's challenge signed by alice", async () => {
    const { h, auth, alice } = await setup();
    const bob = await provisionSelf(h.store, "bob");
    const challenge = await challengeFor(auth, bob, T0);
    const signature = signSigningPayload(challenge.signingPayload, alice.privateKey);
    expect(await auth.issueToken({ challengeId: challenge.id, nonce: challenge.nonce, signature }, T0)).toEqual(AUTHENTICATION_FAILED);
  });

  it("refuses a token when the key is revoked or the actor disabled between challenge and token", async () => {
    const { h, auth, alice } = await setup();
    const bob = await provisionSelf(h.store, "bob");
    const ca = await challengeFor(auth, alice, T0);
    const cb = await challengeFor(auth, bob, T0);
    await h.store.revokeKey(OPERATOR, { commandId: "rk", keyId: alice.keyId });
    await h.store.disableActor(OPERATOR, { commandId: "da", actorId: bob.actorId });
    const body = (c: AuthenticationChallenge, k: ProvisionedKey) => ({ challengeId: c.id, nonce: c.nonce, signature: signSigningPayload(c.signingPayload, k.privateKey) });
    expect(await auth.issueToken(body(ca, alice), T0)).toEqual(AUTHENTICATION_FAILED);
    expect(await auth.issueToken(body(cb, bob), T0)).toEqual(AUTHENTICATION_FAILED);
  });

  it("keeps at most maxChallenges, dropping the oldest, and sweeps expired ones", async () => {
    const h = await openHarness();
    const alice = await provisionSelf(h.store, "alice");
    const { AuthService, loadAuthConfig } = await import("../../gateway/auth/index.js");
    const config = loadAuthConfig({ SERVICE_HMAC_SECRETS: `op=${"s".repeat(32)}` }, h.dir + "-data", { maxChallenges: 3 });
    const auth = new AuthService(config, h.store);
    const first = await challengeFor(auth, alice, T0);
    for (let i = 0; i < 3; i++) await challengeFor(auth, alice, T0);
    expect(auth.outstandingChallenges).toBe(3);
    const signature = signSigningPayload(first.signingPayload, alice.privateKey);
    expect(await auth.issueToken({ challengeId: first.id, nonce: first.nonce, signature }, T0)).toEqual(AUTHENTICATION_FAILED);
    await challengeFor(auth, alice, T0 + 120_000); // all older ones expired: swept
    expect(auth.outstandingChallenges).toBe(1);
  });

  it("verifies noble signatures with node:crypto and vice versa (byte-identical, RFC 8032)", () => {
    const pair = generateKeyPair();
    const message = randomBytes(200);
    const nobleSig = base64UrlDecode(signSigningPayload(message.toString("base64url"), pair.privateKey));
    const publicKey = ed25519PublicKeyObject(Buffer.from(pair.publicKey, "base64url"));
    expect(nodeVerify(null, message, publicKey, nobleSig)).toBe(true);
    const privateKey = createPrivateKey({
      key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.from(pair.privateKey, "base64url")]),
      format: "der",
      type: "pkcs8",
    });
    expect(Buffer.from(nodeSign(null, message, privateKey))).toEqual(Buffer.from(nobleSig));
  });
});

describe("bearer tokens", () => {
  it("checks audience, expiry (exclusive), disabled actor and revoked key", async () => {
    const { h, auth, alice } = await setup();
    const token = await login(auth, alice, T0);
    expect(auth.authenticateBearer(token, T0 + 899_999)).toBe("alice");
    expect(auth.authenticateBearer(token, T0 + 900_000)).toBeUndefined();
    expect(authFor(h, { AUTH_AUDIENCE: "other-service" }).authenticateBearer(token, T0)).toBeUndefined();
    expect(auth.authenticateBearer(`${token}x`, T0)).toBeUndefined();
    expect(auth.authenticateBearer("", T0)).toBeUndefined();

    const bob = await provisionSelf(h.store, "bob");
    const bobToken = await login(auth, bob, T0);
    await h.store.revokeKey(OPERATOR, { commandId: "rk", keyId: alice.keyId });
    await h.store.disableActor(OPERATOR, { commandId: "da", actorId: "bob" });
    expect(auth.authenticateBearer(token, T0)).toBeUndefined();
    expect(auth.authenticateBearer(bobToken, T0)).toBeUndefined();
  });

  it("survives a restart, and is stored only as its SHA-256 (the raw token is nowhere in the data dir)", async () => {
    const { h, auth, alice } = await setup();
    const token = await login(auth, alice, T0);
    const reopened = await h.reopen();
    const auth2 = authFor(reopened);
    expect(auth2.authenticateBearer(token, T0 + 1_000)).toBe("alice");

    const files = readAllFiles(h.dir);
    expect(files.length).toBeGreaterThan(0);
    const hash = hashTokenText(token);
    const forms = [Buffer.from(token), Buffer.from(token, "base64url"), Buffer.from(token, "utf16le")];
    for (const { bytes } of files) {
      for (const form of forms) expect(bytes.includes(form)).toBe(false);
    }
    expect(files.some(({ bytes }) => bytes.includes(Buffer.from(hash)))).toBe(true);
  });

  it("issues tokens of one turn in one group commit with other commands", async () => {
    const { h, auth, alice } = await setup();
    const commits = h.store.stats.commits;
    const c1 = await challengeFor(auth, alice, T0);
    const c2 = await challengeFor(auth, alice, T0);
    const sig = (c: AuthenticationChallenge) => signSigningPayload(c.signingPayload, alice.privateKey);
    const [g1, g2, p] = await Promise.all([
      auth.issueToken({ challengeId: c1.id, nonce: c1.nonce, signature: sig(c1) }, T0),
      auth.issueToken({ challengeId: c2.id, nonce: c2.nonce, signature: sig(c2) }, T0),
      provisionSelf(h.store, "bob"),
    ]);
    expect(g1.ok && g2.ok && p.actorId).toBe("bob");
    expect(h.store.stats.commits - commits).toBe(1);
  });

  it(`keeps at most ${MAX_LIVE_TOKENS_PER_KEY} live tokens per key, revoking the oldest (also after replay)`, async () => {
    const { h, auth, alice } = await setup();
    const tokens: string[] = [];
    for (let i = 0; i < MAX_LIVE_TOKENS_PER_KEY + 1; i++) tokens.push(await login(auth, alice, T0));
    expect(auth.authenticateBearer(tokens[0] ?? "", T0)).toBeUndefined();
    expect(auth.authenticateBearer(tokens[1] ?? "", T0)).toBe("alice");
    expect(h.store.state.tokens.size).toBe(MAX_LIVE_TOKENS_PER_KEY);
    const auth2 = authFor(await h.reopen());
    expect(auth2.authenticateBearer(tokens[0] ?? "", T0)).toBeUndefined();
    expect(auth2.authenticateBearer(tokens.at(-1) ?? "", T0)).toBe("alice");
  });

  it("forgets expired tokens at issue time and in snapshots", async () => {
    const h = await openHarness({ snapshotEveryCommands: 4 });
    const alice = await provisionSelf(h.store, "alice");
    const auth = authFor(h);
    await login(auth, alice, T0);
    await login(auth, alice, T0);
    h.clock.advance(900_000);
    const fresh = await login(auth, alice, T0 + 900_000); // the two expired ones are dropped here
    expect(h.store.state.tokens.size).toBe(1);
    const reopened = await h.reopen();
    expect(reopened.store.recovery.snapshotLsn).toBe(4);
    expect(reopened.store.state.tokens.size).toBe(1);
    expect(authFor(reopened).authenticateBearer(fresh, T0 + 900_001)).toBe("alice");
  });

  it("drops the expired tokens of keys that issue no more, when a later token is issued", async () => {
    const h = await openHarness();
    const auth = authFor(h);
    const idle = [await provisionSelf(h.store, "alice"), await provisionSelf(h.store, "bob"), await provisionSelf(h.store, "carol")];
    for (const who of idle) await login(auth, who, T0);
    expect(h.store.state.tokens.size).toBe(3);
    // Past their lifetime (900 s) and the sweep interval, another key's token sweeps them away.
    h.clock.advance(900_000 + TOKEN_SWEEP_INTERVAL_MS);
    const dave = await provisionSelf(h.store, "dave");
    const daveToken = await login(auth, dave, h.clock.nowMs());
    expect(h.store.state.tokens.size).toBe(1);
    expect(h.store.state.tokensByKey.size).toBe(1);
    expect(auth.authenticateBearer(daveToken, h.clock.nowMs())).toBe("dave");
    // A token still live is never swept.
    const alice = idle[0] as ProvisionedKey;
    const aliceToken = await login(auth, alice, h.clock.nowMs());
    h.clock.advance(TOKEN_SWEEP_INTERVAL_MS);
    await login(auth, dave, h.clock.nowMs());
    expect(auth.authenticateBearer(aliceToken, h.clock.nowMs())).toBe("alice");
  });

  it("answers 500 (not 401) when the store cannot persist the token", async () => {
    const { h, auth, alice } = await setup();
    const challenge = await challengeFor(auth, alice, T0);
    await h.store.close();
    const reply = await auth.issueToken({ challengeId: challenge.id, nonce: challenge.nonce, signature: signSigningPayload(challenge.signingPayload, alice.privateKey) }, T0);
    expect(reply).toMatchObject({ ok: false, code: "internal_error" });
  });
});
