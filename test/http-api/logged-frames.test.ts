/**
 * The commands the gateway logs, as the audit trail stores them: every operation sent over HTTP,
 * read back from the shards' segment files after a clean stop, decoded as plain MessagePack (no
 * code of ours), must have its members in the documented order. The gateway builds these objects
 * as literals (decision I13); this pins their layout so a refactor cannot change the log's bytes.
 */
import { readdirSync } from "node:fs";
import * as path from "node:path";
import { Packr } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SegmentLog } from "../../storage/index.js";
import {
  Harness,
  auctionMechanism,
  claim,
  commitmentAction,
  commitmentIdOf,
  directClaimMechanism,
  expectStatus,
  openMarket,
  uid,
  type Principal,
} from "./support/harness.js";

const TAIL = ["commandId", "identity", "occurredAtMs"];
const MEMBERS: Record<string, string[][]> = {
  "market.create_draft": [["type", "marketId", "subject", "mechanism", ...TAIL]],
  "market.publish": [["type", "marketId", "expectedVersion", ...TAIL]],
  "direct_claim.submit": [
    ["type", "marketId", ...TAIL],
    ["type", "marketId", "expectedVersion", ...TAIL],
  ],
  "sealed_auction.submit_bid": [["type", "marketId", "amountMinor", "currency", ...TAIL]],
  "commitment.confirm": [["type", "commitmentId", ...TAIL]],
  "commitment.decline": [["type", "commitmentId", ...TAIL]],
};

let h: Harness;
let alice: Principal;
let bob: Principal;
let carol: Principal;

beforeAll(async () => {
  h = await Harness.start();
  alice = await h.principal("alice");
  bob = await h.principal("bob");
  carol = await h.principal("carol");
});

afterAll(async () => {
  await h?.close();
});

interface Frame {
  entry: string[];
  command: string[];
  identity: string[];
  type: string;
}

function loggedFrames(dataDir: string): Frame[] {
  const plain = new Packr({ useRecords: false, moreTypes: false });
  const frames: Frame[] = [];
  const shardsDir = path.join(dataDir, "shards");
  for (const shard of readdirSync(shardsDir)) {
    const log = SegmentLog.open({ dir: path.join(shardsDir, shard) });
    try {
      for (const frame of log.frames(0, { verify: "crc" })) {
        const entry = plain.unpack(frame.payload) as { c: { type: string; identity: object } } | { h: object };
        if ("h" in entry) {
          // A signed head (engine/log/logged-head.ts), in its own declared order.
          expect(Object.keys(entry)).toEqual(["v", "h"]);
          expect(Object.keys(entry.h)).toEqual(["logId", "treeSize", "rootHash", "timeMs", "keyId", "signature"]);
          continue;
        }
        frames.push({ entry: Object.keys(entry), command: Object.keys(entry.c), identity: Object.keys(entry.c.identity), type: entry.c.type });
      }
    } finally {
      log.close();
    }
  }
  return frames;
}

describe("logged commands", () => {
  it("keep their members in the documented order, for every operation and identity shape", async () => {
    const claims = uid("m");
    await openMarket(h, alice, claims, directClaimMechanism({ capacity: 5, confirmation: "creator", holdDurationSeconds: 600 }));
    await claim(h, bob, claims);
    await claim(h, carol, claims, { expectedVersion: 3 });
    expectStatus(await commitmentAction(h, alice, commitmentIdOf(claims, 1), "confirm"), 200);
    expectStatus(await commitmentAction(h, alice, commitmentIdOf(claims, 2), "decline"), 200);
    // A refused command is logged too, with its rejection beside the command.
    expectStatus(await h.post(`/v1/markets/${uid("missing")}/direct-claims`, { commandId: uid("c"), principalId: "bob" }, bob.auth), 404);
    // Through a delegation: the identity carries authorityRef.
    const delegationId = uid("del");
    expectStatus(await h.post("/v1/delegations", { commandId: uid("d"), delegationId, principalId: "carol", delegateActorId: "bob", scopes: ["market:claim"] }, carol.auth), 201);
    const delegated = uid("m");
    await openMarket(h, alice, delegated, directClaimMechanism({ capacity: 5, confirmation: "none" }));
    expectStatus(await h.post(`/v1/markets/${delegated}/direct-claims`, { commandId: uid("c"), principalId: "carol", authorityRef: delegationId }, bob.auth), 200);
    const auction = uid("a");
    await openMarket(h, alice, auction, auctionMechanism({ closesAt: h.isoIn(3_600_000) }));
    expectStatus(await h.post(`/v1/markets/${auction}/sealed-bids`, { commandId: uid("b"), principalId: "bob", amountMinor: 1_000, currency: "EUR" }, bob.auth), 200);

    await h.restart(); // a clean stop: everything is in the segment files
    const frames = loggedFrames(h.dataDir);
    const seen = new Set<string>();
    for (const frame of frames) {
      const allowed = MEMBERS[frame.type];
      if (allowed === undefined) continue; // the service's own system commands
      seen.add(frame.type);
      expect(allowed, `${frame.type}: ${frame.command.join(",")}`).toContainEqual(frame.command);
      expect([["v", "f", "c"], ["v", "f", "c", "r"]]).toContainEqual(frame.entry);
      expect([["principalId", "actorId"], ["principalId", "actorId", "authorityRef"]]).toContainEqual(frame.identity);
    }
    expect([...seen].sort()).toEqual(Object.keys(MEMBERS).sort());
    expect(frames.some((f) => f.identity.includes("authorityRef"))).toBe(true);
    expect(frames.some((f) => f.entry.includes("r"))).toBe(true);
    expect(frames.some((f) => f.command.includes("expectedVersion") && f.type === "direct_claim.submit")).toBe(true);
  });
});
