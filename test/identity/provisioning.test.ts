import { describe, expect, it } from "vitest";
import { generateKeyPair } from "@market-service/client";
import type { ProvisionedIdentity } from "../../engine/identity/index.js";
import { OPERATOR, T0, expectOk, nextCommandId, openHarness } from "./helpers.js";

const iso = (ms: number): string => new Date(ms).toISOString();

function provisionBody(overrides: Partial<Record<"commandId" | "principalId" | "actorId" | "keyId" | "publicKey", string>> = {}) {
  return {
    commandId: overrides.commandId ?? nextCommandId("p"),
    principalId: overrides.principalId ?? "alice",
    actorId: overrides.actorId ?? "alice",
    keyId: overrides.keyId ?? "alice-key-1",
    publicKey: overrides.publicKey ?? generateKeyPair().publicKey,
  };
}

describe("provisioning identities", () => {
  it("creates principal, actor and key atomically (201) with the server time", async () => {
    const { store } = await openHarness();
    const body = provisionBody();
    const reply = await store.provisionIdentity(OPERATOR, body);
    expect(reply).toEqual({
      ok: true,
      status: 201,
      body: {
        principal: { id: "alice", createdAt: iso(T0) },
        actor: { id: "alice", createdAt: iso(T0) },
        key: { id: "alice-key-1", actorId: "alice", algorithm: "Ed25519", publicKey: body.publicKey, createdAt: iso(T0) },
      },
    });
    expect(store.principal("alice")).toEqual({ id: "alice", createdAt: iso(T0) });
    expect(store.key("alice-key-1")?.publicKey).toBe(body.publicKey);
  });

  it("replays an identical command with the original reply, also after a restart with a fresh index", async () => {
    const h = await openHarness();
    const body = provisionBody();
    const first = await h.store.provisionIdentity(OPERATOR, body);
    h.clock.advance(5_000);
    expect(await h.store.provisionIdentity(OPERATOR, body)).toEqual(first);
    const framesBefore = h.store.stats.lastLsn;

    const reopened = await h.reopen();
    expect(reopened.index.size).toBe(1);
    reopened.clock.advance(60_000);
    expect(await reopened.store.provisionIdentity(OPERATOR, body)).toEqual(first);
    expect(reopened.store.stats.lastLsn).toBe(framesBefore); // a replay logs nothing
  });

  it("accepts the same material under a new commandId without change (original createdAt)", async () => {
    const h = await openHarness();
    const body = provisionBody();
    const first = expectOk(await h.store.provisionIdentity(OPERATOR, body)) as ProvisionedIdentity;
    h.clock.advance(1_000);
    const again = await h.store.provisionIdentity(OPERATOR, { ...body, commandId: "other-command" });
    expect(again).toEqual({ ok: true, status: 201, body: first });
  });

  it("gives idempotency_conflict for the same commandId with different content", async () => {
    const { store } = await openHarness();
    const body = provisionBody();
    await store.provisionIdentity(OPERATOR, body);
    const reply = await store.provisionIdentity(OPERATOR, { ...body, keyId: "alice-key-2" });
    expect(reply).toMatchObject({ ok: false, code: "idempotency_conflict" });
  });

  it.each([
    ["existing principal with another actor", { principalId: "alice", actorId: "alice-2", keyId: "k2" }, 'principal "alice"'],
    ["existing principal, same actor, second key (no key rotation)", { keyId: "alice-key-2" }, 'principal "alice"'],
    ["existing actor under a new principal", { principalId: "bob", actorId: "alice", keyId: "k3" }, 'actor "alice"'],
    ["existing key id under a new actor", { principalId: "carol", actorId: "carol", keyId: "alice-key-1" }, 'key "alice-key-1"'],
  ])("refuses %s with identity_conflict, retained across restart", async (_name, change, what) => {
    const h = await openHarness();
    await h.store.provisionIdentity(OPERATOR, provisionBody());
    const conflicting = provisionBody(change);
    const reply = await h.store.provisionIdentity(OPERATOR, conflicting);
    expect(reply).toEqual({ ok: false, code: "identity_conflict", message: `${what} is already bound to different key material` });
    const lsn = h.store.stats.lastLsn;
    expect(lsn).toBe(2); // the rejection is logged

    const reopened = await h.reopen();
    expect(await reopened.store.provisionIdentity(OPERATOR, conflicting)).toEqual(reply);
    expect(reopened.store.stats.lastLsn).toBe(lsn);
  });

  it("refuses existing ids bound to a different public key, and a known public key under new ids", async () => {
    const { store } = await openHarness();
    const body = provisionBody();
    await store.provisionIdentity(OPERATOR, body);
    const otherKey = await store.provisionIdentity(OPERATOR, { ...provisionBody(), publicKey: generateKeyPair().publicKey });
    expect(otherKey).toMatchObject({ ok: false, code: "identity_conflict" });
    const reusedKey = await store.provisionIdentity(OPERATOR, provisionBody({ principalId: "dan", actorId: "dan", keyId: "dan-key", publicKey: body.publicKey }));
    expect(reusedKey).toEqual({ ok: false, code: "identity_conflict", message: "publicKey is already bound to different key material" });
  });

  it("allows distinct principal and actor ids (they confer no authority between them)", async () => {
    const { store } = await openHarness();
    const reply = await store.provisionIdentity(OPERATOR, provisionBody({ principalId: "acme", actorId: "acme-bot", keyId: "acme-bot-key" }));
    expect(reply.ok).toBe(true);
  });

  it.each([
    ["principalId", { principalId: "@system" }],
    ["actorId", { actorId: "@system" }],
  ])("refuses the reserved @system as %s with 400 invalid_command, unlogged", async (field, change) => {
    const { store } = await openHarness();
    const reply = await store.provisionIdentity(OPERATOR, provisionBody(change));
    expect(reply).toEqual({ ok: false, code: "invalid_command", message: `${field} "@system" is reserved for the service` });
    expect(store.stats.lastLsn).toBe(0);
  });

  it.each([
    ["too short", "AAAA"],
    ["44 characters", `${generateKeyPair().publicKey}A`],
    ["padded", `${generateKeyPair().publicKey.slice(0, 42)}=`],
    ["standard base64 alphabet", `+${generateKeyPair().publicKey.slice(1)}`],
    ["non-canonical trailing bits", `${generateKeyPair().publicKey.slice(0, 42)}B`],
    ["32 bytes but not a curve point (y = 2 has no x)", "AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
  ])("refuses a bad publicKey (%s) with invalid_command", async (_name, publicKey) => {
    const { store } = await openHarness();
    const reply = await store.provisionIdentity(OPERATOR, provisionBody({ publicKey }));
    expect(reply).toMatchObject({ ok: false, code: "invalid_command" });
    expect(store.stats.lastLsn).toBe(0);
  });

  it("refuses invalid identifiers", async () => {
    const { store } = await openHarness();
    for (const bad of ["", "a\nb", "x".repeat(129), "tab\there"]) {
      const reply = await store.provisionIdentity(OPERATOR, provisionBody({ principalId: bad }));
      expect(reply).toMatchObject({ ok: false, code: "invalid_command" });
    }
  });

  it("forbids non-operators (403), without logging or claiming the commandId", async () => {
    const h = await openHarness();
    const body = provisionBody();
    expect(await h.store.provisionIdentity("mallory", body)).toEqual({
      ok: false,
      code: "forbidden",
      message: "only operator actors may manage identities",
    });
    expect(h.store.stats.lastLsn).toBe(0);
    expect(h.index.size).toBe(0);
  });

  it("disables actors and principals and revokes keys (operator commands), with conflicts on repeats", async () => {
    const h = await openHarness();
    await h.store.provisionIdentity(OPERATOR, provisionBody());
    h.clock.advance(1_000);
    expect(await h.store.revokeKey(OPERATOR, { commandId: "r1", keyId: "alice-key-1" })).toMatchObject({
      ok: true,
      status: 200,
      body: { id: "alice-key-1", revokedAt: iso(T0 + 1_000) },
    });
    expect(await h.store.revokeKey(OPERATOR, { commandId: "r2", keyId: "alice-key-1" })).toMatchObject({ ok: false, code: "identity_conflict" });
    expect(await h.store.revokeKey(OPERATOR, { commandId: "r3", keyId: "nope" })).toMatchObject({ ok: false, code: "identity_not_found" });
    expect(await h.store.disableActor(OPERATOR, { commandId: "d1", actorId: "alice" })).toMatchObject({
      ok: true,
      body: { id: "alice", disabledAt: iso(T0 + 1_000) },
    });
    expect(await h.store.disablePrincipal(OPERATOR, { commandId: "d2", principalId: "alice" })).toMatchObject({ ok: true });
    expect(await h.store.disablePrincipal("alice", { commandId: "d3", principalId: "alice" })).toMatchObject({ ok: false, code: "forbidden" });

    const reopened = await h.reopen();
    expect(reopened.store.key("alice-key-1")?.revokedAt).toBe(iso(T0 + 1_000));
    expect(reopened.store.actor("alice")?.disabledAt).toBe(iso(T0 + 1_000));
    expect(reopened.store.principal("alice")?.disabledAt).toBe(iso(T0 + 1_000));
  });
});
