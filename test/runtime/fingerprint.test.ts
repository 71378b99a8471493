/**
 * The fingerprint definition is part of the data: fingerprints are logged with every command and
 * kept in index snapshots, so the encoder built for memory (one flat string per fingerprint) must
 * produce exactly `base64url(SHA-256(text)).slice(0, 22)`, as logged by earlier versions.
 */
import { hash } from "node:crypto";
import canonicalize from "canonicalize";
import { test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { shardDirectories } from "../../engine/replay/audit-replay.js";
import { commandFingerprint, orderedFingerprint } from "../../engine/idempotency/fingerprint.js";
import { fingerprintOfCommand } from "../../gateway/api/market-api.js";
import { decodeLoggedCommand } from "../../engine/log/logged-command.js";
import { SegmentLog } from "../../storage/index.js";
import { FIXTURE_DIR } from "../compat/fixture.js";
import { canonicalJson } from "../../engine/canonical-hash.js";
import { COMMAND_TYPES } from "@market-service/client/wire";
import { type Command } from "../../engine/rules/types/command.js";
import { COMMAND_LAYOUTS } from "../../engine/rules/types/command-layout.js";
import { commandOf } from "./layout-samples.js";

/**
 * The fingerprint's field order as earlier versions wrote it, by hand per command type (before it
 * was derived from the declared layouts): the reference the derived order must equal.
 */
function handOrderedFingerprint(command: Command): string {
  const { principalId, actorId, authorityRef } = command.identity;
  const head = [command.commandId, principalId, actorId, authorityRef ?? null];
  switch (command.type) {
    case "market.create_draft":
      return orderedFingerprint(command.type, [...head, command.marketId, canonicalJson(command.subject), canonicalJson(command.mechanism)]);
    case "market.publish":
      return orderedFingerprint(command.type, [...head, command.marketId, command.expectedVersion]);
    case "direct_claim.submit":
      return orderedFingerprint(command.type, [...head, command.marketId, command.expectedVersion ?? null]);
    case "sealed_auction.submit_bid":
      return orderedFingerprint(command.type, [...head, command.marketId, command.amountMinor, command.currency]);
    case "sealed_auction.resolve":
      return orderedFingerprint(command.type, [...head, command.marketId]);
    case "commitment.confirm":
    case "commitment.decline":
    case "commitment.expire":
      return orderedFingerprint(command.type, [...head, command.commitmentId]);
  }
}

describe("command fingerprints", () => {
  it("are the first 22 characters of the base64url SHA-256 digest, for every byte value in the 17 bytes used", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) {
      const args = { i, text: "é✓".repeat(i % 7), list: [i % 3, null] };
      const expected = hash("sha256", canonicalize(["market.publish", args]) as string, "base64url").slice(0, 22);
      expect(commandFingerprint("market.publish", args)).toBe(expected);
      for (const ch of expected) seen.add(ch);
    }
    // Every one of the 64 characters occurred, so every alphabet slot of the encoder was checked.
    expect(seen.size).toBe(64);
  });

  it("of every command in a log written by older code equal the fingerprint logged with it", () => {
    // The fixture's frames carry the fingerprints the service computed when it wrote them
    // (test/compat/fixture-log); recomputing them from the logged commands must give the same text,
    // or every retry of an old command would be refused as a conflict.
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "fingerprint-")), "data");
    cpSync(path.join(FIXTURE_DIR, "data"), dataDir, { recursive: true });
    let checked = 0;
    const types = new Set<string>();
    for (const { dir } of shardDirectories(dataDir)) {
      const log = SegmentLog.open({ dir });
      try {
        for (const frame of log.frames(0, { verify: "none" })) {
          const logged = decodeLoggedCommand(frame.payload);
          if (logged.f === undefined) continue;
          expect(fingerprintOfCommand(logged.c), `${logged.c.type} ${logged.c.commandId}`).toBe(logged.f);
          checked += 1;
          types.add(logged.c.type);
        }
      } finally {
        log.close();
      }
    }
    expect(checked).toBeGreaterThan(20);
    // Every type a client sends (system commands carry no fingerprint).
    expect([...types].sort()).toEqual(COMMAND_TYPES.filter((type) => COMMAND_LAYOUTS[type].origin === "client").sort());
  });

  for (const type of COMMAND_TYPES) {
    test.prop([commandOf(type)], { numRuns: 100 })(`of ${type} commands, derived from its declared layout, equal the hand-ordered definition`, (command) => {
      expect(fingerprintOfCommand(command)).toBe(handOrderedFingerprint(command));
    });
  }

  it("differ when any field differs", () => {
    const a = orderedFingerprint("direct_claim.submit", ["c1", "p", "a", null, "m", null]);
    expect(orderedFingerprint("direct_claim.submit", ["c1", "p", "a", null, "m", 1])).not.toBe(a);
    expect(orderedFingerprint("commitment.confirm", ["c1", "p", "a", null, "m", null])).not.toBe(a);
  });
});
