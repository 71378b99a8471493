/** RFC 9162 §2.1.1 hashing (placeholder until the merkle branch lands; same API). */
import { sha256 } from "@noble/hashes/sha2.js";

export const EMPTY_TREE_ROOT: Uint8Array = sha256(new Uint8Array(0));

export function leafHash(bytes: Uint8Array): Uint8Array {
  const input = new Uint8Array(1 + bytes.length);
  input[0] = 0x00;
  input.set(bytes, 1);
  return sha256(input);
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const input = new Uint8Array(65);
  input[0] = 0x01;
  input.set(left, 1);
  input.set(right, 33);
  return sha256(input);
}
