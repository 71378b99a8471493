import { describe, expect, it } from "vitest";
import { isoFromMs } from "../../engine/index.js";
import { Harness, SUBJECT, T0, auction, codeOf, directClaim, resultOf } from "./harness.js";

const FREE_NONE = directClaim({ capacity: 3, pricing: { mode: "free" }, confirmation: "none" });

describe("create market draft (§3.1 row 1, §2.4 normalization)", () => {
  it("creates a draft at version 1 with event market.draft_created", () => {
    const h = new Harness();
    const outcome = h.create("alice", "m1", FREE_NONE);
    const result = resultOf(outcome);
    expect(result.market).toMatchObject({
      id: "m1",
      version: 1,
      state: "draft",
      creator: { principalId: "alice", actorId: "alice" },
      subject: SUBJECT,
      mechanismState: { allocated: 0 },
      createdAt: isoFromMs(T0),
      updatedAt: isoFromMs(T0),
    });
    expect(result.events.map((e) => e.type)).toEqual(["market.draft_created"]);
    expect(result.events[0]).toMatchObject({
      sequence: 1,
      marketId: "m1",
      marketVersion: 1,
      principalId: "alice",
      actorId: "alice",
      occurredAt: isoFromMs(T0),
      data: { creator: { principalId: "alice", actorId: "alice" }, subject: SUBJECT, mechanismState: { allocated: 0 } },
    });
    expect(outcome.recordSequence).toBe(1);
  });

  it("removes an explicit holdDurationSeconds: 0 when confirmation is none", () => {
    const h = new Harness();
    const result = resultOf(
      h.create("alice", "m1", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none", holdDurationSeconds: 0 })),
    );
    expect(result.market.mechanism).toEqual({
      presetId: "direct-claim.v1",
      config: { capacity: 1, pricing: { mode: "free" }, confirmation: "none" },
    });
  });

  it("keeps posted pricing and the hold for confirmation modes that need one", () => {
    const h = new Harness();
    const config = {
      capacity: 2,
      pricing: { mode: "posted", amountMinor: 2500, currency: "EUR" },
      confirmation: "both",
      holdDurationSeconds: 600,
    };
    expect(resultOf(h.create("alice", "m1", directClaim(config))).market.mechanism.config).toEqual(config);
  });

  it("normalizes an auction's closesAt to UTC milliseconds", () => {
    const h = new Harness();
    const result = resultOf(
      h.create(
        "alice",
        "a1",
        auction({ currency: "EUR", reserveAmountMinor: 100, closesAt: "2026-03-01T14:30:00+02:00", holdDurationSeconds: 60 }),
      ),
    );
    expect(result.market.mechanism).toEqual({
      presetId: "sealed-forward-auction.v1",
      config: { currency: "EUR", reserveAmountMinor: 100, closesAt: "2026-03-01T12:30:00.000Z", holdDurationSeconds: 60 },
    });
    expect(result.market.mechanismState).toEqual({ bidCount: 0 });
  });

  it.each([
    ["unknown preset", { presetId: "dutch-auction.v1", config: {} }, "unknown_mechanism"],
    ["capacity 0", directClaim({ capacity: 0, pricing: { mode: "free" }, confirmation: "none" }), "invalid_mechanism_config"],
    ["capacity beyond uint32", directClaim({ capacity: 2 ** 32, pricing: { mode: "free" }, confirmation: "none" }), "invalid_mechanism_config"],
    ["fractional capacity", directClaim({ capacity: 1.5, pricing: { mode: "free" }, confirmation: "none" }), "invalid_mechanism_config"],
    ["hold with none", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none", holdDurationSeconds: 5 }), "invalid_mechanism_config"],
    ["missing hold", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "participant" }), "invalid_mechanism_config"],
    ["zero hold", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "creator", holdDurationSeconds: 0 }), "invalid_mechanism_config"],
    ["unknown confirmation", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "everyone", holdDurationSeconds: 5 }), "invalid_mechanism_config"],
    ["posted price 0", directClaim({ capacity: 1, pricing: { mode: "posted", amountMinor: 0, currency: "EUR" }, confirmation: "none" }), "invalid_mechanism_config"],
    ["posted lowercase currency", directClaim({ capacity: 1, pricing: { mode: "posted", amountMinor: 5, currency: "eur" }, confirmation: "none" }), "invalid_mechanism_config"],
    ["posted price beyond 2^53-1", directClaim({ capacity: 1, pricing: { mode: "posted", amountMinor: 2 ** 53, currency: "EUR" }, confirmation: "none" }), "invalid_mechanism_config"],
    ["free pricing with an amount", directClaim({ capacity: 1, pricing: { mode: "free", amountMinor: 5 }, confirmation: "none" }), "invalid_mechanism_config"],
    ["unknown config member", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none", colour: "red" }), "invalid_mechanism_config"],
    ["auction closesAt in the past", auction({ currency: "EUR", closesAt: "2026-03-01T11:00:00Z", holdDurationSeconds: 60 }), "invalid_mechanism_config"],
    ["auction closesAt equal to now", auction({ currency: "EUR", closesAt: isoFromMs(T0), holdDurationSeconds: 60 }), "invalid_mechanism_config"],
    ["auction closesAt not a calendar date", auction({ currency: "EUR", closesAt: "2026-02-31T00:00:00Z", holdDurationSeconds: 60 }), "invalid_mechanism_config"],
    ["auction without hold", auction({ currency: "EUR", closesAt: "2026-03-02T00:00:00Z" }), "invalid_mechanism_config"],
    ["auction reserve 0", auction({ currency: "EUR", reserveAmountMinor: 0, closesAt: "2026-03-02T00:00:00Z", holdDurationSeconds: 1 }), "invalid_mechanism_config"],
  ])("rejects %s with 422-class %s, recording nothing in any market", (_name, mechanism, code) => {
    const h = new Harness();
    const outcome = h.create("alice", "m1", mechanism);
    expect(codeOf(outcome)).toBe(code);
    expect(outcome.recordSequence).toBeUndefined();
    expect(outcome.aggregate).toBeUndefined();
    expect(outcome.reply.ok ? "" : outcome.reply.rejection.message).toMatch(/mechanism/);
  });

  it("names the offending member in an invalid-config message", () => {
    const h = new Harness();
    const outcome = h.create("alice", "m1", directClaim({ capacity: 0, pricing: { mode: "free" }, confirmation: "none" }));
    expect(outcome.reply.ok ? "" : outcome.reply.rejection.message).toContain("mechanism.config.capacity");
  });

  it("rejects a second create with the same market id and records it in that market", () => {
    const h = new Harness();
    h.create("alice", "m1", FREE_NONE);
    const second = h.create("bob", "m1", FREE_NONE);
    expect(codeOf(second)).toBe("invalid_market_transition");
    expect(second.recordSequence).toBe(2);
    expect(h.market("m1").market.creator.principalId).toBe("alice");
    expect(h.market("m1").market.version).toBe(1);
  });

  it("records the creator identity with the delegation used", () => {
    const h = new Harness();
    const result = resultOf(
      h.create("acme", "m1", FREE_NONE, { identity: { principalId: "acme", actorId: "bot-7", authorityRef: "d-1" } }),
    );
    expect(result.market.creator).toEqual({ principalId: "acme", actorId: "bot-7", authorityRef: "d-1" });
    expect(result.events[0]).toMatchObject({ principalId: "acme", actorId: "bot-7", authorityRef: "d-1" });
  });
});

