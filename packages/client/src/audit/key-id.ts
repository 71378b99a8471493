/**
 * The id of an audit signing key: lowercase hex of the first 16 bytes of SHA-256 over the raw 32-byte
 * Ed25519 public key (docs/proofs.md, "Signing keys"). Pure and free of Node APIs (@noble/hashes),
 * so the client SDK computes the same id in a browser.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const KEY_ID_BYTES = 16;
/** 32 lowercase hex digits. */
export const KEY_ID_PATTERN = /^[0-9a-f]{32}$/;

export function keyIdOf(publicKey: Uint8Array): string {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) throw new RangeError(`an Ed25519 public key is ${ED25519_PUBLIC_KEY_BYTES} bytes, not ${publicKey.length}`);
  return bytesToHex(sha256(publicKey).subarray(0, KEY_ID_BYTES));
}
