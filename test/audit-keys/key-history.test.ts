/**
 * The key id and the key history chain (engine/audit/signing/), checked against a second
 * implementation written here from docs/proofs.md ("Signing keys") with node:crypto: SHA-256 for the
 * id, the endorsement bytes built by hand and verified by OpenSSL.
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { inspect } from "node:util";
import * as ed from "@noble/ed25519";
import { describe, expect, it } from "vitest";
import { checkKeyHistory, endorsementMessage, extendKeyHistory, firstKeyHistory, type KeyHistory, type KeyHistoryEntry, keyIdOf, verifyKeyHistory } from "@market-service/client/audit";
import { auditSignerFromPrivateKey, rawEd25519PublicKey } from "../../engine/audit/signing/audit-signer.js";

function newKey(): KeyObject {
  return generateKeyPairSync("ed25519").privateKey;
}

/** A history of `count` keys, each endorsed by the one before, activated 1000 ms apart. */
function chain(count: number): { keys: KeyObject[]; history: KeyHistory } {
  const keys = Array.from({ length: count }, newKey);
  let history = firstKeyHistory(rawEd25519PublicKey(keys[0] as KeyObject));
  for (let i = 1; i < count; i++) {
    const previous = keys[i - 1] as KeyObject;
    const extended = extendKeyHistory(history, rawEd25519PublicKey(keys[i] as KeyObject), i * 1000, (message) => new Uint8Array(sign(null, message, previous)));
    if (!extended.ok) throw new Error(extended.problem);
    history = extended.history;
  }
  return { keys, history };
}

function withEntry(history: KeyHistory, index: number, change: Partial<KeyHistoryEntry>): KeyHistory {
  return { ...history, keys: history.keys.map((entry, i) => (i === index ? { ...entry, ...change } : entry)) };
}

describe("keyIdOf", () => {
  it("is the lowercase hex of the first 16 bytes of SHA-256 over the raw 32-byte public key", () => {
    const publicKey = rawEd25519PublicKey(newKey());
    expect(keyIdOf(publicKey)).toBe(createHash("sha256").update(publicKey).digest("hex").slice(0, 32));
    expect(keyIdOf(new Uint8Array(32))).toBe("66687aadf862bd776c8fc18b8e9f8e20"); // SHA-256 of 32 zero bytes
  });

  it("refuses anything but 32 bytes", () => {
    expect(() => keyIdOf(new Uint8Array(31))).toThrow(/32 bytes/);
  });
});

describe("endorsementMessage", () => {
  it("is the domain text, a zero byte, the 16 key id bytes, the 32 key bytes and activatedAtMs as a big-endian uint64", () => {
    const publicKey = rawEd25519PublicKey(newKey());
    const entry = { keyId: keyIdOf(publicKey), publicKey: Buffer.from(publicKey).toString("base64url"), activatedAtMs: 1_795_673_781_971 };
    const time = Buffer.alloc(8);
    time.writeBigUInt64BE(BigInt(entry.activatedAtMs));
    const expected = Buffer.concat([Buffer.from("market-service audit-key endorsement v1", "ascii"), Buffer.from([0]), Buffer.from(entry.keyId, "hex"), publicKey, time]);
    expect(Buffer.from(endorsementMessage(entry)).equals(expected)).toBe(true);
  });
});

