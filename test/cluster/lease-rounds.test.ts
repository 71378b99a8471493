/**
 * When a node's next lease round starts (engine/cluster/leases.ts): a period after the last, at once
 * after an announced release, and at the moment another node's lease lapses when that comes first,
 * so that a dead owner's partitions are taken at its lease's expiry rather than up to a round later.
 */
import { describe, expect, it } from "vitest";
import { nextLapse, nextRoundDelayMs, type View } from "../../engine/cluster/leases.js";

const NOW_MS = 1_000_000;
const round = { renewEveryMs: 500, elapsedMs: 40, nowMs: NOW_MS, nextLapseMs: Number.POSITIVE_INFINITY, roundWanted: false };

describe("nextRoundDelayMs", () => {
  it("waits out the period after the round's start while every lease is renewed ahead of it", () => {
    expect(nextRoundDelayMs(round)).toBe(460);
    // A healthy holder's lease lapses a lease's length after its last renewal, beyond the next round.
    expect(nextRoundDelayMs({ ...round, nextLapseMs: NOW_MS + 1_100 })).toBe(460);
  });

  it("wakes at a lease's lapse when it comes before the next round", () => {
    expect(nextRoundDelayMs({ ...round, nextLapseMs: NOW_MS + 120.2 })).toBe(121);
  });

  it("ignores a lapse already past (the round just run saw it) and starts at once after an announced release", () => {
    expect(nextRoundDelayMs({ ...round, nextLapseMs: NOW_MS - 5 })).toBe(460);
    expect(nextRoundDelayMs({ ...round, nextLapseMs: NOW_MS + 120, roundWanted: true })).toBe(0);
  });

  it("never waits less than nothing nor more than a period, whatever the round took", () => {
    expect(nextRoundDelayMs({ ...round, elapsedMs: 900 })).toBe(0);
    expect(nextRoundDelayMs({ ...round, elapsedMs: -30 })).toBe(500);
  });
});

describe("nextLapse", () => {
  const lease = (node: string | null, expiresAtMs: number) => ({ kind: "value" as const, value: { node, epoch: 3, expiresAtMs }, revision: 7 });

  it("is the earliest moment another node's lease is free: the later of its expiry and its holder's heartbeat", () => {
    const view: View = {
      leases: [lease("b", NOW_MS + 900), lease("c", NOW_MS + 300), lease("c", NOW_MS + 200)],
      heartbeats: new Map([
        ["b", NOW_MS + 1_000],
        ["c", NOW_MS + 400],
      ]),
    };
    expect(nextLapse(view, "a", NOW_MS)).toBe(NOW_MS + 400);
    // A holder with no heartbeat left: its lease's own expiry.
    expect(nextLapse({ ...view, heartbeats: new Map() }, "a", NOW_MS)).toBe(NOW_MS + 200);
  });

  it("waits for the next lapse still to come, past one already lapsed (that is this round's to take, or another node's)", () => {
    const view: View = { leases: [lease("c", NOW_MS - 700), lease("b", NOW_MS + 250)], heartbeats: new Map([["b", NOW_MS + 100]]) };
    expect(nextLapse(view, "a", NOW_MS)).toBe(NOW_MS + 250);
    expect(nextLapse(view, "a", NOW_MS + 250)).toBe(Number.POSITIVE_INFINITY);
  });

  it("leaves out this node's own leases, released ones and keys it could not read", () => {
    const view: View = {
      leases: [lease("a", NOW_MS + 100), lease(null, NOW_MS + 50), { kind: "absent" }, { kind: "unreadable" }, { kind: "deleted", revision: 4 }],
      heartbeats: new Map(),
    };
    expect(nextLapse(view, "a", NOW_MS)).toBe(Number.POSITIVE_INFINITY);
  });
});