describe("publish market (§3.1 row 2)", () => {
  it("opens a draft at version 2 with event market.published", () => {
    const h = new Harness();
    h.create("alice", "m1", FREE_NONE);
    h.advance(1000);
    const result = resultOf(h.publish("alice", "m1", 1));
    expect(result.market).toMatchObject({ state: "open", version: 2, updatedAt: isoFromMs(T0 + 1000), createdAt: isoFromMs(T0) });
    expect(result.events).toHaveLength(1);
    expect(result.events[0]).toMatchObject({
      type: "market.published",
      sequence: 2,
      marketVersion: 2,
      data: { previousState: "draft", state: "open" },
    });
  });

  it("refuses a missing market with market_not_found and records it nowhere", () => {
    const h = new Harness();
    const outcome = h.publish("alice", "nope", 1);
    expect(codeOf(outcome)).toBe("market_not_found");
    expect(outcome.recordSequence).toBeUndefined();
  });

  it("refuses anyone but the creator principal", () => {
    const h = new Harness();
    h.create("alice", "m1", FREE_NONE);
    const outcome = h.publish("mallory", "m1", 1);
    expect(codeOf(outcome)).toBe("principal_not_authorized");
    expect(outcome.recordSequence).toBe(2);
    expect(h.market("m1").market.state).toBe("draft");
  });

  it("refuses a stale expectedVersion with version_conflict", () => {
    const h = new Harness();
    h.create("alice", "m1", FREE_NONE);
    expect(codeOf(h.publish("alice", "m1", 7))).toBe("version_conflict");
  });

  it("refuses to publish twice with invalid_market_transition", () => {
    const h = new Harness();
    h.create("alice", "m1", FREE_NONE);
    h.publish("alice", "m1", 1);
    expect(codeOf(h.publish("alice", "m1", 2))).toBe("invalid_market_transition");
    expect(h.market("m1").market.version).toBe(2);
  });

  it("refuses an auction whose closesAt has passed (and at exactly closesAt)", () => {
    const h = new Harness();
    h.create("alice", "a1", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 60_000), holdDurationSeconds: 60 }));
    h.advance(60_000);
    expect(codeOf(h.publish("alice", "a1", 1))).toBe("invalid_market_transition");
    h.advance(-1);
    expect(codeOf(h.publish("alice", "a1", 1))).toBe("accepted");
  });

  it("schedules an auction's close durably as a deadline when published", () => {
    const h = new Harness();
    h.create("alice", "a1", auction({ currency: "EUR", closesAt: isoFromMs(T0 + 60_000), holdDurationSeconds: 60 }));
    expect(h.publish("alice", "a1", 1).deadlines).toEqual([{ kind: "auction_close", marketId: "a1", atMs: T0 + 60_000 }]);
  });
});

