import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { base64UrlDecode, base64UrlEncode, canonicalHmacString, generateKeyPair, publicKeyFromPrivateKey } from "@market-service/client";
import { decodeBase64UrlStrict, decodePublicKey } from "../../engine/identity/index.js";

describe("client helpers", () => {
  test.prop([fc.uint8Array({ maxLength: 200 })])("base64url matches Buffer's unpadded base64url and round-trips", (bytes) => {
    const text = base64UrlEncode(bytes);
    expect(text).toBe(Buffer.from(bytes).toString("base64url"));
    expect(base64UrlDecode(text)).toEqual(bytes);
    expect(decodeBase64UrlStrict(text)).toEqual(Buffer.from(bytes));
  });

  it("rejects non-canonical or foreign base64url, as the server does", () => {
    for (const text of ["A", "AB=", "A+B/", "AB", "AAB"]) {
      const client = (() => {
        try {
          return base64UrlDecode(text);
        } catch {
          return undefined;
        }
      })();
      expect(client === undefined).toBe(decodeBase64UrlStrict(text) === undefined);
    }
    expect(() => base64UrlDecode("AB")).toThrow(/non-canonical/);
  });

  it("generates key pairs the server accepts, with the public key derivable from the private key", () => {
    const pair = generateKeyPair();
    expect(pair.privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(decodePublicKey(pair.publicKey)?.length).toBe(32);
    expect(publicKeyFromPrivateKey(pair.privateKey)).toBe(pair.publicKey);
    expect(() => publicKeyFromPrivateKey("AAAA")).toThrow(/32 bytes/);
  });

  it("builds the canonical HMAC string exactly (six lines, no trailing newline)", () => {
    expect(canonicalHmacString({ actorId: "a", method: "get", uri: "/p?q=1", timestampSeconds: 5 })).toBe(
      "service-hmac-v1\na\n5\nGET\n/p?q=1\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(() => canonicalHmacString({ actorId: "a", method: "GET", uri: "/", timestampSeconds: 1.5 })).toThrow();
  });
});

describe("signing payload", () => {
  it("matches the example of docs/auth.md byte for byte", async () => {
    const { signingPayloadBytes } = await import("../../gateway/auth/index.js");
    const bytes = signingPayloadBytes({
      audience: "market-service",
      challengeId: "q1w2e3r4t5y6u7i8o9p0aa",
      actorId: "alice",
      keyId: "alice-key-1",
      nonce: "3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      expiresAt: "2026-03-01T12:02:00.000Z",
    });
    expect(bytes.length).toBe(147);
    expect(bytes.toString("base64url")).toBe(
      "bWFya2V0LXNlcnZpY2UtYXV0aC12MQptYXJrZXQtc2VydmljZQpxMXcyZTNyNHQ1eTZ1N2k4bzlwMGFhCmFsaWNlCmFsaWNlLWtleS0xCjNxMi03d0FBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUEKMjAyNi0wMy0wMVQxMjowMjowMC4wMDBa",
    );
  });
});
