import { describe, expect, it } from "vitest";
import { MARKET_SCOPES, SCOPE_FOR_OPERATION, checkAnyMarketAuthority, checkAuthority } from "../../gateway/auth/index.js";
import { OPERATOR, T0, authFor, openHarness, provisionSelf, type Harness } from "./helpers.js";

async function world(): Promise<Harness> {
  const h = await openHarness();
  for (const id of ["alice", "bob", "carol"]) await provisionSelf(h.store, id);
  await h.store.issueDelegation("alice", {
    commandId: "d1",
    delegationId: "alice-to-bob",
    principalId: "alice",
    delegateActorId: "bob",
    scopes: ["market:bid", "commitment:confirm"],
    validUntil: new Date(T0 + 3_600_000).toISOString(),
  });
  await h.store.issueDelegation("carol", {
    commandId: "d2",
    delegationId: "carol-to-bob",
    principalId: "carol",
    delegateActorId: "bob",
    scopes: ["credential:issue"],
  });
  return h;
}

describe("authority (spec §5.5)", () => {
  it("maps every client operation to its scope; credential:issue grants nothing", () => {
    expect(SCOPE_FOR_OPERATION).toEqual({
      "market.create_draft": "market:create",
      "market.publish": "market:publish",
      "direct_claim.submit": "market:claim",
      "sealed_auction.submit_bid": "market:bid",
      "commitment.confirm": "commitment:confirm",
      "commitment.decline": "commitment:decline",
    });
    expect(Object.values(SCOPE_FOR_OPERATION)).not.toContain("credential:issue");
    expect(MARKET_SCOPES).toEqual(Object.values(SCOPE_FOR_OPERATION));
  });

  it("allows self-action without a delegation, also for actors the store does not know (HMAC)", async () => {
    const { store } = await world();
    expect(checkAuthority(store.state, { actorId: "alice", principalId: "alice", scope: "market:create" }, T0)).toBeUndefined();
    expect(checkAuthority(store.state, { actorId: "ops-bot", principalId: "ops-bot", scope: "market:create" }, T0)).toBeUndefined();
  });

  it("refuses an authorityRef on self-action with invalid_command", async () => {
    const { store } = await world();
    expect(checkAuthority(store.state, { actorId: "alice", principalId: "alice", authorityRef: "alice-to-bob", scope: "market:bid" }, T0)).toEqual({
      code: "invalid_command",
      message: "authorityRef must be omitted when the actor acts for itself",
    });
  });

  it("allows a delegate with the scope while the delegation is active", async () => {
    const { store } = await world();
    const request = { actorId: "bob", principalId: "alice", authorityRef: "alice-to-bob", scope: "market:bid" } as const;
    expect(checkAuthority(store.state, request, T0)).toBeUndefined();
    expect(checkAuthority(store.state, request, T0 + 3_599_999)).toBeUndefined();
  });

  it.each([
    ["authority_reference_required", { actorId: "bob", principalId: "alice", scope: "market:bid" }, "authorityRef is required when the actor acts for another principal"],
    ["delegation_not_found", { actorId: "bob", principalId: "alice", authorityRef: "nope", scope: "market:bid" }, 'delegation "nope" does not exist'],
    ["actor_not_authorized (another delegate)", { actorId: "carol", principalId: "alice", authorityRef: "alice-to-bob", scope: "market:bid" }, 'delegation "alice-to-bob" does not name this actor'],
    ["principal_not_authorized (another principal)", { actorId: "bob", principalId: "carol", authorityRef: "alice-to-bob", scope: "market:bid" }, 'delegation "alice-to-bob" is not granted by principal "carol"'],
    ["actor_not_authorized (scope missing)", { actorId: "bob", principalId: "alice", authorityRef: "alice-to-bob", scope: "market:create" }, 'delegation "alice-to-bob" does not include scope "market:create"'],
  ] as const)("refuses with %s", async (label, request, message) => {
    const { store } = await world();
    const code = label.split(" ")[0];
    expect(checkAuthority(store.state, request, T0)).toEqual({ code, message });
  });

  it("refuses an expired, not-yet-valid or revoked delegation with delegation_inactive", async () => {
    const h = await world();
    const request = { actorId: "bob", principalId: "alice", authorityRef: "alice-to-bob", scope: "market:bid" } as const;
    expect(checkAuthority(h.store.state, request, T0 + 3_600_000)).toEqual({ code: "delegation_inactive", message: 'delegation "alice-to-bob" has expired' });
    expect(checkAuthority(h.store.state, request, T0 - 1)).toEqual({ code: "delegation_inactive", message: 'delegation "alice-to-bob" is not valid yet' });
    h.clock.advance(1_000);
    await h.store.revokeDelegation("alice", "alice-to-bob", { commandId: "rv", principalId: "alice" });
    expect(checkAuthority(h.store.state, request, T0 + 2_000)).toEqual({ code: "delegation_inactive", message: 'delegation "alice-to-bob" is revoked' });
  });

  it("refuses acting for a disabled principal, directly or by delegation", async () => {
    const h = await world();
    await h.store.disablePrincipal(OPERATOR, { commandId: "dp", principalId: "alice" });
    expect(checkAuthority(h.store.state, { actorId: "alice", principalId: "alice", scope: "market:bid" }, T0)).toMatchObject({ code: "principal_not_authorized" });
    expect(checkAuthority(h.store.state, { actorId: "bob", principalId: "alice", authorityRef: "alice-to-bob", scope: "market:bid" }, T0)).toMatchObject({ code: "principal_not_authorized" });
  });

  it("checks 'any market scope' for reads; credential:issue alone is not enough", async () => {
    const { store } = await world();
    expect(checkAnyMarketAuthority(store.state, { actorId: "bob", principalId: "alice", authorityRef: "alice-to-bob" }, T0)).toBeUndefined();
    expect(checkAnyMarketAuthority(store.state, { actorId: "bob", principalId: "carol", authorityRef: "carol-to-bob" }, T0)).toEqual({
      code: "actor_not_authorized",
      message: 'delegation "carol-to-bob" does not include a market scope',
    });
    expect(checkAnyMarketAuthority(store.state, { actorId: "bob", principalId: "alice" }, T0)).toMatchObject({ code: "authority_reference_required" });
  });

  it("fails closed through the AuthService once the store is unavailable", async () => {
    const h = await world();
    const auth = authFor(h);
    expect(auth.checkAuthority({ actorId: "alice", principalId: "alice", scope: "market:bid" }, T0)).toBeUndefined();
    await h.store.close();
    expect(auth.checkAuthority({ actorId: "alice", principalId: "alice", scope: "market:bid" }, T0)).toMatchObject({ code: "internal_error" });
    expect(auth.checkAnyMarketAuthority({ actorId: "alice", principalId: "alice" }, T0)).toMatchObject({ code: "internal_error" });
  });
});
