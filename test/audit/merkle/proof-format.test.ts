/**
 * The JSON encoding of proofs: what it writes, that it reads back what it wrote, and that it
 * refuses anything else with a ProofFormatError naming the field.
 */
import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { MerkleLog } from "../../../engine/audit/merkle/merkle-log.js";
import { decodeConsistencyProof, decodeInclusionProof, encodeConsistencyProof, encodeInclusionProof, hashFromHex, hashToHex, ProofFormatError, verifyConsistency, verifyInclusion } from "@market-service/client/audit";
import { sampleLeafHashes } from "./rfc-reference.js";

const LEAVES = sampleLeafHashes(300, "format-");
const TREE = MerkleLog.from(LEAVES);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** Decodes `text` and returns the ProofFormatError's field and message (fails if it decodes). */
function refusal(decode: (value: unknown) => unknown, text: string): { field: string; message: string } {
  try {
    decode(JSON.parse(text));
  } catch (error) {
    expect(error).toBeInstanceOf(ProofFormatError);
    const { field, message } = error as ProofFormatError;
    expect(message.startsWith(`${field}: `)).toBe(true);
    return { field, message };
  }
  throw new Error(`decoded without complaint: ${text}`);
}

describe("proof JSON: writing and reading back", () => {
  it("writes an inclusion proof as leafIndex, treeSize and lowercase hex hashes, in that order", () => {
    const proof = TREE.inclusionProof(5, 8);
    const text = JSON.stringify(encodeInclusionProof({ leafIndex: 5, treeSize: 8, path: proof }));
    expect(text).toBe(`{"leafIndex":5,"treeSize":8,"path":[${proof.map((h) => `"${hex(h)}"`).join(",")}]}`);
    expect(text).toMatch(/^[^A-F]*$/);
  });

  it("writes a consistency proof as oldSize, newSize and the hashes", () => {
    const proof = TREE.consistencyProof(6, 8);
    expect(JSON.stringify(encodeConsistencyProof({ oldSize: 6, newSize: 8, path: proof }))).toBe(
      `{"oldSize":6,"newSize":8,"path":[${proof.map((h) => `"${hex(h)}"`).join(",")}]}`,
    );
  });

  fcTest.prop([fc.integer({ min: 1, max: 300 }), fc.nat()], { numRuns: 200 })("reads back every inclusion proof it writes, still valid", (n, pick) => {
    const m = pick % n;
    const text = JSON.stringify(encodeInclusionProof({ leafIndex: m, treeSize: n, path: TREE.inclusionProof(m, n) }));
    const decoded = decodeInclusionProof(JSON.parse(text));
    expect(decoded.leafIndex).toBe(m);
    expect(decoded.treeSize).toBe(n);
    expect(decoded.path.map(hex)).toEqual(TREE.inclusionProof(m, n).map(hex));
    expect(verifyInclusion(LEAVES[m] as Uint8Array, decoded.leafIndex, decoded.treeSize, decoded.path, TREE.rootAt(n))).toBe(true);
  });

  fcTest.prop([fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 })], { numRuns: 200 })("reads back every consistency proof it writes, still valid", (a, b) => {
    const [m, n] = a <= b ? [a, b] : [b, a];
    const text = JSON.stringify(encodeConsistencyProof({ oldSize: m, newSize: n, path: TREE.consistencyProof(m, n) }));
    const decoded = decodeConsistencyProof(JSON.parse(text));
    expect([decoded.oldSize, decoded.newSize]).toEqual([m, n]);
    expect(verifyConsistency(decoded.oldSize, decoded.newSize, TREE.rootAt(m), TREE.rootAt(n), decoded.path)).toBe(true);
  });

  it("converts single hashes both ways", () => {
    const hash = LEAVES[0] as Uint8Array;
    expect(hashFromHex(hashToHex(hash), "root")).toEqual(hash);
    expect(() => hashToHex(new Uint8Array(31))).toThrow(RangeError);
    expect(() => hashFromHex("AB".repeat(32), "root")).toThrow(/^root: must be 64 lowercase hex digits/);
  });
});

