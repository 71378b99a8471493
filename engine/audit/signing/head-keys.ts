/**
 * The service's public keys as the service itself checks signed heads with them: recovery checks
 * every head it reads from a log against the key history (docs/storage.md, "Recovery and signed
 * heads"), and `verify --public-key` every head of every log. node:crypto with one KeyObject per key,
 * built once: a pure-JavaScript Ed25519 verification costs about ten times as much, and a restart
 * checks every head recovery reads.
 *
 * The browser's check of a receipt (packages/client/src/audit/proof-file.ts) uses signed-head.ts's pure
 * `verifyHead`; both check the same bytes (`headMessage`).
 */
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { ED25519_PUBLIC_KEY_BYTES, headMessage, type KeyHistory, keyIdOf, type SignedHead } from "@market-service/client/audit";
import { base64UrlDecode, base64UrlEncode } from "@market-service/client/wire";

/** A public key as it travels to a worker thread (plain data). */
export interface PublicKeyEntry {
  readonly keyId: string;
  /** The raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

/** Every key of a (checked) key history, oldest first. */
export function historyPublicKeys(history: KeyHistory): PublicKeyEntry[] {
  return history.keys.map((key) => ({ keyId: key.keyId, publicKey: base64UrlDecode(key.publicKey) }));
}

export class HeadKeys {
  private readonly keys = new Map<string, KeyObject>();

  /** `entries`: every key of the history (keyId must be the key's id: checked). */
  constructor(entries: readonly PublicKeyEntry[]) {
    for (const { keyId, publicKey } of entries) {
      if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES || keyIdOf(publicKey) !== keyId) throw new RangeError(`public key ${keyId} is not a 32-byte Ed25519 key with that key id`);
      this.keys.set(keyId, createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: base64UrlEncode(publicKey) }, format: "jwk" }));
    }
  }

  /** The key ids, oldest first as given. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Why `head`'s signature does not hold (a sentence that goes after "the head … "), or undefined. */
  signatureProblem(head: SignedHead): string | undefined {
    const key = this.keys.get(head.keyId);
    if (key === undefined) return `is signed with key ${head.keyId}, which is not among the public keys given (${this.keyIds.join(", ")})`;
    let valid: boolean;
    try {
      valid = head.signature.length === 64 && verify(null, headMessage(head), key, head.signature);
    } catch {
      valid = false;
    }
    return valid ? undefined : `has a signature that does not verify with key ${head.keyId}`;
  }
}
