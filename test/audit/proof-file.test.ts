/**
 * The proof file checker (packages/client/src/audit/proof-file.ts) with real Ed25519 heads over a real tree:
 * a good file is proven; changing any part of it fails the check that covers that part, named; a file
 * that is not a proof file is unusable. The end-to-end runs through the CLI are proofs-e2e.test.ts.
 */
import { generateKeyPairSync, sign as cryptoSign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkProofFile, encodeConsistencyProof, encodeInclusionProof, hashToHex, headJson, headMessage, leafHash, receiptJson, type SignedHead } from "@market-service/client/audit";
import { MerkleLog } from "../../engine/audit/merkle/merkle-log.js";

function key(keyId: string): { keyId: string; publicKey: Uint8Array; sign: (message: Uint8Array) => Uint8Array } {
  const pair = generateKeyPairSync("ed25519");
  const publicKey = new Uint8Array(Buffer.from(pair.publicKey.export({ format: "jwk" }).x as string, "base64url"));
  return { keyId, publicKey, sign: (message) => new Uint8Array(cryptoSign(null, message, pair.privateKey)) };
}

const service = key("k1");
const stranger = key("k2");
const keys = new Map([[service.keyId, service.publicKey]]);
const entries = Array.from({ length: 11 }, (_, i) => new TextEncoder().encode(`entry ${i}`));
const tree = MerkleLog.from(entries.map((entry) => leafHash(entry)));

function head(treeSize: number, signer = service): SignedHead {
  const unsigned = { logId: "shard-0", treeSize, rootHash: tree.rootAt(treeSize), timeMs: 1_790_000_000_000 + treeSize };
  return { ...unsigned, keyId: signer.keyId, signature: signer.sign(headMessage(unsigned)) };
}

const LEAF = 4;
const OLD = 7;
const NEW = 11;
function goodFile(): Record<string, any> {
  return {
    receipt: JSON.parse(receiptJson(LEAF, headJson(head(OLD)))),
    inclusion: { ...encodeInclusionProof({ leafIndex: LEAF, treeSize: OLD, path: tree.inclusionProof(LEAF, OLD) }), leafHash: hashToHex(leafHash(entries[LEAF] as Uint8Array)), entry: Buffer.from(entries[LEAF] as Uint8Array).toString("base64url") },
    head: JSON.parse(headJson(head(NEW))),
    consistency: encodeConsistencyProof({ oldSize: OLD, newSize: NEW, path: tree.consistencyProof(OLD, NEW) }),
  };
}

const flipHex = (hex: string): string => (hex[0] === "0" ? "1" : "0") + hex.slice(1);

describe("proof files", () => {
  it("proves a receipt's entry, and with a later head that it extends the receipt's tree; the receipt may be the header's text", () => {
    const checked = checkProofFile(goodFile(), keys);
    expect(checked).toMatchObject({ outcome: "proven" });
    if (checked.outcome === "proven") expect(checked.proven).toMatch(/^entry 5 \(leaf 4\) \(7 bytes, given; not compared with a command: the file names none\) is in the tree of 7 entries of log shard-0 that key k1 signed at .*, which is a prefix of the tree of 11 entries/);
    const { head: _h, consistency: _c, ...alone } = goodFile();
    expect(checkProofFile(alone, keys).outcome).toBe("proven");
    expect(checkProofFile({ ...alone, receipt: JSON.stringify(alone["receipt"]) }, keys).outcome).toBe("proven");
    expect(checkProofFile({ ...alone, inclusion: { ...alone["inclusion"], entry: null } }, keys).outcome).toBe("proven");
  });

  it("names the first check that fails for each part changed", () => {
    const cases: Array<[string, (file: Record<string, any>) => void]> = [
      ["receipt head signature", (f) => (f["receipt"].head.signature = flipHex(f["receipt"].head.signature))],
      ["receipt head signature", (f) => (f["receipt"].head.treeSize = 8)],
      ["receipt head signature", (f) => (f["receipt"] = JSON.parse(receiptJson(LEAF, headJson(head(OLD, stranger)))))],
      ["inclusion proof", (f) => (f["receipt"].leafIndex = 3)],
      ["entry", (f) => (f["inclusion"].entry = Buffer.from("entry 5").toString("base64url"))],
      ["inclusion proof", (f) => (f["inclusion"].path[0] = flipHex(f["inclusion"].path[0]))],
      ["inclusion proof", (f) => {
        f["inclusion"].leafHash = hashToHex(leafHash(entries[5] as Uint8Array));
        f["inclusion"].entry = null;
      }],
      ["later head signature", (f) => (f["head"] = JSON.parse(headJson(head(NEW, stranger))))],
      ["later head signature", (f) => (f["head"].rootHash = flipHex(f["head"].rootHash))],
      ["consistency proof", (f) => (f["consistency"].path[0] = flipHex(f["consistency"].path[0]))],
      ["consistency proof", (f) => {
        f["head"] = JSON.parse(headJson(head(10)));
        f["consistency"] = encodeConsistencyProof({ oldSize: OLD, newSize: NEW, path: tree.consistencyProof(OLD, NEW) });
      }],
    ];
    for (const [check, change] of cases) {
      const file = goodFile();
      change(file);
      const checked = checkProofFile(file, keys);
      expect(checked, `${check}: ${JSON.stringify(checked)}`).toMatchObject({ outcome: "failed", check });
    }
  });

  it("calls a file that is not a proof file unusable, naming what is wrong", () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /a proof file must be a JSON object/],
      [{ inclusion: {} }, /receipt is missing/],
      [{ ...goodFile(), extra: 1 }, /extra is not a member/],
      [(({ consistency: _c, ...rest }) => rest)(goodFile()), /head and consistency come together/],
      [{ ...goodFile(), receipt: { leafIndex: -1 } }, /^receipt: receipt.leafIndex/],
      [{ ...goodFile(), inclusion: { ...goodFile()["inclusion"], path: [] } }, /^inclusion\.path: has 0 hashes/],
      [{ ...goodFile(), inclusion: { ...goodFile()["inclusion"], leafHash: "zz" } }, /^inclusion\.leafHash: must be 64 lowercase hex digits/],
      [{ ...goodFile(), inclusion: { ...goodFile()["inclusion"], entry: "not base64url!" } }, /inclusion.entry must be/],
      [{ ...goodFile(), head: { logId: "shard-0" } }, /^head: /],
    ];
    for (const [file, reason] of cases) {
      const checked = checkProofFile(file, keys);
      expect(checked.outcome).toBe("unusable");
      if (checked.outcome === "unusable") expect(checked.reason).toMatch(reason);
    }
  });
});