describe("a key history", () => {
  it("extends a chain whose every endorsement OpenSSL verifies under the key before it", () => {
    const { keys, history } = chain(3);
    expect(verifyKeyHistory(history)).toEqual({ ok: true });
    expect(history.keys.map((k) => k.keyId)).toEqual(keys.map((k) => keyIdOf(rawEd25519PublicKey(k))));
    expect(history.keys[0]).toMatchObject({ activatedAtMs: 0, endorsement: null });
    for (let i = 1; i < 3; i++) {
      const entry = history.keys[i] as KeyHistoryEntry;
      const time = Buffer.alloc(8);
      time.writeBigUInt64BE(BigInt(entry.activatedAtMs));
      const message = Buffer.concat([Buffer.from("market-service audit-key endorsement v1\0", "ascii"), Buffer.from(entry.keyId, "hex"), Buffer.from(entry.publicKey, "base64url"), time]);
      expect(verify(null, message, createPublicKey(keys[i - 1] as KeyObject), Buffer.from(entry.endorsement as string, "base64url"))).toBe(true);
    }
  });

  it("checks from any key the checker trusts, and refuses a history without it", () => {
    const { history } = chain(3);
    expect(checkKeyHistory(history, { trustedKeyId: history.keys[0]?.keyId as string }).ok).toBe(true);
    expect(checkKeyHistory(history, { trustedKeyId: history.keys[1]?.keyId as string }).ok).toBe(true);
    const other = keyIdOf(rawEd25519PublicKey(newKey()));
    expect(checkKeyHistory(history, { trustedKeyId: other })).toEqual({ ok: false, problem: `the trusted key ${other} is not in the history` });
  });

  it("refuses a key endorsed by a key that is not the one before it (a forger's key appended)", () => {
    const { history } = chain(2);
    const forger = newKey();
    const extended = extendKeyHistory(history, rawEd25519PublicKey(newKey()), 5000, (message) => new Uint8Array(sign(null, message, forger)));
    expect(extended).toEqual({ ok: false, problem: "keys[2].endorsement does not verify under keys[1]'s public key" });
  });

  it("refuses an endorsement moved to another key, a changed activation time, a wrong key id, a first key with an endorsement", () => {
    const { history } = chain(3);
    const swapped = withEntry(history, 2, { endorsement: history.keys[1]?.endorsement ?? null });
    expect(verifyKeyHistory(swapped)).toMatchObject({ ok: false, problem: expect.stringContaining("keys[2].endorsement does not verify") });
    expect(verifyKeyHistory(withEntry(history, 1, { activatedAtMs: 1001 }))).toMatchObject({ ok: false, problem: expect.stringContaining("keys[1].endorsement does not verify") });
    expect(verifyKeyHistory(withEntry(history, 1, { keyId: "0".repeat(32) }))).toMatchObject({ ok: false, problem: expect.stringContaining("keys[1].keyId") });
    expect(verifyKeyHistory(withEntry(history, 0, { endorsement: history.keys[1]?.endorsement ?? null }))).toMatchObject({ ok: false, problem: expect.stringContaining("keys[0].endorsement must be null") });
    expect(verifyKeyHistory(withEntry(history, 1, { endorsement: null }))).toMatchObject({ ok: false, problem: expect.stringContaining("keys[1].endorsement is missing") });
    const reordered = { ...history, keys: [history.keys[0], history.keys[2], history.keys[1]] as KeyHistoryEntry[] };
    expect(verifyKeyHistory(reordered).ok).toBe(false);
  });

  it("refuses activation times that do not increase, and a key that comes back", () => {
    const { keys, history } = chain(2);
    const last = keys[1] as KeyObject;
    const early = extendKeyHistory(history, rawEd25519PublicKey(newKey()), 1000, (message) => new Uint8Array(sign(null, message, last)));
    expect(early).toMatchObject({ ok: false, problem: expect.stringContaining("keys[2].activatedAtMs must be after") });
    const again = extendKeyHistory(history, rawEd25519PublicKey(keys[0] as KeyObject), 9000, (message) => new Uint8Array(sign(null, message, last)));
    expect(again).toMatchObject({ ok: false, problem: expect.stringContaining("appears twice") });
  });

  it("parses strictly, naming the member at fault", () => {
    const { history } = chain(2);
    const json = JSON.parse(JSON.stringify(history)) as { keys: Array<Record<string, unknown>> };
    expect(checkKeyHistory(json).ok).toBe(true);
    expect(checkKeyHistory([])).toMatchObject({ ok: false, problem: expect.stringContaining("{version, keys}") });
    expect(checkKeyHistory({ ...json, version: 2 })).toEqual({ ok: false, problem: "version must be 1" });
    expect(checkKeyHistory({ ...json, extra: 1 })).toMatchObject({ ok: false, problem: expect.stringContaining('unknown member "extra"') });
    expect(checkKeyHistory({ version: 1, keys: [] })).toEqual({ ok: false, problem: "keys must be a non-empty array" });
    const bad = (change: Record<string, unknown>) => checkKeyHistory({ version: 1, keys: [{ ...json.keys[0], ...change }] });
    expect(bad({ keyId: "ABC" })).toMatchObject({ problem: "keys[0].keyId must be 32 lowercase hex digits" });
    expect(bad({ publicKey: "abc=" })).toMatchObject({ problem: expect.stringContaining("keys[0].publicKey") });
    expect(bad({ activatedAtMs: -1 })).toMatchObject({ problem: expect.stringContaining("keys[0].activatedAtMs") });
    expect(bad({ activatedAtMs: 1.5 })).toMatchObject({ problem: expect.stringContaining("keys[0].activatedAtMs") });
    expect(bad({ endorsement: "short" })).toMatchObject({ problem: expect.stringContaining("keys[0].endorsement") });
    expect(bad({ comment: "x" })).toMatchObject({ problem: 'keys[0] has an unknown member "comment"' });
  });
});

