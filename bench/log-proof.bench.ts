/**
 * `npm run bench:log-proof` (issue 29): what a proof costs the service for a log on disk. Writes a
 * shard log of --entries (default 1,000,000) logged direct-claim commands with the storage code
 * (the real frame encoding, a few hundred bytes each), then times, each --runs times (default 3):
 *   - reading every entry back through a LogReadView (LogView.frames) alone;
 *   - an inclusion proof at the whole log's size, as the worker pool builds it
 *     (engine/audit/log-proofs.ts: read, leaf hashes, MerkleLog.from, path), and its JSON size
 *     as the endpoint gives it (with the leaf hash and the entry);
 *   - the consistency proof from half the log to all of it, and its JSON size.
 * Every proof is verified against a root computed separately. Writes bench/results/<date>-log-proof.{json,md}.
 * Single thread; on the shared 2-core machine timings vary with other jobs (the load is recorded).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, tmpdir } from "node:os";
import * as path from "node:path";
import { logProofFromView, viewPayloads, type LogProof } from "../engine/audit/log-proofs.js";
import { CompactRange } from "../engine/audit/merkle/compact-range.js";
import { hashFromHex } from "../engine/audit/merkle/proof-format.js";
import { verifyConsistency, verifyInclusion } from "../engine/audit/merkle/proof-verify.js";
import { encodeLoggedCommand, loggedCommand } from "../engine/runtime/logged-command.js";
import { NODE_TREE_HASHING } from "../engine/runtime/node-tree-hashing.js";
import { proofJson } from "../engine/runtime/replay-work.js";
import type { Command } from "../engine/rules/types/command.js";
import { SegmentLog } from "../storage/index.js";
import { numberArg } from "./args.js";
import { RESULTS_DIR, freshResultStem } from "./result-stem.js";

const ENTRIES = numberArg("entries", 1_000_000);
const RUNS = numberArg("runs", 3);
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
  log.close();
  const fullRoot = tree.root();
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
  };
  const fmt = (values: number[]): string => values.map((s) => `${s.toFixed(2)} s`).join(", ");
  const lines = [
    `# Log proofs from a shard log on disk (${new Date().toISOString().slice(0, 10)})`,
    "",
    `\`npm run bench:log-proof -- --entries ${ENTRIES} --runs ${RUNS}\`; node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} at the end.`,
    "",
    `- Log: ${ENTRIES.toLocaleString("en")} logged direct-claim commands, ${result.payloadBytesMean.toFixed(0)} B a payload on average, ${(logBytes / 2 ** 20).toFixed(0)} MiB of frames (written in ${writeSeconds.toFixed(1)} s).`,
    `- Reading every entry through a LogReadView (LogView.frames, CRC checked): ${fmt(readSeconds)}.`,
    `- Inclusion proof at size ${ENTRIES.toLocaleString("en")} (read + leaf hashes + MerkleLog.from + path, node:crypto SHA-256): ${fmt(inclusionSeconds)}; ${inclusionHashes} hashes, ${result.inclusionProof.jsonBytes} B of JSON with the leaf hash and the entry.`,
    `- Consistency proof ${ENTRIES / 2} → ${ENTRIES}: ${fmt(consistencySeconds)}; ${consistencyHashes} hashes, ${result.consistencyProof.jsonBytes} B of JSON.`,
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
