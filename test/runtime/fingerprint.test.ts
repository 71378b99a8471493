/**
 * The fingerprint definition is part of the data: fingerprints are logged with every command and
 * kept in index snapshots, so the encoder built for memory (one flat string per fingerprint) must
 * produce exactly `base64url(SHA-256(text)).slice(0, 22)`, as logged by earlier versions.
 */
import { hash } from "node:crypto";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { commandFingerprint, orderedFingerprint } from "../../gateway/idempotency/fingerprint.js";

describe("command fingerprints", () => {
  it("are the first 22 characters of the base64url SHA-256 digest, for every byte value in the 17 bytes used", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) {
      const args = { i, text: "é✓".repeat(i % 7), list: [i % 3, null] };
      const expected = hash("sha256", canonicalize(["market.publish", args]) as string, "base64url").slice(0, 22);
      expect(commandFingerprint("market.publish", args)).toBe(expected);
      const fields = [`c-${i}`, "p", "a", null, "m", i % 2 === 0 ? null : i];
      expect(orderedFingerprint("direct_claim.submit", fields)).toBe(hash("sha256", JSON.stringify(["direct_claim.submit", fields]), "base64url").slice(0, 22));
      for (const ch of expected) seen.add(ch);
    }
    // Every one of the 64 characters occurred, so every alphabet slot of the encoder was checked.
    expect(seen.size).toBe(64);
  });

  it("differ when any field differs", () => {
    const a = orderedFingerprint("direct_claim.submit", ["c1", "p", "a", null, "m", null]);
    expect(orderedFingerprint("direct_claim.submit", ["c1", "p", "a", null, "m", 1])).not.toBe(a);
    expect(orderedFingerprint("commitment.confirm", ["c1", "p", "a", null, "m", null])).not.toBe(a);
  });
});
