/**
 * `npm run bench:merkle` (issue 29): the RFC 9162 tree of engine/audit/merkle at a log's scale.
 *   - hashing 1,000,000 payloads into leaf hashes, then appending them (time, heap and
 *     ArrayBuffer bytes the tree holds, bytes per leaf); rebuilding it with MerkleLog.from;
 *   - the root at 1M and at random earlier sizes;
 *   - inclusion proofs at 1M (and at an earlier head): time to produce and to verify, size in
 *     hashes and in JSON bytes;
 *   - the consistency proof 500k → 1M, and random consistency proofs, the same way.
 * Options: --leaves (default 1,000,000), --payload-bytes (200), --proofs (10,000).
 * Writes bench/results/<date>-merkle.{json,md}. Every proof it times is also verified; a proof
 * that does not verify fails the run. Single thread, CPU only: on the shared 2-core machine run it
 * alone.
 */
import { writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem } from "node:os";
import * as path from "node:path";
import { MerkleLog } from "../engine/audit/merkle/merkle-log.js";
import { encodeConsistencyProof, encodeInclusionProof, HASH_BYTES, leafHash, sameHash, verifyConsistency, verifyInclusion } from "@market-service/client/audit";
import { numberArg } from "./args.js";
import { percentile } from "./percentile.js";
import { RESULTS_DIR, freshResultStem } from "./result-stem.js";

const LEAVES = numberArg("leaves", 1_000_000);
const PAYLOAD_BYTES = numberArg("payload-bytes", 200);
const PROOFS = numberArg("proofs", 10_000);
const OLD_SIZE = Math.floor(LEAVES / 2);

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc (npm run bench:merkle does)");

/** A reproducible stream of numbers in [0, 1) (the sample of indexes is the same every run). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function memory(): { heapUsed: number; arrayBuffers: number; rss: number } {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, rss: m.rss };
}

/** Per-call microseconds of `count` calls, sorted, and the run's total seconds. */
function timeEach(count: number, call: (i: number) => void): { sortedUs: number[]; totalSeconds: number } {
  const us: number[] = new Array<number>(count);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const a = process.hrtime.bigint();
    call(i);
    us[i] = Number(process.hrtime.bigint() - a) / 1000;
  }
  const totalSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  us.sort((x, y) => x - y);
  return { sortedUs: us, totalSeconds };
}

const stats = (sortedUs: number[]): { p50Us: number; p99Us: number; maxUs: number; meanUs: number } => ({
  p50Us: round(percentile(sortedUs, 50)),
  p99Us: round(percentile(sortedUs, 99)),
  maxUs: round(sortedUs[sortedUs.length - 1] ?? Number.NaN),
  meanUs: round(sortedUs.reduce((a, b) => a + b, 0) / sortedUs.length),
});
const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
const fmt = (n: number, digits = 0): string => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

