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

/** SHA-256 of one contiguous view, as a new Buffer. One-shot `crypto.hash` is the fastest call. */
export function sha256(data: Uint8Array): Buffer {
  return hash("sha256", data, "buffer");
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