describe("the signer", () => {
  it("signs with the key whose id and public key it reports, and never shows the private key", () => {
    const privateKey = newKey();
    const signer = auditSignerFromPrivateKey(privateKey);
    expect(Buffer.from(signer.publicKey).equals(createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(12))).toBe(true);
    expect(signer.keyId).toBe(keyIdOf(signer.publicKey));
    const message = new TextEncoder().encode("tree size 7, root …");
    expect(verify(null, message, createPublicKey(privateKey), signer.sign(message))).toBe(true);
    // The verifier outsiders and the SDK use (key-history.ts set its SHA-512), strict RFC 8032.
    expect(ed.verify(signer.sign(message), message, signer.publicKey, { zip215: false })).toBe(true);
    const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
    for (const shown of [JSON.stringify(signer), JSON.stringify({ signer }), String(signer), inspect(signer, { showHidden: true, depth: 5 })]) {
      for (const encoding of ["hex", "base64", "base64url"] as const) expect(shown).not.toContain(seed.toString(encoding));
    }
    expect(JSON.stringify(signer)).toBe(JSON.stringify({ keyId: signer.keyId }));
  });

  it("refuses a key that is not an Ed25519 private key", () => {
    expect(() => auditSignerFromPrivateKey(generateKeyPairSync("x25519").privateKey)).toThrow(/Ed25519 private key/);
    expect(() => auditSignerFromPrivateKey(createPublicKey(newKey()))).toThrow(/Ed25519 private key/);
  });
});

describe("docs/proofs.md, \"Signing keys\"", () => {
  // This section only: the page's other sections (the Merkle proofs) have JSON examples of their own.
  const doc = readFileSync(path.join(import.meta.dirname, "../../docs/proofs.md"), "utf8").split("\n## Signing keys\n")[1] as string;

  it("shows a history that verifies, and its second entry's endorsement bytes as they are", () => {
    const json = /```json\n([\s\S]*?)\n```/.exec(doc)?.[1] as string;
    const history = JSON.parse(json) as KeyHistory;
    expect(checkKeyHistory(history, { trustedKeyId: history.keys[0]?.keyId as string })).toMatchObject({ ok: true });
    const hex = /bytes are \(hex\):\n\n```\n([0-9a-f\n]+)```/.exec(doc)?.[1]?.replaceAll("\n", "") as string;
    expect(Buffer.from(endorsementMessage(history.keys[1] as KeyHistoryEntry)).toString("hex")).toBe(hex);
    expect(hex.length / 2).toBe(96);
  });
});
