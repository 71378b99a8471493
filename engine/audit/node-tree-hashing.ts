/**
 * The Merkle tree's hashes (packages/client/src/audit/tree-hash.ts: leaf = SHA-256(0x00 ‖ bytes), node =
 * SHA-256(0x01 ‖ left ‖ right)) computed with node:crypto's SHA-256 instead of @noble/hashes': the
 * same bytes (test/audit/merkle/node-tree-hashing.test.ts), at a fraction of the cost per hash, which a
 * shard pays for every entry it appends (bench:storm --scenario heads measures what heads cost).
 * Node only: the pure tree code and everything a browser runs keep noble's.
 */
import { sha256Into } from "../../storage/hash-chain.js";
import type { TreeHashing } from "@market-service/client/audit";

const HASH_BYTES = 32;

/** A new 32-byte array (small enough for V8 to keep inside its heap, with no ArrayBuffer of its own). */
function sha256(data: Uint8Array): Uint8Array {
  const digest = new Uint8Array(HASH_BYTES);
  sha256Into(data, digest, 0);
  return digest;
}

// Reused input buffers (JavaScript runs one call at a time). A shard hashes a leaf for every entry it
// appends, and a fresh ArrayBuffer per input costs more than the hash, as one per digest does
// (storage/hash-chain.ts, sha256Into).
const nodeInput = new Uint8Array(1 + 2 * HASH_BYTES);
nodeInput[0] = 0x01;
/** Leaf inputs (an entry after its 0x00) up to this size are built in `leafInput`; a larger one (a market with a big subject) gets one of its own. */
const REUSED_LEAF_INPUT_BYTES = 64 * 1024;
const leafInput = new Uint8Array(REUSED_LEAF_INPUT_BYTES); // leafInput[0] stays 0x00

export const NODE_TREE_HASHING: TreeHashing = {
  leafHash(bytes: Uint8Array): Uint8Array {
    const inputBytes = 1 + bytes.length;
    const input = inputBytes <= REUSED_LEAF_INPUT_BYTES ? leafInput.subarray(0, inputBytes) : new Uint8Array(inputBytes);
    input.set(bytes, 1);
    return sha256(input);
  },
  nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
    if (left.length !== HASH_BYTES || right.length !== HASH_BYTES) throw new RangeError(`nodeHash takes two ${HASH_BYTES}-byte hashes; got ${left.length} and ${right.length} bytes`);
    nodeInput.set(left, 1);
    nodeInput.set(right, 1 + HASH_BYTES);
    return sha256(nodeInput);
  },
};
