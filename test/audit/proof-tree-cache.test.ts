/**
 * Proofs through the proof tree cache (engine/audit/proof-tree-cache.ts, cached-log-proofs.ts): the
 * same proofs as a rebuild from the whole log (log-proofs.ts) whether the tree is cold, warm or grown;
 * reuse observed through the cache's counters (never timing): a repeated proof reads no entry, a
 * proof on a grown log reads only the new entries; a log rewritten under the same path, a tree that
 * disagrees with the writer's root, and shipped entries that disagree with the kept ones are not used;
 * the byte bound evicts whole logs, least recently used first. Real segment files in a temp dir.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cachedProofFromPayloads, cachedProofFromView } from "../../engine/audit/cached-log-proofs.js";
import { logProof, logProofFromView, type LogProof, type LogProofRequest } from "../../engine/audit/log-proofs.js";
import { MerkleLog } from "../../engine/audit/merkle/merkle-log.js";
import { checkConsistency, checkInclusion, hashFromHex, leafHash } from "@market-service/client/audit";
import { ProofTreeCache } from "../../engine/audit/proof-tree-cache.js";
import { SegmentLog, type LogReadView } from "../../storage/index.js";
import { tempDir } from "../runtime/support.js";

const { dir: root, cleanup } = tempDir("proof-tree-cache-");
afterAll(cleanup);

const randomPayloads = (count: number): Buffer[] => Array.from({ length: count }, (_, i) => randomBytes(1 + ((i * 53) % 700)));

/** Appends `payloads` to the log in `dir` (created or reopened), a commit per entry (small segments roll over), and its view. */
function append(dir: string, payloads: readonly Buffer[]): LogReadView {
  mkdirSync(dir, { recursive: true });
  const log = SegmentLog.open({ dir, segmentSizeBytes: 16 * 1024 });
  for (const payload of payloads) {
    log.append(payload);
    log.commitSync();
  }
  const view = log.readView();
  log.close();
  return view;
}

const inclusion = (leafIndex: number, treeSize: number): LogProofRequest => ({ type: "inclusion", leafIndex, treeSize });
const consistency = (oldSize: number, newSize: number): LogProofRequest => ({ type: "consistency", oldSize, newSize });

/** The proof as the endpoint would carry it, for byte comparisons. */
const text = (proof: LogProof): string => JSON.stringify(proof.type === "inclusion" ? { ...proof.proof, entry: Buffer.from(proof.entry).toString("hex") } : proof.proof);

/** The proof checks against the root of the given payloads' tree. */
function expectVerifies(proof: LogProof, payloads: readonly Buffer[]): void {
  const tree = MerkleLog.from(payloads.map((payload) => leafHash(payload)));
  if (proof.type === "inclusion") {
    const path = proof.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
    expect(checkInclusion(leafHash(proof.entry), proof.proof.leafIndex, proof.proof.treeSize, path, tree.rootAt(proof.proof.treeSize)).valid).toBe(true);
  } else {
    const path = proof.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
    expect(checkConsistency(proof.proof.oldSize, proof.proof.newSize, tree.rootAt(proof.proof.oldSize), tree.rootAt(proof.proof.newSize), path).valid).toBe(true);
  }
}

