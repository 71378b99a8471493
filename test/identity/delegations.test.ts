import { describe, expect, it } from "vitest";
import type { IssueDelegationBody } from "../../engine/identity/index.js";
import { OPERATOR, T0, nextCommandId, openHarness, provisionSelf, type Harness } from "./helpers.js";

const iso = (ms: number): string => new Date(ms).toISOString();

async function withPeople(): Promise<Harness> {
  const h = await openHarness();
  await provisionSelf(h.store, "alice");
  await provisionSelf(h.store, "bob");
  return h;
}

function issueBody(overrides: Partial<IssueDelegationBody> = {}): IssueDelegationBody {
  return {
    commandId: nextCommandId("d"),
    delegationId: "del-1",
    principalId: "alice",
    delegateActorId: "bob",
    scopes: ["market:bid", "market:create"],
    ...overrides,
  };
}

describe("issuing delegations", () => {
  it("returns 201 with the Delegation: validFrom = server time, scopes in canonical order", async () => {
    const h = await withPeople();
    h.clock.advance(2_500);
    const reply = await h.store.issueDelegation("alice", issueBody({ validUntil: "2026-03-02T00:00:00+01:00" }));
    expect(reply).toEqual({
      ok: true,
      status: 201,
      body: {
        id: "del-1",
        principalId: "alice",
        actorId: "bob",
        scopes: ["market:create", "market:bid"],
        validFrom: iso(T0 + 2_500),
        validUntil: "2026-03-01T23:00:00.000Z",
      },
    });
    expect(h.store.delegation("del-1")).toEqual(reply.ok ? reply.body : undefined);
  });

  it("replays the original reply; a reordered-scopes retry is the same content", async () => {
    const h = await withPeople();
    const body = issueBody();
    const first = await h.store.issueDelegation("alice", body);
    h.clock.advance(1_000);
    expect(await h.store.issueDelegation("alice", { ...body, scopes: ["market:create", "market:bid"] })).toEqual(first);
    const reopened = await h.reopen();
    expect(await reopened.store.issueDelegation("alice", body)).toEqual(first);
  });

  it("forbids an actor other than the principal (403, delegation management cannot be delegated)", async () => {
    const h = await withPeople();
    const lsn = h.store.stats.lastLsn;
    expect(await h.store.issueDelegation("bob", issueBody())).toEqual({
      ok: false,
      code: "forbidden",
      message: "only the principal itself can manage its delegations",
    });
    expect(await h.store.issueDelegation(OPERATOR, issueBody())).toMatchObject({ ok: false, code: "forbidden" });
    expect(h.store.stats.lastLsn).toBe(lsn);
  });

  it("records missing principal or delegate as identity_not_found (404), replayed after restart", async () => {
    const h = await withPeople();
    const noDelegate = issueBody({ delegateActorId: "nobody" });
    expect(await h.store.issueDelegation("alice", noDelegate)).toEqual({
      ok: false,
      code: "identity_not_found",
      message: 'actor "nobody" does not exist',
    });
    // An HMAC-configured actor acting for itself has no principal record.
    const noPrincipal = issueBody({ principalId: "svc", delegationId: "del-2" });
    expect(await h.store.issueDelegation("svc", noPrincipal)).toEqual({
      ok: false,
      code: "identity_not_found",
      message: 'principal "svc" does not exist',
    });
    const lsn = h.store.stats.lastLsn;
    const reopened = await h.reopen();
    expect(await reopened.store.issueDelegation("alice", noDelegate)).toMatchObject({ code: "identity_not_found" });
    expect(reopened.store.stats.lastLsn).toBe(lsn);
  });

  it("records a duplicate delegation id as delegation_conflict (409)", async () => {
    const h = await withPeople();
    await h.store.issueDelegation("alice", issueBody());
    const dup = await h.store.issueDelegation("alice", issueBody());
    expect(dup).toEqual({ ok: false, code: "delegation_conflict", message: 'delegation "del-1" already exists' });
  });

  it("refuses validUntil not after validFrom (400 invalid_command, recorded) and unparseable dates (unrecorded)", async () => {
    const h = await withPeople();
    const lsn = h.store.stats.lastLsn;
    const atNow = issueBody({ validUntil: iso(T0) });
    expect(await h.store.issueDelegation("alice", atNow)).toEqual({
      ok: false,
      code: "invalid_command",
      message: "validUntil must be after the command time",
    });
    expect(h.store.stats.lastLsn).toBe(lsn + 1);
    expect(await h.store.issueDelegation("alice", issueBody({ validUntil: "2026-02-30T00:00:00Z" }))).toEqual({
      ok: false,
      code: "invalid_command",
      message: "validUntil must be an RFC 3339 date-time",
    });
    expect(h.store.stats.lastLsn).toBe(lsn + 1);
    expect((await h.store.issueDelegation("alice", issueBody({ validUntil: iso(T0 + 1) }))).ok).toBe(true);
  });

  it("refuses bad scopes and self-delegation before claiming the commandId", async () => {
    const h = await withPeople();
    for (const scopes of [[], ["market:bid", "market:bid"], ["market:sell"]] as unknown as IssueDelegationBody["scopes"][]) {
      expect(await h.store.issueDelegation("alice", issueBody({ scopes }))).toMatchObject({ code: "invalid_command" });
    }
    expect(await h.store.issueDelegation("alice", issueBody({ delegateActorId: "alice" }))).toMatchObject({ code: "invalid_command" });
    expect(await h.store.issueDelegation("alice", issueBody({ delegateActorId: "@system" }))).toMatchObject({ code: "invalid_command" });
    // A delegation id that no revoke path could name (decisions.md I44), for callers past the HTTP validators.
    for (const delegationId of [".", ".."]) {
      expect(await h.store.issueDelegation("alice", issueBody({ delegationId }))).toMatchObject({ code: "invalid_command", message: 'delegationId may not be "." or ".."' });
    }
  });

  it("forbids a disabled principal (403, recorded)", async () => {
    const h = await withPeople();
    await h.store.disablePrincipal(OPERATOR, { commandId: "x", principalId: "alice" });
    expect(await h.store.issueDelegation("alice", issueBody())).toEqual({
      ok: false,
      code: "forbidden",
      message: 'principal "alice" is disabled',
    });
  });
});

