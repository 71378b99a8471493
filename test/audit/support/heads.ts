/**
 * Signed heads in tests: a real Ed25519 key with its real key id, the log's entries decoded, and what
 * someone who holds a shard's directory but not the key can do to its log (rewrite frames, drop
 * them, recompute every chain value and CRC with the storage code itself).
 */
import { generateKeyPairSync, sign as cryptoSign, type KeyObject } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { afterEach } from "vitest";
import { tempDir } from "../../runtime/support.js";
import * as path from "node:path";
import { Packr } from "msgpackr";
import { decodeLogEntry, encodeLoggedHead } from "../../../engine/log/logged-head.js";
import { CompactRange } from "../../../engine/audit/merkle/compact-range.js";
import { keyIdOf, leafHash } from "@market-service/client/audit";
import type { HeadSigner } from "../../../engine/audit/heads/log-heads.js";
import type { PublicKeyEntry } from "../../../engine/audit/signing/head-keys.js";
import { SegmentLog } from "../../../storage/index.js";

export interface TestKey {
  signer: HeadSigner;
  keyId: string;
  publicKey: Uint8Array;
  /** As verify and recovery take them. */
  entries: PublicKeyEntry[];
}

export function testKey(): TestKey {
  const pair = generateKeyPairSync("ed25519");
  const privateKey: KeyObject = pair.privateKey;
  const jwk = pair.publicKey.export({ format: "jwk" });
  const publicKey = new Uint8Array(Buffer.from(jwk.x as string, "base64url"));
  const keyId = keyIdOf(publicKey);
  return {
    signer: { keyId, sign: (message) => new Uint8Array(cryptoSign(null, message, privateKey)) },
    keyId,
    publicKey,
    entries: [{ keyId, publicKey }],
  };
}

/** Every entry of the log, decoded, with its sequence. */
export function logEntries(dir: string) {
  const log = SegmentLog.open({ dir });
  try {
    return [...log.frames(0, { verify: "none" })].map((frame) => ({ sequence: frame.lsn, payload: Buffer.from(frame.payload), entry: decodeLogEntry(frame.payload) }));
  } finally {
    log.close();
  }
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/** A command frame with principal ids swapped (pairs: from, to, from, to…), re-encoded; other frames as they are. */
export function swapParticipant(payload: Buffer, ...pairs: string[]): Buffer {
  if (decodeLogEntry(payload).kind === "head") return payload;
  const swaps = new Map<string, string>();
  for (let i = 0; i < pairs.length; i += 2) swaps.set(pairs[i] as string, pairs[i + 1] as string);
  const text = JSON.stringify(packr.unpack(payload), (_key, value: unknown) => (typeof value === "string" && swaps.has(value) ? swaps.get(value) : value));
  return packr.pack(JSON.parse(text) as unknown);
}

/**
 * What someone holding the data directory can do without the key: read every frame, change what they
 * like (or drop a frame: `edit` returns undefined), and write a brand-new log in its place — every chain
 * value, CRC and segment header recomputed by the storage code itself — and delete the snapshots.
 */
export function forge(shardDir: string, edit: (payload: Buffer) => Buffer | undefined): void {
  const payloads = logEntries(shardDir).flatMap((e) => {
    const edited = edit(e.payload);
    return edited === undefined ? [] : [edited];
  });
  for (const name of readdirSync(shardDir)) rmSync(path.join(shardDir, name), { recursive: true, force: true });
  const log = SegmentLog.open({ dir: shardDir });
  for (const payload of payloads) log.append(payload);
  log.commitSync();
  log.close();
}

/**
 * Data directories with one shard directory each, removed after each test of the file that calls
 * this (at its top level): `dataDir()` gives the root and `shards/00`.
 */
export function shardDataDirs(prefix: string): () => { root: string; shardDir: string } {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    while (cleanups.length > 0) cleanups.pop()?.();
  });
  return () => {
    const t = tempDir(prefix);
    cleanups.push(t.cleanup);
    const shardDir = path.join(t.dir, "shards", "00");
    mkdirSync(shardDir, { recursive: true });
    return { root: t.dir, shardDir };
  };
}

/**
 * What a forger without the key can do to heads: each head's root recomputed over the (rewritten)
 * entries before it, its signature kept.
 */
export function withRecomputedRoots(payloads: readonly Buffer[]): Buffer[] {
  const tree = new CompactRange();
  return payloads.map((payload) => {
    const entry = decodeLogEntry(payload);
    const out = entry.kind === "head" ? encodeLoggedHead({ ...entry.head, rootHash: tree.root() }) : payload;
    tree.append(leafHash(out));
    return out;
  });
}