describe("proofs through the tree cache, from a log's segment files", () => {
  const dir = path.join(root, "grown");
  const first = randomPayloads(200);
  const more = randomPayloads(57);

  it("gives the rebuilt proofs cold, warm and after the log grew, reading only the new entries", () => {
    const cache = new ProofTreeCache();
    let view = append(dir, first);
    expect(view.segments.length).toBeGreaterThan(3);
    const cold = cachedProofFromView(cache, view, "shard-0", inclusion(17, 150));
    expect(text(cold)).toBe(text(logProofFromView(view, "shard-0", inclusion(17, 150))));
    expectVerifies(cold, first);
    // The whole available log is taken in, not only the 150 entries asked for.
    expect(cache.stats).toMatchObject({ proofs: 1, warm: 0, builds: 1, entriesHashed: 200, invalidated: 0, logs: 1 });

    for (const request of [inclusion(17, 150), inclusion(199, 200), consistency(3, 200), consistency(64, 65), inclusion(0, 1)]) {
      expect(text(cachedProofFromView(cache, view, "shard-0", request))).toBe(text(logProofFromView(view, "shard-0", request)));
    }
    // Warm: nothing more read.
    expect(cache.stats).toMatchObject({ proofs: 6, warm: 5, builds: 1, entriesHashed: 200 });

    view = append(dir, more);
    const all = [...first, ...more];
    for (const request of [inclusion(230, 257), consistency(200, 257), inclusion(5, 257), consistency(1, 256)]) {
      const proof = cachedProofFromView(cache, view, "shard-0", request);
      expect(text(proof)).toBe(text(logProofFromView(view, "shard-0", request)));
      expectVerifies(proof, all);
    }
    // Grown: only the 57 new entries read, once.
    expect(cache.stats).toMatchObject({ proofs: 10, warm: 9, builds: 1, entriesHashed: 257, invalidated: 0 });
  });

  it("refuses sizes beyond the log as the rebuild does, and keeps the tree", () => {
    const cache = new ProofTreeCache();
    const view = append(path.join(root, "short"), randomPayloads(5));
    expect(() => cachedProofFromView(cache, view, "shard-0", inclusion(0, 6))).toThrow("treeSize 6 is beyond the log shard-0, which has 5 entries");
    expect(() => cachedProofFromView(cache, view, "shard-0", consistency(1, 9))).toThrow(/^to 9 is beyond/);
    expect(cache.stats).toMatchObject({ builds: 1, warm: 1, logs: 1 });
  });

  it("does not use a tree kept for a log rewritten under the same path", () => {
    const cache = new ProofTreeCache();
    const logDir = path.join(root, "rewritten");
    const original = randomPayloads(120);
    const before = append(logDir, original);
    cachedProofFromView(cache, before, "shard-0", consistency(60, 120));
    // Another log under the same path, as long and longer: its entries differ from the kept ones.
    rmSync(logDir, { recursive: true });
    const forged = randomPayloads(130);
    const after = append(logDir, forged);
    for (const request of [inclusion(7, 120), consistency(60, 120), inclusion(125, 130)]) {
      const proof = cachedProofFromView(cache, after, "shard-0", request);
      expect(text(proof)).toBe(text(logProofFromView(after, "shard-0", request)));
      expectVerifies(proof, forged);
    }
    expect(cache.stats).toMatchObject({ proofs: 4, builds: 2, invalidated: 1, warm: 2, entriesHashed: 250 });

    // Shorter than the kept tree: dropped too.
    rmSync(logDir, { recursive: true });
    const shorter = append(logDir, forged.slice(0, 40));
    expect(text(cachedProofFromView(cache, shorter, "shard-0", inclusion(39, 40)))).toBe(text(logProofFromView(shorter, "shard-0", inclusion(39, 40))));
    expect(cache.stats).toMatchObject({ builds: 3, invalidated: 2 });
  });

  it("drops a kept tree whose root is not the writer's, and builds it again", () => {
    const cache = new ProofTreeCache();
    const payloads = randomPayloads(90);
    const view = append(path.join(root, "anchored"), payloads);
    const tree = MerkleLog.from(payloads.map((payload) => leafHash(payload)));
    cachedProofFromView(cache, view, "shard-0", inclusion(1, 90), { size: 90, root: tree.rootAt(90) });
    cachedProofFromView(cache, view, "shard-0", inclusion(2, 90), { size: 80, root: tree.rootAt(80) });
    expect(cache.stats).toMatchObject({ builds: 1, warm: 1, invalidated: 0 });
    // A writer vouching for another root at size 50: the kept tree is not trusted, but built again.
    const proof = cachedProofFromView(cache, view, "shard-0", inclusion(3, 90), { size: 50, root: tree.rootAt(49) });
    expect(text(proof)).toBe(text(logProofFromView(view, "shard-0", inclusion(3, 90))));
    expect(cache.stats).toMatchObject({ builds: 2, warm: 1, invalidated: 1 });
    // An anchor beyond the durable entries cannot be checked and is not held against the tree.
    cachedProofFromView(cache, view, "shard-0", inclusion(4, 90), { size: 91, root: tree.rootAt(90) });
    expect(cache.stats).toMatchObject({ builds: 2, warm: 2, invalidated: 1 });
  });

  it("evicts whole logs beyond its byte bound, least recently used first", () => {
    const views = ["a", "b", "c"].map((name) => append(path.join(root, `evict-${name}`), randomPayloads(100)));
    const probe = new ProofTreeCache();
    cachedProofFromView(probe, views[0] as LogReadView, "shard-0", inclusion(0, 100));
    const oneLog = probe.stats.bytes;
    expect(oneLog).toBeGreaterThan(100 * 32);
    // Room for two logs of this size, not three.
    const cache = new ProofTreeCache(2 * oneLog + oneLog / 2);
    const proofOf = (i: number): void => void cachedProofFromView(cache, views[i] as LogReadView, "shard-0", inclusion(1, 100));
    proofOf(0);
    proofOf(1);
    proofOf(0); // a used last: b is now the least recently used
    expect(cache.stats).toMatchObject({ logs: 2, evicted: 0, builds: 2 });
    proofOf(2);
    expect(cache.stats).toMatchObject({ logs: 2, evicted: 1, builds: 3 });
    expect(cache.stats.bytes).toBeLessThanOrEqual(cache.maxBytes);
    proofOf(0); // still kept
    expect(cache.stats).toMatchObject({ builds: 3, warm: 2 });
    proofOf(1); // was evicted: built again
    expect(cache.stats).toMatchObject({ builds: 4, evicted: 2 });

    // A bound below one log keeps none, and still answers.
    const none = new ProofTreeCache(0);
    const proof = cachedProofFromView(none, views[0] as LogReadView, "shard-0", consistency(10, 100));
    expect(text(proof)).toBe(text(logProofFromView(views[0] as LogReadView, "shard-0", consistency(10, 100))));
    expect(none.stats).toMatchObject({ logs: 0, bytes: 0, evicted: 1 });
  });
});

