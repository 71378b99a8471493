/**
 * What checking signed heads costs a shard's start (issue 35; docs/storage.md, "Recovery and signed
 * heads"): a 1M-claim shard log written through the real ShardCore with heads recorded as the service
 * records them (every 10,000 entries, or every second of server time), then opened again and again:
 *
 * - without a snapshot (the whole log read): heads checked by root only (what recovery did before
 *   issue 35) against root and signature under the key history (node:crypto, one KeyObject per key);
 * - with a snapshot at the end: without heads (nothing before the snapshot is read) against heads on,
 *   which reads from the snapshot's anchor (the last recorded head) and checks it.
 *
 * And the signatures alone: every head of the log verified with node:crypto (what recovery uses) and
 * with the pure-JavaScript verifier (what a browser uses), 2,000 times each.
 *
 * Runs alternate between the variants. Usage: `node --import tsx bench/recovery-heads.bench.ts
 * [--claims N] [--runs R]`; writes bench/results/<date>-recovery-heads.json.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { ManualClock } from "../engine/clock.js";
import { openFileShard, type ShardCoreOptions } from "../engine/runtime/shard-core.js";
import { HeadKeys } from "../engine/audit/signing/head-keys.js";
import { keyIdOf, type SignedHead, verifyHead } from "@market-service/client/audit";
import type { LogHeadsOptions } from "../engine/audit/heads/log-heads.js";
import { buildShard, T0 } from "./claim-log.js";
import { decodeLogEntry } from "../engine/log/logged-head.js";
import { SegmentLog } from "../storage/index.js";
import { freshResultStem, RESULTS_DIR } from "./result-stem.js";

const { values } = parseArgs({ options: { claims: { type: "string", default: "1000000" }, runs: { type: "string", default: "3" } } });
const claims = Number(values.claims);
const runs = Number(values.runs);

const pair = generateKeyPairSync("ed25519");
const publicKey = new Uint8Array(Buffer.from(pair.publicKey.export({ format: "jwk" }).x as string, "base64url"));
const keyId = keyIdOf(publicKey);
const heads: LogHeadsOptions = { logId: "shard-0", signer: { keyId, sign: (message) => new Uint8Array(sign(null, message, pair.privateKey)) }, everyCommands: 10_000, everyMs: 1000 };
const keys = new HeadKeys([{ keyId, publicKey }]);

const dir = mkdtempSync(path.join(tmpdir(), "recovery-heads-"));
const clock = new ManualClock(T0);

async function timedOpen(options: Partial<ShardCoreOptions>): Promise<{ ms: number; headsChecked: number; framesReplayed: number }> {
  const startedMs = performance.now();
  const opened = await openFileShard({ dir, shardIndex: 0, clock, ...options });
  const ms = performance.now() - startedMs;
  await opened.core.close();
  return { ms: Math.round(ms), headsChecked: opened.report.headsChecked, framesReplayed: opened.report.framesReplayed };
}

try {
  const builtMs = performance.now();
  const core = await buildShard(dir, 100, claims, Math.ceil(claims / 100), clock, heads);
  await core.close();
  process.stderr.write(`built ${claims.toLocaleString("en-US")} claims with heads in ${((performance.now() - builtMs) / 1000).toFixed(1)} s\n`);
  const variants: Record<string, Partial<ShardCoreOptions>> = {
    "no snapshot, roots only": { heads, headChecks: { keys: undefined, acceptedTails: [] } },
    "no snapshot, roots and signatures": { heads, headChecks: { keys, acceptedTails: [] } },
  };
  const snapshotVariants: Record<string, Partial<ShardCoreOptions>> = {
    "snapshot, heads off (nothing before it read)": {},
    "snapshot, roots and signatures from its anchor": { heads, headChecks: { keys, acceptedTails: [] } },
  };
  const results: Record<string, Array<{ ms: number; headsChecked: number; framesReplayed: number }>> = {};
  const measure = async (set: Record<string, Partial<ShardCoreOptions>>) => {
    for (let run = 0; run < runs; run += 1) {
      for (const [name, options] of Object.entries(set)) {
        const result = await timedOpen(options);
        (results[name] ??= []).push(result);
        process.stderr.write(`${name}: ${result.ms} ms (${result.headsChecked} heads checked, ${result.framesReplayed} frames replayed)\n`);
      }
    }
  };
  await measure(variants);
  const withSnapshot = await openFileShard({ dir, shardIndex: 0, clock, heads, headChecks: { keys, acceptedTails: [] } });
  await withSnapshot.core.snapshot();
  await withSnapshot.core.close();
  await measure(snapshotVariants);
  const logHeads = readHeads(dir);
  const signatures = { heads: logHeads.length, nodeCryptoUsPerHead: perHead(logHeads, (head) => keys.signatureProblem(head) === undefined), nobleUsPerHead: perHead(logHeads, (head) => verifyHead(head, publicKey)) };
  process.stderr.write(`signatures alone: ${signatures.heads} heads; node:crypto ${signatures.nodeCryptoUsPerHead} µs a head, noble ${signatures.nobleUsPerHead} µs a head\n`);
  const stem = freshResultStem("recovery-heads");
  writeFileSync(path.join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify({ claims, runs, node: process.version, results, signatures }, null, 2)}\n`);
  process.stderr.write(`wrote bench/results/${stem}.json\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The signed heads recorded in the shard log in `shardDir`. */
function readHeads(shardDir: string): SignedHead[] {
  const log = SegmentLog.open({ dir: shardDir });
  try {
    const heads: SignedHead[] = [];
    // A frame's payload is valid until the next one is read: decode each as it comes.
    for (const frame of log.frames(0, { verify: "none" })) {
      const entry = decodeLogEntry(frame.payload);
      if (entry.kind === "head") heads.push(entry.head);
    }
    return heads;
  } finally {
    log.close();
  }
}

/** Microseconds a head, over 2,000 verifications (the heads in turn). */
function perHead(heads: readonly SignedHead[], verify: (head: SignedHead) => boolean): number {
  const count = 2000;
  const startedMs = performance.now();
  for (let i = 0; i < count; i += 1) if (!verify(heads[i % heads.length] as SignedHead)) throw new Error("a head of the log does not verify");
  return Math.round(((performance.now() - startedMs) * 1000) / count);
}
