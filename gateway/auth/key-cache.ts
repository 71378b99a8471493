/**
 * node:crypto KeyObjects for Ed25519 public keys, cached by key text: building one from DER costs
 * about as much as a verify (toolchain.md §2: 4.4k verifies/s uncached vs 8.3k cached). Bounded:
 * beyond `maxEntries` the oldest entry is dropped.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { assert } from "../../engine/rules/common/assert.js";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 raw key bytes follow. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
export const DEFAULT_KEY_CACHE_ENTRIES = 10_000;

export function ed25519PublicKeyObject(rawPublicKey: Uint8Array): KeyObject {
  assert(rawPublicKey.length === 32, "an Ed25519 public key has 32 bytes");
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, rawPublicKey]), format: "der", type: "spki" });
}

export class Ed25519KeyCache {
  private readonly byKeyText = new Map<string, KeyObject>();

  constructor(readonly maxEntries: number = DEFAULT_KEY_CACHE_ENTRIES) {
    assert(Number.isSafeInteger(maxEntries) && maxEntries >= 1, "maxEntries must be a positive integer");
  }

  get size(): number {
    return this.byKeyText.size;
  }

  /** `publicKeyText` is the stored (already validated) unpadded base64url of the 32-byte key. */
  get(publicKeyText: string): KeyObject {
    let keyObject = this.byKeyText.get(publicKeyText);
    if (keyObject === undefined) {
      keyObject = ed25519PublicKeyObject(Buffer.from(publicKeyText, "base64url"));
      if (this.byKeyText.size >= this.maxEntries) {
        const oldest = this.byKeyText.keys().next();
        if (oldest.done !== true) this.byKeyText.delete(oldest.value);
      }
      this.byKeyText.set(publicKeyText, keyObject);
    }
    return keyObject;
  }
}
