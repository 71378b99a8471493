/**
 * Proofs built from a log on disk (engine/audit/log-proofs.ts): the segment files read in order
 * through a view (several segments, so reads cross segment files), leaf hashes, tree, proof — equal
 * to the proofs of a MerkleLog built directly from the same payloads, and to the RFC reference
 * tree's; sizes beyond the log refused naming the parameter. Real files in a temp dir.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { LogProofRangeError, logProof, logProofFromView, requestProblem, viewPayloads } from "../../engine/audit/log-proofs.js";
import { MerkleLog } from "../../engine/audit/merkle/merkle-log.js";
import { checkConsistency, checkInclusion, encodeConsistencyProof, encodeInclusionProof, hashFromHex, leafHash } from "@market-service/client/audit";
import { SegmentLog } from "../../storage/index.js";
import { RfcTree, refLeafHash } from "./merkle/rfc-reference.js";
import { tempDir } from "../runtime/support.js";

const { dir, cleanup } = tempDir("log-proofs-");
afterAll(cleanup);

// Payloads of assorted sizes, some larger than a small segment's share, so the log spans many segments.
const payloads: Buffer[] = Array.from({ length: 300 }, (_, i) => randomBytes(1 + ((i * 37) % 900)));
const log = SegmentLog.open({ dir, segmentSizeBytes: 16 * 1024 });
// A commit per entry: a segment rolls over at a batch's end.
for (const payload of payloads) {
  log.append(payload);
  log.commitSync();
}
const view = log.readView();
log.close();
const direct = MerkleLog.from(payloads.map((payload) => leafHash(payload)));
const reference = new RfcTree(payloads.map((payload) => refLeafHash(payload)));

describe("proofs of a log on disk", () => {
  it("reads every entry of a log of many segments, in order", () => {
    expect(view.segments.length).toBeGreaterThan(3);
    const read = [...viewPayloads(view, Number.MAX_SAFE_INTEGER)].map((payload) => Buffer.from(payload));
    expect(read).toEqual(payloads);
    expect([...viewPayloads(view, 7)].length).toBe(7);
  });

  it("gives the inclusion proofs of a MerkleLog built directly, with the proven entry", () => {
    for (const treeSize of [1, 2, 3, 64, 65, 257, 300]) {
      for (const leafIndex of [0, 1, Math.floor(treeSize / 2), treeSize - 1].filter((i) => i < treeSize)) {
        const proof = logProofFromView(view, "shard-0", { type: "inclusion", leafIndex, treeSize });
        if (proof.type !== "inclusion") throw new Error("an inclusion proof was asked");
        expect(proof.proof).toEqual(encodeInclusionProof({ leafIndex, treeSize, path: direct.inclusionProof(leafIndex, treeSize) }));
        expect(Buffer.from(proof.entry)).toEqual(payloads[leafIndex]);
        const path = proof.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
        expect(path).toEqual(reference.path(leafIndex, 0, treeSize));
        expect(checkInclusion(leafHash(proof.entry), leafIndex, treeSize, path, reference.mth(0, treeSize)).valid).toBe(true);
      }
    }
  });

  it("gives the consistency proofs of a MerkleLog built directly", () => {
    for (const [oldSize, newSize] of [[1, 1], [1, 300], [5, 8], [64, 65], [100, 257], [299, 300], [300, 300]] as const) {
      const proof = logProofFromView(view, "shard-0", { type: "consistency", oldSize, newSize });
      expect(proof.proof).toEqual(encodeConsistencyProof({ oldSize, newSize, path: direct.consistencyProof(oldSize, newSize) }));
      const path = proof.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
      expect(checkConsistency(oldSize, newSize, reference.mth(0, oldSize), reference.mth(0, newSize), path).valid).toBe(true);
    }
  });

  it("refuses sizes beyond the log and malformed requests, naming the parameter", () => {
    const refused = (run: () => unknown): LogProofRangeError => {
      try {
        run();
      } catch (error) {
        if (error instanceof LogProofRangeError) return error;
        throw error;
      }
      throw new Error("not refused");
    };
    const beyond = refused(() => logProofFromView(view, "shard-0", { type: "inclusion", leafIndex: 0, treeSize: 301 }));
    expect(beyond.field).toBe("treeSize");
    expect(beyond.message).toBe("treeSize 301 is beyond the log shard-0, which has 300 entries");
    expect(refused(() => logProofFromView(view, "shard-0", { type: "consistency", oldSize: 1, newSize: 301 })).field).toBe("to");
    expect(refused(() => logProof([], "shard-7", { type: "inclusion", leafIndex: 0, treeSize: 1 })).message).toBe("treeSize 1 is beyond the log shard-7, which has 0 entries");
    expect(requestProblem({ type: "inclusion", leafIndex: 3, treeSize: 3 }, "shard-0", 10)?.field).toBe("leafIndex");
    expect(requestProblem({ type: "inclusion", leafIndex: 0, treeSize: 0 }, "shard-0", 10)?.field).toBe("treeSize");
    expect(requestProblem({ type: "consistency", oldSize: 0, newSize: 3 }, "shard-0", 10)?.field).toBe("from");
    expect(requestProblem({ type: "consistency", oldSize: 4, newSize: 3 }, "shard-0", 10)?.field).toBe("from");
    expect(requestProblem({ type: "consistency", oldSize: 3, newSize: 3 }, "shard-0", 3)).toBeUndefined();
  });
});
