/** The one base64url (packages/client/src/wire/base64url.ts) agrees with Node's Buffer on every input tried. */
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { base64UrlDecode, base64UrlEncode, base64urlOfUtf8, utf8OfBase64url } from "@market-service/client/wire";

test.prop([fc.string({ unit: "binary", maxLength: 40 })])("encodes UTF-8 text as Buffer does", (text) => {
  expect(base64urlOfUtf8(text)).toBe(Buffer.from(text, "utf8").toString("base64url"));
});

test.prop([fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/)])("decodes any alphabet text as Buffer does (lengths that can be an encoding)", (encoded) => {
  const decoded = utf8OfBase64url(encoded);
  if (encoded.length % 4 === 1) expect(decoded).toBeUndefined();
  else expect(decoded).toBe(Buffer.from(encoded, "base64url").toString("utf8"));
});

test.prop([fc.string({ maxLength: 10 })])("refuses characters outside the alphabet", (text) => {
  if (/[^A-Za-z0-9_-]/.test(text)) expect(utf8OfBase64url(text)).toBeUndefined();
});

test.prop([fc.uint8Array({ maxLength: 40 })])("encodes bytes as Buffer does, and decodes them back", (bytes) => {
  const encoded = base64UrlEncode(bytes);
  expect(encoded).toBe(Buffer.from(bytes).toString("base64url"));
  expect(base64UrlDecode(encoded)).toEqual(bytes);
});

test.prop([fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/)])("decodes bytes strictly: only canonical encodings", (encoded) => {
  const canonical = encoded.length % 4 !== 1 && Buffer.from(encoded, "base64url").toString("base64url") === encoded;
  if (canonical) expect(Buffer.from(base64UrlDecode(encoded)).toString("base64url")).toBe(encoded);
  else expect(() => base64UrlDecode(encoded)).toThrow(/not unpadded base64url/);
});