describe("proofs through the tree cache, from payloads a shard read from its journal", () => {
  const payloads = randomPayloads(150);
  const shipped = (after: number, upTo: number, entryIndex?: number) => ({
    after,
    payloads: payloads.slice(after, upTo),
    entry: entryIndex === undefined || entryIndex >= after ? undefined : payloads[entryIndex],
  });

  it("takes only the entries after those it keeps, and asks for what it lacks", () => {
    const cache = new ProofTreeCache();
    // A thread that keeps nothing asks for the log from its start.
    expect(cachedProofFromPayloads(cache, "partition-3", shipped(100, 150), inclusion(0, 150))).toEqual({ wantedAfter: 0 });
    const cold = cachedProofFromPayloads(cache, "partition-3", shipped(0, 100), inclusion(42, 100));
    expect(text(cold as LogProof)).toBe(text(logProof(payloads, "partition-3", inclusion(42, 100))));
    // Keeps 100: the entries after 120 are not enough ...
    expect(cachedProofFromPayloads(cache, "partition-3", shipped(120, 150), inclusion(0, 150))).toEqual({ wantedAfter: 100 });
    // ... those after 100 are; an entry before `after` travels on its own.
    for (const request of [inclusion(7, 150), consistency(100, 150), inclusion(149, 150)]) {
      const proof = cachedProofFromPayloads(cache, "partition-3", shipped(100, 150, request.type === "inclusion" ? request.leafIndex : undefined), request) as LogProof;
      expect(text(proof)).toBe(text(logProof(payloads, "partition-3", request)));
      expectVerifies(proof, payloads);
    }
    expect(cache.stats).toMatchObject({ builds: 1, warm: 3, entriesHashed: 150, invalidated: 0 });
  });

  it("drops a kept tree when shipped entries or the writer's root disagree with it", () => {
    const cache = new ProofTreeCache();
    cachedProofFromPayloads(cache, "partition-0", shipped(0, 100), inclusion(0, 100));
    const changed = { after: 90, payloads: [randomBytes(20), ...payloads.slice(91, 150)], entry: undefined };
    expect(cachedProofFromPayloads(cache, "partition-0", changed, inclusion(95, 150))).toEqual({ wantedAfter: 0 });
    expect(cache.stats).toMatchObject({ invalidated: 1, logs: 0 });
    cachedProofFromPayloads(cache, "partition-0", shipped(0, 100), inclusion(0, 100));
    const tree = MerkleLog.from(payloads.map((payload) => leafHash(payload)));
    expect(cachedProofFromPayloads(cache, "partition-0", shipped(100, 150), inclusion(120, 150), { size: 150, root: tree.rootAt(149) })).toEqual({ wantedAfter: 0 });
    expect(cache.stats).toMatchObject({ invalidated: 2, builds: 2 });
  });
});
