import { describe, expect, it } from "vitest";
import { isoFromMs } from "../../engine/index.js";
import { Harness, T0, actionResultOf, codeOf, directClaim } from "./harness.js";

function claimed(confirmation: "creator" | "participant" | "both", holdDurationSeconds = 60) {
  const h = new Harness();
  h.create("alice", "m1", directClaim({ capacity: 2, pricing: { mode: "free" }, confirmation, holdDurationSeconds }));
  h.publish("alice", "m1");
  const claim = actionResultOf(h.claim("bob", "m1"));
  return { h, claim, commitmentId: claim.commitments[0]!.id };
}

describe("accepted claim awaiting confirmation (§3.2 row 1)", () => {
  it.each([
    ["creator", ["alice"]],
    ["participant", ["bob"]],
    ["both", ["alice", "bob"]],
  ] as const)("confirmation %s requires %j, with events accepted + awaiting_confirmations", (mode, required) => {
    const { claim } = claimed(mode);
    expect(claim.events.map((e) => e.type)).toEqual(["direct_claim.accepted", "commitment.awaiting_confirmations"]);
    expect(claim.commitments[0]).toMatchObject({
      state: "awaiting_confirmations",
      requiredConfirmationPrincipalIds: required,
      confirmedPrincipalIds: [],
      expiresAt: isoFromMs(T0 + 60_000),
      version: 1,
    });
    expect(claim.events[1]?.data).toEqual({
      commitmentId: "c.bTE.1",
      state: "awaiting_confirmations",
      requiredConfirmationPrincipalIds: required,
      confirmedPrincipalIds: [],
      expiresAt: isoFromMs(T0 + 60_000),
    });
  });
});

describe("confirm (§3.2 row 2, decision 3)", () => {
  it("commits when the only required principal confirms: confirmation_recorded then committed", () => {
    const { h, commitmentId } = claimed("participant");
    const versionBefore = h.market("m1").market.version;
    h.advance(10);
    const result = actionResultOf(h.confirm("bob", commitmentId));
    expect(result.events.map((e) => e.type)).toEqual(["commitment.confirmation_recorded", "commitment.committed"]);
    expect(result.commitments).toHaveLength(1);
    expect(result.commitments[0]).toMatchObject({ state: "committed", confirmedPrincipalIds: ["bob"], updatedAt: isoFromMs(T0 + 10) });
    // Confirming changes only the commitment; the market version stays.
    expect(result.market.version).toBe(versionBefore);
    expect(result.events.every((e) => e.marketVersion === versionBefore)).toBe(true);
  });

  it("creator confirmation mode is confirmed by the creator", () => {
    const { h, commitmentId } = claimed("creator");
    expect(codeOf(h.confirm("bob", commitmentId))).toBe("principal_not_authorized");
    expect(actionResultOf(h.confirm("alice", commitmentId)).commitments[0]?.state).toBe("committed");
  });

  it("keeps awaiting_confirmations after a partial confirmation under both", () => {
    const { h, commitmentId } = claimed("both");
    const first = actionResultOf(h.confirm("alice", commitmentId));
    expect(first.events.map((e) => e.type)).toEqual(["commitment.confirmation_recorded"]);
    expect(first.commitments[0]).toMatchObject({ state: "awaiting_confirmations", confirmedPrincipalIds: ["alice"], version: 2 });
    const second = actionResultOf(h.confirm("bob", commitmentId));
    expect(second.events.map((e) => e.type)).toEqual(["commitment.confirmation_recorded", "commitment.committed"]);
    expect(second.commitments[0]).toMatchObject({ state: "committed", confirmedPrincipalIds: ["alice", "bob"], version: 4 });
  });

  it("refuses a second confirmation by the same principal", () => {
    const { h, commitmentId } = claimed("both");
    h.confirm("alice", commitmentId);
    expect(codeOf(h.confirm("alice", commitmentId))).toBe("invalid_commitment_transition");
  });

  it("refuses a principal that is not listed", () => {
    const { h, commitmentId } = claimed("participant");
    expect(codeOf(h.confirm("mallory", commitmentId))).toBe("principal_not_authorized");
  });

  it("refuses confirmation at or after expiresAt, even before the expiry ran", () => {
    const { h, commitmentId } = claimed("participant", 30);
    h.advance(30_000);
    const outcome = h.confirm("bob", commitmentId);
    expect(codeOf(outcome)).toBe("invalid_commitment_transition");
    expect(outcome.recordSequence).toBeDefined();
  });

  it("refuses confirming a committed commitment", () => {
    const { h, commitmentId } = claimed("participant");
    h.confirm("bob", commitmentId);
    expect(codeOf(h.confirm("bob", commitmentId))).toBe("invalid_commitment_transition");
  });

  it("answers commitment_not_found for unknown and malformed ids, recording them in no market", () => {
    const { h } = claimed("participant");
    for (const id of ["c.bTE.9", "c.bTE.0", "x.bTE.1", "c.bTE", "c.bTI.1", "garbage", "c.bTE=.1"]) {
      const outcome = h.confirm("bob", id);
      expect(codeOf(outcome)).toBe("commitment_not_found");
      expect(outcome.recordSequence).toBeUndefined();
    }
  });
});

describe("decline (§3.2 row 3)", () => {
  it("lets either party decline while awaiting", () => {
    for (const who of ["alice", "bob"]) {
      const { h, commitmentId } = claimed("both");
      expect(actionResultOf(h.decline(who, commitmentId)).commitments[0]?.state).toBe("declined");
    }
  });

  it("refuses anyone else", () => {
    const { h, commitmentId } = claimed("both");
    expect(codeOf(h.decline("mallory", commitmentId))).toBe("principal_not_authorized");
  });

  it("refuses after expiresAt and after the commitment ended", () => {
    const late = claimed("participant", 5);
    late.h.advance(5_000);
    expect(codeOf(late.h.decline("bob", late.commitmentId))).toBe("invalid_commitment_transition");
    const done = claimed("participant");
    done.h.confirm("bob", done.commitmentId);
    expect(codeOf(done.h.decline("bob", done.commitmentId))).toBe("invalid_commitment_transition");
  });

  it("refuses declining a commitment created committed (confirmation none)", () => {
    const h = new Harness();
    h.create("alice", "m1", directClaim({ capacity: 1, pricing: { mode: "free" }, confirmation: "none" }));
    h.publish("alice", "m1");
    const commitmentId = actionResultOf(h.claim("bob", "m1")).commitments[0]!.id;
    expect(codeOf(h.decline("bob", commitmentId))).toBe("invalid_commitment_transition");
  });
});

describe("expire (§3.2 row 4)", () => {
  it("is a system command: a client identity is refused with actor_not_authorized", () => {
    const { h, commitmentId } = claimed("participant", 1);
    h.advance(1_000);
    expect(codeOf(h.expire(commitmentId, { principalId: "bob", actorId: "bob" }))).toBe("actor_not_authorized");
    expect(codeOf(h.expire(commitmentId))).toBe("accepted");
    expect(codeOf(h.expire(commitmentId))).toBe("invalid_commitment_transition");
  });
});
