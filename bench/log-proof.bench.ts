/**
 * `npm run bench:log-proof` (issue 29): what a proof costs the service for a log on disk. Writes a
 * shard log of --entries (default 1,000,000) logged direct-claim commands with the storage code
 * (the real frame encoding, a few hundred bytes each), then times, each --runs times (default 3):
 *   - reading every entry back through a LogReadView (LogView.frames) alone;
 *   - an inclusion proof at the whole log's size, as the worker pool builds it
 *     (engine/audit/log-proofs.ts: read, leaf hashes, MerkleLog.from, path), and its JSON size
 *     as the endpoint gives it (with the leaf hash and the entry);
 *   - the consistency proof from half the log to all of it, and its JSON size;
 * then, through a proof tree cache as a worker pool thread keeps it (engine/audit/cached-log-proofs.ts,
 * with the shard's root as anchor), for each kind: the first proof (cold: the whole log read into the
 * tree), the same kind of proof again (warm), and a proof after --appended (default 10,000) more
 * entries were appended (incremental: those entries read); and the bytes the cache holds.
 * Every proof is verified against a root computed separately. Writes bench/results/<date>-log-proof.{json,md}.
 * Single thread; on the shared 2-core machine timings vary with other jobs (the load is recorded).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, tmpdir } from "node:os";
import * as path from "node:path";
import { logProofFromView, viewPayloads, type LogProof, type LogProofRequest } from "../engine/audit/log-proofs.js";
import { cachedProofFromView } from "../engine/audit/cached-log-proofs.js";
import { ProofTreeCache } from "../engine/audit/proof-tree-cache.js";
import { CompactRange } from "../engine/audit/merkle/compact-range.js";
import { hashFromHex, verifyConsistency, verifyInclusion } from "@market-service/client/audit";
import { encodeLoggedCommand, loggedCommand } from "../engine/log/logged-command.js";
import { NODE_TREE_HASHING } from "../engine/audit/node-tree-hashing.js";
import { proofJson } from "../engine/pool-worker/replay-work.js";
import type { Command } from "../engine/rules/types/command.js";
import { SegmentLog } from "../storage/index.js";
import { numberArg } from "./args.js";
import { RESULTS_DIR, freshResultStem } from "./result-stem.js";

const ENTRIES = numberArg("entries", 1_000_000);
const RUNS = numberArg("runs", 3);
const APPENDED = numberArg("appended", 10_000);
const BATCH = 1000;

function claim(i: number): Command {
  const principalId = `participant-${i.toString().padStart(7, "0")}`;
  return {
    type: "direct_claim.submit",
    commandId: `claim-${i}-0f8e2c1a`,
    identity: { principalId, actorId: principalId },
    occurredAtMs: 1_790_000_000_000 + i,
    marketId: `market-${i % 100}`,
  };
}

const dir = mkdtempSync(path.join(tmpdir(), "bench-log-proof-"));
try {
  const writeStarted = performance.now();
  const log = SegmentLog.open({ dir });
  const tree = new CompactRange(NODE_TREE_HASHING);
  let payloadBytes = 0;
  let halfRoot: Uint8Array | undefined;
  for (let i = 0; i < ENTRIES; i += 1) {
    const payload = encodeLoggedCommand(loggedCommand(claim(i), `fp-${i}`, undefined));
    payloadBytes += payload.length;
    log.append(payload);
    tree.append(NODE_TREE_HASHING.leafHash(payload));
    if (i === ENTRIES / 2 - 1) halfRoot = tree.root();
    if ((i + 1) % BATCH === 0) log.commitSync();
  }
  log.commitSync();
  const view = log.readView();
  const logBytes = view.endPosition;
  const fullRoot = tree.root();
  // Appended later: a view taken before stays a view of the first ENTRIES (committed entries never change).
  for (let i = ENTRIES; i < ENTRIES + APPENDED; i += 1) {
    const payload = encodeLoggedCommand(loggedCommand(claim(i), `fp-${i}`, undefined));
    log.append(payload);
    tree.append(NODE_TREE_HASHING.leafHash(payload));
    if ((i + 1) % BATCH === 0) log.commitSync();
  }
  log.commitSync();
  const grownView = log.readView();
  const grownRoot = tree.root();
  log.close();
  const writeSeconds = (performance.now() - writeStarted) / 1000;

  const time = <T>(run: () => T): { seconds: number; value: T } => {
    const started = performance.now();
    const value = run();
    return { seconds: (performance.now() - started) / 1000, value };
  };

  const readSeconds: number[] = [];
  const inclusionSeconds: number[] = [];
  const consistencySeconds: number[] = [];
  let inclusionJson = "";
  let consistencyJson = "";
  let inclusionHashes = 0;
  let consistencyHashes = 0;
  for (let run = 0; run < RUNS; run += 1) {
    readSeconds.push(
      time(() => {
        let count = 0;
        for (const _ of viewPayloads(view, ENTRIES)) count += 1;
        if (count !== ENTRIES) throw new Error(`read ${count} entries of ${ENTRIES}`);
      }).seconds,
    );
    const leafIndex = Math.floor(((run + 1) * ENTRIES) / (RUNS + 1));
    const inclusion = time(() => logProofFromView(view, "shard-0", { type: "inclusion", leafIndex, treeSize: ENTRIES }));
    inclusionSeconds.push(inclusion.seconds);
    const proof = inclusion.value as Extract<LogProof, { type: "inclusion" }>;
    const path = proof.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
    if (!verifyInclusion(NODE_TREE_HASHING.leafHash(proof.entry), leafIndex, ENTRIES, path, fullRoot)) throw new Error("an inclusion proof did not verify");
    inclusionJson = proofJson(proof);
    inclusionHashes = path.length;
    const consistency = time(() => logProofFromView(view, "shard-0", { type: "consistency", oldSize: ENTRIES / 2, newSize: ENTRIES }));
    consistencySeconds.push(consistency.seconds);
    const cpath = consistency.value.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
    if (!verifyConsistency(ENTRIES / 2, ENTRIES, halfRoot ?? new Uint8Array(0), fullRoot, cpath)) throw new Error("a consistency proof did not verify");
    consistencyJson = proofJson(consistency.value);
    consistencyHashes = cpath.length;
  }

  // Through the cache: per run and kind a fresh cache (one pool thread's), cold, warm, then grown.
  const GROWN = ENTRIES + APPENDED;
  const anchorAt = { size: ENTRIES, root: fullRoot };
  const grownAnchor = { size: GROWN, root: grownRoot };
  const cached = {
    inclusion: { cold: [] as number[], warm: [] as number[], incremental: [] as number[] },
    consistency: { cold: [] as number[], warm: [] as number[], incremental: [] as number[] },
  };
  let cacheBytes = 0;
  const checkInclusionProof = (proof: LogProof, root: Uint8Array): void => {
    if (proof.type !== "inclusion") throw new Error("an inclusion proof was asked");
    const path = proof.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
    if (!verifyInclusion(NODE_TREE_HASHING.leafHash(proof.entry), proof.proof.leafIndex, proof.proof.treeSize, path, root)) throw new Error("a cached inclusion proof did not verify");
  };
  const checkConsistencyProof = (proof: LogProof, oldRoot: Uint8Array, newRoot: Uint8Array): void => {
    if (proof.type !== "consistency") throw new Error("a consistency proof was asked");
    const path = proof.proof.path.map((hex, i) => hashFromHex(hex, `path[${i}]`));
    if (!verifyConsistency(proof.proof.oldSize, proof.proof.newSize, oldRoot, newRoot, path)) throw new Error("a cached consistency proof did not verify");
  };
  for (let run = 0; run < RUNS; run += 1) {
    const leafIndex = Math.floor(((run + 1) * ENTRIES) / (RUNS + 1));
    const proofAt = (cache: ProofTreeCache, at: typeof view, request: LogProofRequest, anchor: { size: number; root: Uint8Array }) =>
      time(() => cachedProofFromView(cache, at, "shard-0", request, anchor));
    let cache = new ProofTreeCache();
    let timed = proofAt(cache, view, { type: "inclusion", leafIndex, treeSize: ENTRIES }, anchorAt);
    checkInclusionProof(timed.value, fullRoot);
    cached.inclusion.cold.push(timed.seconds);
    timed = proofAt(cache, view, { type: "inclusion", leafIndex: leafIndex + 1, treeSize: ENTRIES }, anchorAt);
    checkInclusionProof(timed.value, fullRoot);
    cached.inclusion.warm.push(timed.seconds);
    timed = proofAt(cache, grownView, { type: "inclusion", leafIndex: GROWN - 1 - run, treeSize: GROWN }, grownAnchor);
    checkInclusionProof(timed.value, grownRoot);
    cached.inclusion.incremental.push(timed.seconds);
    if (cache.stats.builds !== 1 || cache.stats.entriesHashed !== GROWN) throw new Error(`the cache did not keep its tree: ${JSON.stringify(cache.stats)}`);
    cacheBytes = cache.stats.bytes;

    cache = new ProofTreeCache();
    timed = proofAt(cache, view, { type: "consistency", oldSize: ENTRIES / 2, newSize: ENTRIES }, anchorAt);
    checkConsistencyProof(timed.value, halfRoot ?? new Uint8Array(0), fullRoot);
    cached.consistency.cold.push(timed.seconds);
    timed = proofAt(cache, view, { type: "consistency", oldSize: ENTRIES / 2 + 1 + run, newSize: ENTRIES }, anchorAt);
    cached.consistency.warm.push(timed.seconds);
    timed = proofAt(cache, grownView, { type: "consistency", oldSize: ENTRIES, newSize: GROWN }, grownAnchor);
    checkConsistencyProof(timed.value, fullRoot, grownRoot);
    cached.consistency.incremental.push(timed.seconds);
    if (cache.stats.builds !== 1 || cache.stats.entriesHashed !== GROWN) throw new Error(`the cache did not keep its tree: ${JSON.stringify(cache.stats)}`);
  }

  const result = {
    bench: "log-proof",
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, parallelism: availableParallelism(), model: cpus()[0]?.model, kernel: release(), node: process.version, loadAverage: loadavg() },
    entries: ENTRIES,
    payloadBytesMean: payloadBytes / ENTRIES,
    logBytes,
    writeSeconds,
    readAllSeconds: readSeconds,
    inclusionProofSeconds: inclusionSeconds,
    inclusionProof: { hashes: inclusionHashes, jsonBytes: Buffer.byteLength(inclusionJson) },
    consistencyProofSeconds: consistencySeconds,
    consistencyProof: { oldSize: ENTRIES / 2, newSize: ENTRIES, hashes: consistencyHashes, jsonBytes: Buffer.byteLength(consistencyJson) },
    cached: { appended: APPENDED, seconds: cached, cacheBytes },
  };
  const fmt = (values: number[]): string => values.map((s) => `${s.toFixed(2)} s`).join(", ");
  const ms = (values: number[]): string => values.map((s) => `${(s * 1000).toFixed(2)} ms`).join(", ");
  const lines = [
    `# Log proofs from a shard log on disk (${new Date().toISOString().slice(0, 10)})`,
    "",
    `\`npm run bench:log-proof -- --entries ${ENTRIES} --runs ${RUNS} --appended ${APPENDED}\`; node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} at the end.`,
    "",
    `- Log: ${ENTRIES.toLocaleString("en")} logged direct-claim commands, ${result.payloadBytesMean.toFixed(0)} B a payload on average, ${(logBytes / 2 ** 20).toFixed(0)} MiB of frames (written in ${writeSeconds.toFixed(1)} s).`,
    `- Reading every entry through a LogReadView (LogView.frames, CRC checked): ${fmt(readSeconds)}.`,
    `- Inclusion proof at size ${ENTRIES.toLocaleString("en")} (read + leaf hashes + MerkleLog.from + path, node:crypto SHA-256): ${fmt(inclusionSeconds)}; ${inclusionHashes} hashes, ${result.inclusionProof.jsonBytes} B of JSON with the leaf hash and the entry.`,
    `- Consistency proof ${ENTRIES / 2} → ${ENTRIES}: ${fmt(consistencySeconds)}; ${consistencyHashes} hashes, ${result.consistencyProof.jsonBytes} B of JSON.`,
    "",
    `Through a proof tree cache (cached-log-proofs.ts, the pool thread's path; a fresh cache per run and kind):`,
    "",
    `- Inclusion at ${ENTRIES.toLocaleString("en")}: cold (whole log read into the tree) ${fmt(cached.inclusion.cold)}; warm (another leaf, same size) ${ms(cached.inclusion.warm)}; after ${APPENDED.toLocaleString("en")} more entries, at ${GROWN.toLocaleString("en")} (those entries read) ${ms(cached.inclusion.incremental)}.`,
    `- Consistency ${ENTRIES / 2} → ${ENTRIES}: cold ${fmt(cached.consistency.cold)}; warm (another old size) ${ms(cached.consistency.warm)}; ${ENTRIES} → ${GROWN} after ${APPENDED.toLocaleString("en")} more entries ${ms(cached.consistency.incremental)}.`,
    `- The cache holds ${cacheBytes.toLocaleString("en")} B for the log of ${GROWN.toLocaleString("en")} entries (${(cacheBytes / GROWN).toFixed(1)} B an entry).`,
    "",
  ];
  const stem = freshResultStem("log-proof");
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `${stem}.md`), lines.join("\n"));
  console.log(lines.join("\n"));
  console.log(`written: bench/results/${stem}.{json,md}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
