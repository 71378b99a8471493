/**
 * What someone who holds a data directory but not the signing key can do to a shard's log, for the
 * tamper tests: read every frame, change or drop what they like, and write a brand-new log in its
 * place with the storage code itself (every chain value, CRC and segment header valid), deleting the
 * snapshots and the idempotency index snapshot with it. And the real CLI, run as a process.
 */
import { execFile } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import * as path from "node:path";
import { Packr } from "msgpackr";
import { decodeLogEntry } from "../../../engine/log/logged-head.js";
import { SegmentLog } from "../../../storage/index.js";
import { CLI_JS } from "../../process/support.js";


/** `market-service <args>` as a process in `cwd`: its exit status and output. */
export function cli(args: string[], cwd: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_JS, ...args], { cwd, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/** Every entry's payload of the shard log in `shardDir`, in order. */
export function readShard(shardDir: string): Buffer[] {
  const log = SegmentLog.open({ dir: shardDir });
  try {
    return [...log.frames(0, { verify: "none" })].map((frame) => Buffer.from(frame.payload));
  } finally {
    log.close();
  }
}

/** Every string of every command frame mapped through `swaps`; the signed heads kept, or dropped. */
export function forged(payloads: readonly Buffer[], swaps: Record<string, string>, heads: "keep heads" | "drop heads"): Buffer[] {
  return payloads.flatMap((payload) => {
    if (decodeLogEntry(payload).kind === "head") return heads === "keep heads" ? [payload] : [];
    const text = JSON.stringify(packr.unpack(payload), (_key, value: unknown) => (typeof value === "string" && value in swaps ? swaps[value] : value));
    return [packr.pack(JSON.parse(text) as unknown)];
  });
}

/** A brand-new log of `payloads` in place of shard 0 of `dataDir`; its snapshots and the index snapshot deleted. */
export function writeShard(dataDir: string, payloads: readonly Buffer[]): void {
  const shardDir = path.join(dataDir, "shards", "00");
  for (const name of readdirSync(shardDir)) rmSync(path.join(shardDir, name), { recursive: true, force: true });
  for (const name of readdirSync(dataDir)) if (/index/i.test(name)) rmSync(path.join(dataDir, name), { recursive: true, force: true });
  const log = SegmentLog.open({ dir: shardDir });
  for (const payload of payloads) log.append(payload);
  log.commitSync();
  log.close();
}
