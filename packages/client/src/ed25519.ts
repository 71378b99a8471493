/**
 * Client side of the Ed25519 proof (spec §5.1), in pure JavaScript (@noble/ed25519): create a key
 * pair to provision, and sign a challenge's `signingPayload`. Private keys are the 32-byte RFC 8032
 * seed as unpadded base64url; public keys are what `POST /v1/admin/identities` expects.
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { base64UrlDecode, base64UrlEncode } from "./wire/index.js";

// noble's synchronous API needs a SHA-512 implementation.
ed.hashes.sha512 = sha512;

export interface Ed25519KeyPair {
  /** Unpadded base64url of the 32-byte secret seed. Keep it secret. */
  readonly privateKey: string;
  /** Unpadded base64url of the 32-byte public key (43 characters). */
  readonly publicKey: string;
}

export function generateKeyPair(): Ed25519KeyPair {
  const secretKey = ed.utils.randomSecretKey();
  return { privateKey: base64UrlEncode(secretKey), publicKey: base64UrlEncode(ed.getPublicKey(secretKey)) };
}

export function publicKeyFromPrivateKey(privateKey: string): string {
  return base64UrlEncode(ed.getPublicKey(decodeSecretKey(privateKey)));
}

/**
 * Signs the decoded bytes of a challenge's `signingPayload` (spec §5.1 step 2) and returns the
 * unpadded base64url signature for `POST /v1/auth/tokens`.
 */
export function signSigningPayload(signingPayload: string, privateKey: string): string {
  return base64UrlEncode(ed.sign(base64UrlDecode(signingPayload), decodeSecretKey(privateKey)));
}

function decodeSecretKey(privateKey: string): Uint8Array {
  const bytes = base64UrlDecode(privateKey);
  if (bytes.length !== 32) throw new Error("an Ed25519 private key is 32 bytes (unpadded base64url, 43 characters)");
  return bytes;
}
