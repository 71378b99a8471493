/**
 * `market-service proof` (proofs from a stopped service's data directory, the same JSON as the
 * endpoints give) and `market-service check-proof` (a saved proof file checked offline with the
 * public keys alone). docs/proofs.md, "Proof endpoints" and "Proof files".
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { checkProofFile } from "@market-service/client/audit";
import { logProofFromView, LogProofRangeError, type LogProofRequest } from "../../engine/audit/log-proofs.js";
import { proofJson } from "../../engine/pool-worker/replay-work.js";
import { shardDirectory } from "../../engine/runtime/shard-host.js";
import { logIndexOf } from "../../engine/runtime/shard-routing.js";
import { SegmentLog } from "../../storage/index.js";
import { readPublicKeys } from "./public-keys-file.js";

export interface ProofOptions {
  data: string;
  log: string;
  leaf?: number;
  treeSize?: number;
  consistency?: [number, number];
  out?: string;
}

/** What `proof` is asked, or why the options do not say (the caller writes it and exits 1). */
export function proofRequestOf(options: ProofOptions): LogProofRequest | string {
  const inclusion = options.leaf !== undefined || options.treeSize !== undefined;
  if (inclusion && options.consistency !== undefined) return "give --leaf and --tree-size (an inclusion proof) or --consistency M N, not both";
  if (options.consistency !== undefined) return { type: "consistency", oldSize: options.consistency[0], newSize: options.consistency[1] };
  if (options.leaf === undefined || options.treeSize === undefined) return "an inclusion proof needs --leaf I and --tree-size N (or ask --consistency M N)";
  return { type: "inclusion", leafIndex: options.leaf, treeSize: options.treeSize };
}

/**
 * The proof of log `options.log` (`shard-<n>`) from the data directory (its lock is held by the
 * caller): the entry is always given, since whoever holds the directory reads every entry anyway.
 */
export function proofFromDataDir(options: ProofOptions, request: LogProofRequest): void {
  const shardIndex = logIndexOf(options.log, "shard", Number.MAX_SAFE_INTEGER);
  const dir = shardIndex === undefined ? undefined : shardDirectory(options.data, shardIndex);
  if (dir === undefined || !existsSync(dir)) {
    process.stderr.write(`proof: no log ${JSON.stringify(options.log)} in ${options.data} (its shards' logs are shard-0, shard-1, …)\n`);
    process.exitCode = 1;
    return;
  }
  const log = SegmentLog.open({ dir });
  let json: string;
  try {
    json = proofJson(logProofFromView(log.readView(), options.log, request));
  } catch (error) {
    if (!(error instanceof LogProofRangeError)) throw error;
    process.stderr.write(`proof: --${cliName(error.field)}: ${error.message}\n`);
    process.exitCode = 1;
    return;
  } finally {
    log.close();
  }
  if (options.out === undefined) process.stdout.write(`${json}\n`);
  else writeFileSync(options.out, `${json}\n`, { flag: "wx" });
}

/** The CLI option a proof's field comes from. */
function cliName(field: string): string {
  return field === "leafIndex" ? "leaf" : field === "treeSize" ? "tree-size" : "consistency";
}

/** `check-proof FILE --public-key KEYS`: exit 0 with what was proven, 1 naming the failed check, 2 for an unusable file, 3 when its `command` cannot be confirmed (entry withheld). */
export function checkProofCommand(file: string, publicKeyFile: string): void {
  let keys: Map<string, Uint8Array>;
  try {
    keys = new Map(readPublicKeys(publicKeyFile).map((key) => [key.keyId, key.publicKey]));
  } catch (error) {
    return unusable(error instanceof Error ? error.message : String(error));
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return unusable(`${file}: ${error instanceof SyntaxError ? "not JSON" : `cannot be read (${error instanceof Error ? error.message : String(error)})`}`);
  }
  const checked = checkProofFile(value, keys);
  switch (checked.outcome) {
    case "proven":
      process.stdout.write(`check-proof: proven: ${checked.proven}\n`);
      return;
    case "failed":
      process.stderr.write(`check-proof: FAILED: ${checked.check}: ${checked.reason}\n`);
      process.exitCode = 1;
      return;
    case "unconfirmed":
      process.stderr.write(`check-proof: could not check: ${checked.reason}\n`);
      process.exitCode = 3;
      return;
    case "unusable":
      return unusable(`${file}: ${checked.reason}`);
  }
}

function unusable(why: string): void {
  process.stderr.write(`check-proof: unusable: ${why}\n`);
  process.exitCode = 2;
}
