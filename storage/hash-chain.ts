/**
 * Tamper-evidence hash chain: chain_n = SHA-256(chain_{n-1} || payload_n), chain_0 = 32 zero
 * bytes. A CRC only detects accidental damage (anyone can recompute it); the chain makes an
 * edited payload visible unless every later chain value is rewritten too, and then the chain
 * head no longer matches the one recorded elsewhere (snapshots, replicas, published receipts).
 * node:crypto is used because it is faster than pure-JS SHA-256 for small inputs.
 */
import { hash } from "node:crypto";
import { assertStorage } from "./assert.js";

export const CHAIN_HASH_BYTES = 32;

/** chain_0: a fresh 32-byte zero buffer (fresh so no caller can mutate a shared constant). */
export function genesisChainHash(): Buffer {
  return Buffer.alloc(CHAIN_HASH_BYTES);
}

/**
 * SHA-256 of one contiguous view, written at `offset` of `target` (which `data` may overlap: the
 * digest is complete before anything is written). One-shot `crypto.hash` is the fastest call; its
 * digest is taken as latin1 text, one character per byte and so exact, rather than as a Buffer: in
 * Node 20 each Buffer digest is a fresh ArrayBuffer, whose allocation and sweeping cost a log more
 * than hashing an entry does (docs/storage.md, "What an entry's hashes cost").
 */
export function sha256Into(data: Uint8Array, target: Uint8Array, offset: number): void {
  assertStorage(offset >= 0 && offset + CHAIN_HASH_BYTES <= target.length, "a SHA-256 digest does not fit its target");
  const digest = hash("sha256", data, "binary"); // Node's other name for latin1: one character per byte
  for (let i = 0; i < CHAIN_HASH_BYTES; i++) target[offset + i] = digest.charCodeAt(i);
}

/** SHA-256 of one contiguous view, as a new Buffer (from Node's pool of small buffers). */
export function sha256(data: Uint8Array): Buffer {
  const digest = Buffer.allocUnsafe(CHAIN_HASH_BYTES);
  sha256Into(data, digest, 0);
  return digest;
}

/** Reference definition of one chain step (allocates; the log uses an in-place variant). */
export function nextChainHash(previous: Uint8Array, payload: Uint8Array): Buffer {
  assertStorage(previous.length === CHAIN_HASH_BYTES, "previous chain hash must be 32 bytes");
  const joined = Buffer.allocUnsafe(CHAIN_HASH_BYTES + payload.length);
  joined.set(previous, 0);
  joined.set(payload, CHAIN_HASH_BYTES);
  return sha256(joined);
}

/** The first 8 bytes of a chain value in hex, enough to tell two chains apart in a message. */
export function shortHex(chain: Buffer): string {
  return chain.subarray(0, 8).toString("hex");
}