describe("proof JSON: strict reading", () => {
  const h = hex(LEAVES[1] as Uint8Array);
  const path3 = `["${h}","${h}","${h}"]`;

  it.each([
    ["not an object", "[1,2]", "proof", /must be a JSON object with the members leafIndex, treeSize, path; got an array/],
    ["null", "null", "proof", /got null/],
    ["a string", '"proof"', "proof", /got "proof"/],
    ["leafIndex missing", `{"treeSize":8,"path":${path3}}`, "leafIndex", /is missing/],
    ["path missing", `{"leafIndex":1,"treeSize":8}`, "path", /is missing/],
    ["an extra member", `{"leafIndex":1,"treeSize":8,"path":${path3},"root":"${h}"}`, "root", /is not a member of this proof/],
    ["leafIndex beyond 2^53 − 1", `{"leafIndex":9007199254740993,"treeSize":8,"path":${path3}}`, "leafIndex", /must be an integer from 0 to 2\^53 − 1 \(9007199254740991\); got 9007199254740992/],
    ["treeSize beyond 2^53 − 1", `{"leafIndex":1,"treeSize":1e300,"path":${path3}}`, "treeSize", /must be an integer from 1 to 2\^53 − 1/],
    ["a negative leafIndex", `{"leafIndex":-1,"treeSize":8,"path":${path3}}`, "leafIndex", /got -1/],
    ["a fractional leafIndex", `{"leafIndex":1.5,"treeSize":8,"path":${path3}}`, "leafIndex", /got 1.5/],
    ["leafIndex as a string", `{"leafIndex":"1","treeSize":8,"path":${path3}}`, "leafIndex", /got "1"/],
    ["treeSize 0", `{"leafIndex":0,"treeSize":0,"path":[]}`, "treeSize", /got 0/],
    ["leafIndex at treeSize", `{"leafIndex":8,"treeSize":8,"path":${path3}}`, "leafIndex", /must be below treeSize \(8\); got 8/],
    ["path not an array", `{"leafIndex":1,"treeSize":8,"path":"${h}"}`, "path", new RegExp(`must be an array of hashes; got "${h}"$`)],
    ["a hash too few", `{"leafIndex":1,"treeSize":8,"path":["${h}","${h}"]}`, "path", /has 2 hashes; leaf 1 of a tree of 8 takes exactly 3/],
    ["a hash too many", `{"leafIndex":1,"treeSize":8,"path":["${h}","${h}","${h}","${h}"]}`, "path", /has 4 hashes; leaf 1 of a tree of 8 takes exactly 3/],
    ["uppercase hex", `{"leafIndex":1,"treeSize":8,"path":["${h}","${h.toUpperCase()}","${h}"]}`, "path[1]", /must be 64 lowercase hex digits/],
    ["63 hex digits", `{"leafIndex":1,"treeSize":8,"path":["${h}","${h}","${h.slice(1)}"]}`, "path[2]", /must be 64 lowercase hex digits \(a 32-byte hash\)/],
    ["65 hex digits", `{"leafIndex":1,"treeSize":8,"path":["${h}0","${h}","${h}"]}`, "path[0]", /must be 64 lowercase hex digits/],
    ["a non-hex digit", `{"leafIndex":1,"treeSize":8,"path":["${h.slice(0, 63)}g","${h}","${h}"]}`, "path[0]", /must be 64 lowercase hex digits/],
    ["a 0x prefix", `{"leafIndex":1,"treeSize":8,"path":["0x${h.slice(2)}","${h}","${h}"]}`, "path[0]", /must be 64 lowercase hex digits/],
    ["a number for a hash", `{"leafIndex":1,"treeSize":8,"path":[1,"${h}","${h}"]}`, "path[0]", /must be a string of 64 lowercase hex digits; got 1/],
    ["base64 for a hash", `{"leafIndex":1,"treeSize":8,"path":["${Buffer.from(h, "hex").toString("base64")}","${h}","${h}"]}`, "path[0]", /must be 64 lowercase hex digits/],
  ])("refuses an inclusion proof with %s", (_, text, field, message) => {
    const got = refusal(decodeInclusionProof, text);
    expect(got.field).toBe(field);
    expect(got.message).toMatch(message);
  });

  it.each([
    ["oldSize 0", `{"oldSize":0,"newSize":8,"path":[]}`, "oldSize", /must be an integer from 1 to 2\^53 − 1/],
    ["oldSize above newSize", `{"oldSize":9,"newSize":8,"path":[]}`, "oldSize", /must not exceed newSize \(8\); got 9/],
    ["newSize beyond 2^53 − 1", `{"oldSize":1,"newSize":18014398509481984,"path":[]}`, "newSize", /must be an integer from 1 to 2\^53 − 1/],
    ["the wrong count of hashes", `{"oldSize":6,"newSize":8,"path":["${h}"]}`, "path", /has 1 hash; a proof from 6 to 8 leaves takes exactly 3/],
    ["a proof for equal sizes that is not empty", `{"oldSize":8,"newSize":8,"path":["${h}"]}`, "path", /has 1 hash; a proof from 8 to 8 leaves takes exactly 0/],
    ["the inclusion members", `{"leafIndex":1,"treeSize":8,"path":${path3}}`, "oldSize", /is missing/],
    ["a bad hash", `{"oldSize":6,"newSize":8,"path":["${h}","${h}","zz"]}`, "path[2]", /must be 64 lowercase hex digits/],
  ])("refuses a consistency proof with %s", (_, text, field, message) => {
    const got = refusal(decodeConsistencyProof, text);
    expect(got.field).toBe(field);
    expect(got.message).toMatch(message);
  });

  it("does not echo a long value back in its message", () => {
    const got = refusal(decodeInclusionProof, `{"leafIndex":1,"treeSize":8,"path":["${"a".repeat(5000)}","${h}","${h}"]}`);
    expect(got.message).toBe("path[0]: must be 64 lowercase hex digits (a 32-byte hash); got a string of 5000 characters");
  });

  fcTest.prop([fc.jsonValue()], { numRuns: 1_000 })("throws nothing but a ProofFormatError, whatever JSON value it reads", (value) => {
    for (const decode of [decodeInclusionProof, decodeConsistencyProof]) {
      try {
        decode(value);
      } catch (error) {
        expect(error).toBeInstanceOf(ProofFormatError);
      }
    }
  });
});
