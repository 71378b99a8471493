/**
 * Known answers from Certificate Transparency (RFC 6962, whose tree and proofs RFC 9162 keeps):
 * - ct-vectors.ts: the 8 leaf inputs, every subtree hash and root, and the published inclusion and
 *   consistency proofs, from transparency-dev/merkle testonly/constants.go and cmd/proofgen/main.go;
 * - ct-probes.json: that repository's testdata/inclusion and testdata/consistency probes (a valid
 *   proof and its corruptions, each with the verdict the Go verifier must reach).
 * Both at commit 417fb0c314750d94e53942e9f92e79b6d35915db (Apache License 2.0).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { MerkleLog } from "../../../engine/audit/merkle/merkle-log.js";
import { checkConsistency, checkInclusion, decodeConsistencyProof, decodeInclusionProof, emptyTreeHash, encodeConsistencyProof, encodeInclusionProof, leafHash, nodeHash, rootFromInclusionProof } from "@market-service/client/audit";
import { CT_CONSISTENCY_PROOFS, CT_INCLUSION_PROOFS, CT_LEAF_INPUTS, CT_NODE_HASHES, CT_ROOTS } from "./ct-vectors.js";

const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "hex"));
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const LEAF_HASHES = CT_LEAF_INPUTS.map((input) => leafHash(fromHex(input)));
const TREE = MerkleLog.from(LEAF_HASHES);

describe("Certificate Transparency test vectors", () => {
  it("hashes the 8 leaf inputs to NodeHashes()[0]", () => {
    expect(LEAF_HASHES.map(hex)).toEqual(CT_NODE_HASHES[0]);
  });

  it("hashes every whole subtree to NodeHashes()[level][index]", () => {
    for (let level = 1; level < CT_NODE_HASHES.length; level++) {
      const hashes = CT_NODE_HASHES[level] as readonly string[];
      const below = CT_NODE_HASHES[level - 1] as readonly string[];
      hashes.forEach((expected, index) => {
        expect(hex(nodeHash(fromHex(below[2 * index] as string), fromHex(below[2 * index + 1] as string)))).toBe(expected);
        const width = 2 ** level;
        expect(hex(MerkleLog.from(LEAF_HASHES.slice(index * width, (index + 1) * width)).root())).toBe(expected);
      });
    }
  });

  it("has RootHashes()[n] as the root at every size 0..8, grown leaf by leaf and with rootAt", () => {
    expect(hex(emptyTreeHash())).toBe(CT_ROOTS[0]);
    const grown = new MerkleLog();
    expect(hex(grown.root())).toBe(CT_ROOTS[0]);
    LEAF_HASHES.forEach((leaf, i) => {
      grown.append(leaf);
      expect(hex(grown.root()), `root at ${i + 1}`).toBe(CT_ROOTS[i + 1]);
    });
    CT_ROOTS.forEach((root, n) => expect(hex(TREE.rootAt(n)), `rootAt(${n})`).toBe(root));
  });

  it.each(CT_INCLUSION_PROOFS)("gives and verifies the published inclusion proof of leaf $leaf (1-based) in a tree of $treeSize", ({ leaf, treeSize, path }) => {
    const leafIndex = leaf - 1;
    const proof = TREE.inclusionProof(leafIndex, treeSize);
    expect(proof.map(hex)).toEqual(path);
    const root = fromHex(CT_ROOTS[treeSize] as string);
    expect(checkInclusion(LEAF_HASHES[leafIndex] as Uint8Array, leafIndex, treeSize, path.map(fromHex), root)).toEqual({ valid: true });
    expect(hex(rootFromInclusionProof(LEAF_HASHES[leafIndex] as Uint8Array, leafIndex, treeSize, path.map(fromHex)) as Uint8Array)).toBe(CT_ROOTS[treeSize]);
    // The JSON form carries it unchanged.
    const json = JSON.parse(JSON.stringify(encodeInclusionProof({ leafIndex, treeSize, path: proof }))) as unknown;
    expect(json).toEqual({ leafIndex, treeSize, path });
    expect(decodeInclusionProof(json).path.map(hex)).toEqual(path);
  });

  it.each(CT_CONSISTENCY_PROOFS)("gives and verifies the published consistency proof from $oldSize to $newSize", ({ oldSize, newSize, path }) => {
    const proof = TREE.consistencyProof(oldSize, newSize);
    expect(proof.map(hex)).toEqual(path);
    const oldRoot = fromHex(CT_ROOTS[oldSize] as string);
    const newRoot = fromHex(CT_ROOTS[newSize] as string);
    expect(checkConsistency(oldSize, newSize, oldRoot, newRoot, path.map(fromHex))).toEqual({ valid: true });
    const json = JSON.parse(JSON.stringify(encodeConsistencyProof({ oldSize, newSize, path: proof }))) as unknown;
    expect(json).toEqual({ oldSize, newSize, path });
    expect(decodeConsistencyProof(json).path.map(hex)).toEqual(path);
  });
});

interface InclusionProbe {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}
interface ConsistencyProbe {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}
const probes = JSON.parse(readFileSync(path.join(import.meta.dirname, "ct-probes.json"), "utf8")) as {
  inclusion: Record<string, InclusionProbe>;
  consistency: Record<string, ConsistencyProbe>;
};
// Go's encoding/json writes []byte as base64 (and a nil slice as null).
const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"));
const proofOf = (list: string[] | null): Uint8Array[] => (list ?? []).map(fromBase64);

/**
 * Where our verifier and the Go one part ways, and why (docs/proofs.md, "Verifying"): Go accepts
 * equal sizes with equal "roots" of any length; we accept only 32-byte hashes anywhere.
 */
const STRICTER_THAN_GO = new Set(["testdata/consistency/additional/sizes-are-equal-one-and-proof-is-empty.json"]);

describe("transparency-dev/merkle testdata probes", () => {
  it("has the probes it was copied with", () => {
    expect(Object.keys(probes.inclusion)).toHaveLength(98);
    expect(Object.keys(probes.consistency)).toHaveLength(98);
  });

  it.each(Object.entries(probes.inclusion))("inclusion %s", (file, probe) => {
    const check = checkInclusion(fromBase64(probe.leafHash), probe.leafIdx, probe.treeSize, proofOf(probe.proof), fromBase64(probe.root));
    expect(check.valid, `${probe.desc}: ${JSON.stringify(check)}`).toBe(!probe.wantErr && !STRICTER_THAN_GO.has(file));
  });

  it.each(Object.entries(probes.consistency))("consistency %s", (file, probe) => {
    const check = checkConsistency(probe.size1, probe.size2, fromBase64(probe.root1), fromBase64(probe.root2), proofOf(probe.proof));
    expect(check.valid, `${probe.desc}: ${JSON.stringify(check)}`).toBe(!probe.wantErr && !STRICTER_THAN_GO.has(file));
  });

  it("departs from Go only on a probe whose roots are not 32-byte hashes", () => {
    const probe = probes.consistency[[...STRICTER_THAN_GO][0] as string] as ConsistencyProbe;
    expect(probe.wantErr).toBe(false);
    expect(fromBase64(probe.root1).length).not.toBe(32);
    expect(checkConsistency(probe.size1, probe.size2, fromBase64(probe.root1), fromBase64(probe.root2), proofOf(probe.proof))).toEqual({
      valid: false,
      reason: "the old root is not a 32-byte hash",
    });
  });
});
