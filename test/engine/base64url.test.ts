/** The rules' own base64url (engine/rules/base64url.ts) agrees with Node's Buffer on every input tried. */
import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { base64urlOfUtf8, utf8OfBase64url } from "../../engine/rules/base64url.js";

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