describe("authority decided outside the engine", () => {
  it("records an authority rejection in an existing market without deciding", () => {
    const h = new Harness();
    h.create("alice", "m1", FREE_NONE);
    h.publish("alice", "m1");
    const outcome = h.run({
      type: "direct_claim.submit",
      commandId: "x",
      identity: { principalId: "bob", actorId: "eve" },
      occurredAtMs: h.nowMs,
      marketId: "m1",
      authorityRejection: { code: "authority_reference_required", message: "authorityRef is required when acting for another principal" },
    });
    expect(codeOf(outcome)).toBe("authority_reference_required");
    expect(outcome.recordSequence).toBe(3);
    expect(h.market("m1").market.mechanismState).toEqual({ allocated: 0 });
    const record = h.record("m1");
    expect(record.commands[2]).toMatchObject({ status: "rejected", rejectionCode: "authority_reference_required" });
  });

  it("keeps an authority rejection for a missing market out of every market record", () => {
    const h = new Harness();
    const outcome = h.run({
      type: "market.publish",
      commandId: "x",
      identity: { principalId: "bob", actorId: "eve" },
      occurredAtMs: h.nowMs,
      marketId: "ghost",
      expectedVersion: 1,
      authorityRejection: { code: "delegation_not_found", message: "delegation not found" },
    });
    expect(codeOf(outcome)).toBe("delegation_not_found");
    expect(outcome.recordSequence).toBeUndefined();
  });
});