console.log(`merkle bench: ${fmt(LEAVES)} leaves of ${PAYLOAD_BYTES}-byte payloads, ${fmt(PROOFS)} proofs per row; node ${process.version}, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);

// 1. Leaf hashes: SHA-256(0x00 ‖ payload), what a log computes once per entry.
const payload = new Uint8Array(PAYLOAD_BYTES);
for (let i = 0; i < PAYLOAD_BYTES; i++) payload[i] = (i * 31) & 0xff;
const leafHashes = new Uint8Array(LEAVES * HASH_BYTES);
let t = performance.now();
for (let i = 0; i < LEAVES; i++) {
  // Distinct payloads: the entry number in the first bytes.
  payload[0] = i & 0xff;
  payload[1] = (i >>> 8) & 0xff;
  payload[2] = (i >>> 16) & 0xff;
  payload[3] = (i >>> 24) & 0xff;
  leafHashes.set(leafHash(payload), i * HASH_BYTES);
}
const leafHashSeconds = (performance.now() - t) / 1000;
const leafAt = (i: number): Uint8Array => leafHashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES);

// 2. Appends, and what the tree holds afterwards (the leaf hashes above are allocated already).
const before = memory();
t = performance.now();
const tree = new MerkleLog();
for (let i = 0; i < LEAVES; i++) tree.append(leafAt(i));
const appendSeconds = (performance.now() - t) / 1000;
const after = memory();
const heldHeap = after.heapUsed - before.heapUsed;
const heldArrayBuffers = after.arrayBuffers - before.arrayBuffers;

// 3. The same tree rebuilt in one go, as recovery does from the log.
t = performance.now();
const rebuilt = MerkleLog.from((function* () {
  for (let i = 0; i < LEAVES; i++) yield leafAt(i);
})());
const rebuildSeconds = (performance.now() - t) / 1000;
if (!sameHash(rebuilt.root(), tree.root())) throw new Error("MerkleLog.from built another root");

// 4. Roots.
const random = lcg(29);
const rootNow = timeEach(1_000, () => tree.root());
const rootEarlier = timeEach(PROOFS, () => tree.rootAt(1 + Math.floor(random() * LEAVES)));

// 5. Inclusion proofs at the current size and at an earlier head.
interface ProofRow {
  what: string;
  count: number;
  produce: ReturnType<typeof stats>;
  verify: ReturnType<typeof stats>;
  hashes: { min: number; max: number };
  jsonBytes: { min: number; max: number; mean: number };
}

function inclusionRow(treeSize: number, what: string): ProofRow {
  const indexes = Array.from({ length: PROOFS }, () => Math.floor(random() * treeSize));
  const root = tree.rootAt(treeSize);
  const proofs: Uint8Array[][] = new Array<Uint8Array[]>(PROOFS);
  const produce = timeEach(PROOFS, (i) => {
    proofs[i] = tree.inclusionProof(indexes[i] as number, treeSize);
  });
  let failed = 0;
  const verify = timeEach(PROOFS, (i) => {
    const m = indexes[i] as number;
    if (!verifyInclusion(leafAt(m), m, treeSize, proofs[i] as Uint8Array[], root)) failed += 1;
  });
  if (failed > 0) throw new Error(`${failed} inclusion proofs at ${treeSize} did not verify`);
  const sizes = proofs.map((p, i) => JSON.stringify(encodeInclusionProof({ leafIndex: indexes[i] as number, treeSize, path: p })).length);
  const lengths = proofs.map((p) => p.length);
  return {
    what,
    count: PROOFS,
    produce: stats(produce.sortedUs),
    verify: stats(verify.sortedUs),
    hashes: { min: Math.min(...lengths), max: Math.max(...lengths) },
    jsonBytes: { min: Math.min(...sizes), max: Math.max(...sizes), mean: round(sizes.reduce((a, b) => a + b, 0) / sizes.length) },
  };
}

function consistencyRow(pairs: ReadonlyArray<readonly [number, number]>, what: string): ProofRow {
  const proofs: Uint8Array[][] = new Array<Uint8Array[]>(pairs.length);
  const produce = timeEach(pairs.length, (i) => {
    const [m, n] = pairs[i] as readonly [number, number];
    proofs[i] = tree.consistencyProof(m, n);
  });
  const roots = pairs.map(([m, n]) => [tree.rootAt(m), tree.rootAt(n)] as const);
  let failed = 0;
  const verify = timeEach(pairs.length, (i) => {
    const [m, n] = pairs[i] as readonly [number, number];
    const [oldRoot, newRoot] = roots[i] as readonly [Uint8Array, Uint8Array];
    if (!verifyConsistency(m, n, oldRoot, newRoot, proofs[i] as Uint8Array[])) failed += 1;
  });
  if (failed > 0) throw new Error(`${failed} consistency proofs (${what}) did not verify`);
  const sizes = proofs.map((p, i) => {
    const [oldSize, newSize] = pairs[i] as readonly [number, number];
    return JSON.stringify(encodeConsistencyProof({ oldSize, newSize, path: p })).length;
  });
  const lengths = proofs.map((p) => p.length);
  return {
    what,
    count: pairs.length,
    produce: stats(produce.sortedUs),
    verify: stats(verify.sortedUs),
    hashes: { min: Math.min(...lengths), max: Math.max(...lengths) },
    jsonBytes: { min: Math.min(...sizes), max: Math.max(...sizes), mean: round(sizes.reduce((a, b) => a + b, 0) / sizes.length) },
  };
}

const rows: ProofRow[] = [
  inclusionRow(LEAVES, `inclusion, random leaf, tree of ${fmt(LEAVES)}`),
  inclusionRow(Math.floor(LEAVES * 0.75), `inclusion, random leaf, earlier head of ${fmt(Math.floor(LEAVES * 0.75))}`),
  consistencyRow(Array.from({ length: Math.min(PROOFS, 1_000) }, () => [OLD_SIZE, LEAVES] as const), `consistency ${fmt(OLD_SIZE)} → ${fmt(LEAVES)}`),
  consistencyRow(
    Array.from({ length: PROOFS }, () => {
      const a = 1 + Math.floor(random() * LEAVES);
      const b = 1 + Math.floor(random() * LEAVES);
      return [Math.min(a, b), Math.max(a, b)] as const;
    }),
    `consistency, random sizes ≤ ${fmt(LEAVES)}`,
  ),
];

const result = {
  bench: "merkle",
  date: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? "?", memoryBytes: totalmem(), node: process.version, kernel: release(), loadAverageAtStart: loadavg().map((l) => round(l)) },
  settings: { leaves: LEAVES, payloadBytes: PAYLOAD_BYTES, proofsPerRow: PROOFS, hash: "SHA-256 (@noble/hashes, pure JavaScript)" },
  build: {
    leafHashSeconds: round(leafHashSeconds, 3),
    leafHashUsPerLeaf: round((leafHashSeconds * 1e6) / LEAVES, 3),
    appendSeconds: round(appendSeconds, 3),
    appendUsPerLeaf: round((appendSeconds * 1e6) / LEAVES, 3),
    rebuildFromSeconds: round(rebuildSeconds, 3),
    treeAllocatedBytes: tree.allocatedBytes,
    treeAllocatedBytesPerLeaf: round(tree.allocatedBytes / LEAVES),
    heapUsedDeltaBytes: heldHeap,
    arrayBuffersDeltaBytes: heldArrayBuffers,
    heldBytesPerLeaf: round((heldHeap + heldArrayBuffers) / LEAVES),
  },
  roots: { rootAtCurrentSize: stats(rootNow.sortedUs), rootAtRandomEarlierSize: stats(rootEarlier.sortedUs) },
  proofs: rows,
};

const stem = freshResultStem("merkle");
const lines = [
  `# Merkle tree bench ${stem}`,
  "",
  `Machine: ${JSON.stringify(result.machine)}`,
  `Settings: ${JSON.stringify(result.settings)}`,
  "",
  "| build | seconds | µs per leaf |",
  "|---|---:|---:|",
  `| leaf hashes of ${fmt(LEAVES)} ${PAYLOAD_BYTES}-byte payloads | ${fmt(leafHashSeconds, 3)} | ${fmt(result.build.leafHashUsPerLeaf, 3)} |`,
  `| append ${fmt(LEAVES)} leaf hashes | ${fmt(appendSeconds, 3)} | ${fmt(result.build.appendUsPerLeaf, 3)} |`,
  `| MerkleLog.from (rebuild) | ${fmt(rebuildSeconds, 3)} | ${fmt((rebuildSeconds * 1e6) / LEAVES, 3)} |`,
  "",
  `Memory held by the tree of ${fmt(LEAVES)} leaves (after GC): heapUsed +${fmt(heldHeap)} B, arrayBuffers +${fmt(heldArrayBuffers)} B` +
    ` = ${fmt(result.build.heldBytesPerLeaf)} B per leaf; the tree's own count of allocated hash storage ${fmt(tree.allocatedBytes)} B (${fmt(result.build.treeAllocatedBytesPerLeaf)} B per leaf).`,
  "",
  "| root | p50 µs | p99 µs | max µs |",
  "|---|---:|---:|---:|",
  `| root() at ${fmt(LEAVES)} (1,000 calls) | ${result.roots.rootAtCurrentSize.p50Us} | ${result.roots.rootAtCurrentSize.p99Us} | ${result.roots.rootAtCurrentSize.maxUs} |`,
  `| rootAt(random size) (${fmt(PROOFS)} calls) | ${result.roots.rootAtRandomEarlierSize.p50Us} | ${result.roots.rootAtRandomEarlierSize.p99Us} | ${result.roots.rootAtRandomEarlierSize.maxUs} |`,
  "",
  "| proof | count | produce p50 µs | produce p99 µs | verify p50 µs | verify p99 µs | hashes | JSON bytes (min–max, mean) |",
  "|---|---:|---:|---:|---:|---:|---|---|",
  ...rows.map(
    (r) =>
      `| ${r.what} | ${fmt(r.count)} | ${r.produce.p50Us} | ${r.produce.p99Us} | ${r.verify.p50Us} | ${r.verify.p99Us} | ${r.hashes.min}–${r.hashes.max} | ${fmt(r.jsonBytes.min)}–${fmt(r.jsonBytes.max)}, ${fmt(r.jsonBytes.mean)} |`,
  ),
  "",
  "Per-call times are wall clock around each call (process.hrtime), on a machine shared with other jobs.",
  "",
];
writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), lines.join("\n"));
console.log(lines.join("\n"));
console.log(`written: bench/results/${stem}.{json,md}`);