describe("revoking delegations", () => {
  it("returns 200 with revokedAt; a repeat is a recorded delegation_conflict; replays survive restart", async () => {
    const h = await withPeople();
    await h.store.issueDelegation("alice", issueBody());
    h.clock.advance(10_000);
    const body = { commandId: "rev-1", principalId: "alice" };
    const revoked = await h.store.revokeDelegation("alice", "del-1", body);
    expect(revoked).toEqual({
      ok: true,
      status: 200,
      body: {
        id: "del-1",
        principalId: "alice",
        actorId: "bob",
        scopes: ["market:create", "market:bid"],
        validFrom: iso(T0),
        revokedAt: iso(T0 + 10_000),
      },
    });
    const again = await h.store.revokeDelegation("alice", "del-1", { commandId: "rev-2", principalId: "alice" });
    expect(again).toEqual({ ok: false, code: "delegation_conflict", message: 'delegation "del-1" is already revoked' });

    const reopened = await h.reopen();
    expect(await reopened.store.revokeDelegation("alice", "del-1", body)).toEqual(revoked);
    expect(await reopened.store.revokeDelegation("alice", "del-1", { commandId: "rev-2", principalId: "alice" })).toEqual(again);
    expect(reopened.store.delegation("del-1")?.revokedAt).toBe(iso(T0 + 10_000));
  });

  it("records a missing delegation as delegation_not_found (404)", async () => {
    const h = await withPeople();
    const lsn = h.store.stats.lastLsn;
    expect(await h.store.revokeDelegation("alice", "nope", { commandId: "r", principalId: "alice" })).toEqual({
      ok: false,
      code: "delegation_not_found",
      message: 'delegation "nope" does not exist',
    });
    expect(h.store.stats.lastLsn).toBe(lsn + 1);
  });

  it("forbids anyone but the owning self-representing principal (403)", async () => {
    const h = await withPeople();
    await h.store.issueDelegation("alice", issueBody());
    // The delegate itself, acting for alice: not self-representing.
    expect(await h.store.revokeDelegation("bob", "del-1", { commandId: "r1", principalId: "alice" })).toMatchObject({
      code: "forbidden",
    });
    // Bob acting for himself on alice's delegation: not the owner (decided on state, recorded).
    expect(await h.store.revokeDelegation("bob", "del-1", { commandId: "r2", principalId: "bob" })).toEqual({
      ok: false,
      code: "forbidden",
      message: 'delegation "del-1" belongs to another principal',
    });
    expect(h.store.delegation("del-1")?.revokedAt).toBeUndefined();
  });

  it("includes the path id in the fingerprint: same commandId on another delegation is a conflict", async () => {
    const h = await withPeople();
    await h.store.issueDelegation("alice", issueBody());
    await h.store.issueDelegation("alice", issueBody({ delegationId: "del-2" }));
    await h.store.revokeDelegation("alice", "del-1", { commandId: "same", principalId: "alice" });
    expect(await h.store.revokeDelegation("alice", "del-2", { commandId: "same", principalId: "alice" })).toMatchObject({
      code: "idempotency_conflict",
    });
  });
});
