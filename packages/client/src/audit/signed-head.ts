/**
 * A signed head: the service's signed statement that log `logId` had `treeSize` entries whose RFC 9162
 * Merkle tree hash is `rootHash`, at `timeMs`. An outsider holding the service's public key checks it
 * with `verifyHead`, and then any inclusion or consistency proof against it (merkle/proof-verify.ts)
 * — without the log, and without trusting whoever holds the data directory (they cannot sign).
 *
 * Pure (no `node:` imports): the typed client checks heads in browsers too. docs/proofs.md, "Signed
 * heads and receipts", defines the signed bytes for verifiers in other languages.
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";

// noble's synchronous API needs a SHA-512 implementation.
ed.hashes.sha512 = sha512;

export interface SignedHead {
  /** Which log: `shard-<n>` on one node, `partition-<p>` in a cluster. */
  readonly logId: string;
  /** Entries the tree covers: entries 1…treeSize of the log (leaf indexes 0…treeSize−1). */
  readonly treeSize: number;
  /** RFC 9162 MTH of those entries' payloads (32 bytes). */
  readonly rootHash: Uint8Array;
  /** When the service signed it (the shard's clock, ms since the epoch). */
  readonly timeMs: number;
  /** The signing key's id (key-id.ts): which published key to check with. */
  readonly keyId: string;
  /** Ed25519 signature (64 bytes) over `headMessage` of the fields above. */
  readonly signature: Uint8Array;
}

export type UnsignedHead = Omit<SignedHead, "keyId" | "signature">;

/** Domain separation: these bytes can be no other message the key signs. */
const HEAD_CONTEXT = new TextEncoder().encode("market-service signed head v1\0");
const MAX_LOG_ID_BYTES = 255;

/**
 * The signed bytes: the context string "market-service signed head v1" and a zero byte, then the log
 * id's length (1 byte) and UTF-8 bytes, the tree size (8 bytes, big-endian), the root hash (32 bytes),
 * and the time (8 bytes, big-endian).
 */
export function headMessage(head: UnsignedHead): Uint8Array {
  const logId = new TextEncoder().encode(head.logId);
  if (logId.length === 0 || logId.length > MAX_LOG_ID_BYTES) throw new RangeError(`a log id is 1…${MAX_LOG_ID_BYTES} bytes of UTF-8, not ${logId.length}`);
  assertCount("treeSize", head.treeSize);
  assertCount("timeMs", head.timeMs);
  if (head.rootHash.length !== 32) throw new RangeError(`rootHash is ${head.rootHash.length} bytes, not 32`);
  const message = new Uint8Array(HEAD_CONTEXT.length + 1 + logId.length + 8 + 32 + 8);
  const view = new DataView(message.buffer);
  let at = 0;
  message.set(HEAD_CONTEXT, at);
  at += HEAD_CONTEXT.length;
  message[at] = logId.length;
  at += 1;
  message.set(logId, at);
  at += logId.length;
  view.setBigUint64(at, BigInt(head.treeSize));
  at += 8;
  message.set(head.rootHash, at);
  at += 32;
  view.setBigUint64(at, BigInt(head.timeMs));
  return message;
}

/** Whether `head.signature` is a valid signature of the head by `publicKey` (32 raw bytes). Never throws. */
export function verifyHead(head: SignedHead, publicKey: Uint8Array): boolean {
  try {
    if (head.signature.length !== 64 || publicKey.length !== 32) return false;
    return ed.verify(head.signature, headMessage(head), publicKey);
  } catch {
    return false;
  }
}

function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} ${value} is not a non-negative integer of at most 2^53−1`);
}
