/**
 * The hashes of an RFC 9162 Merkle tree (§2.1.1), with SHA-256:
 *   leaf:  SHA-256(0x00 ‖ entry bytes)
 *   node:  SHA-256(0x01 ‖ left ‖ right)
 *   empty tree: SHA-256 of the empty string.
 * The distinct prefixes keep a leaf from being passed off as an inner node (second preimages).
 *
 * Pure JavaScript (@noble/hashes, no Node API): the SDK verifies proofs in browsers with this file.
 */
import { sha256 } from "@noble/hashes/sha2.js";

/** Every hash of the tree, leaf or node, is this many bytes. */
export const HASH_BYTES = 32;

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = 0x01;

/** SHA-256(0x00 ‖ bytes): the hash of one log entry's payload. */
export function leafHash(bytes: Uint8Array): Uint8Array {
  // Two updates rather than one concatenation: payloads can be large and need not be copied.
  return sha256.create().update(LEAF_PREFIX).update(bytes).digest();
}

// One reused input buffer: a node hash is computed for nearly every append, and JavaScript runs
// one call at a time, so the buffer is never shared between two calls in flight.
const nodeInput = new Uint8Array(1 + 2 * HASH_BYTES);
nodeInput[0] = NODE_PREFIX;

/** SHA-256(0x01 ‖ left ‖ right), both children 32-byte hashes. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.length !== HASH_BYTES || right.length !== HASH_BYTES) {
    throw new RangeError(`nodeHash takes two ${HASH_BYTES}-byte hashes; got ${left.length} and ${right.length} bytes`);
  }
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_BYTES);
  return sha256(nodeInput);
}

/** The root of the tree with no leaves: SHA-256 of the empty string (a fresh copy each call). */
export function emptyTreeHash(): Uint8Array {
  return sha256(new Uint8Array(0));
}

/** Whether a value is a 32-byte hash (a Uint8Array of the right length); never throws. */
export function isHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === HASH_BYTES;
}

/**
 * The two hashes of the tree as one pair, so that a writer can compute them with another SHA-256
 * implementation (the service's shards use node:crypto's, engine/audit/node-tree-hashing.ts: the
 * same bytes, faster in Node); everything that must run in a browser uses `TREE_HASHING`.
 */
export interface TreeHashing {
  leafHash(bytes: Uint8Array): Uint8Array;
  nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array;
}

/** The tree's hashes with @noble/hashes (this file's `leafHash` and `nodeHash`). */
export const TREE_HASHING: TreeHashing = { leafHash, nodeHash };

/** Byte-for-byte equality of two hashes. Not constant-time: every hash here is public. */
export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
