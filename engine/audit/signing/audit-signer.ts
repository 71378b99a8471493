/**
 * The service's audit signer: signs log heads with the Ed25519 private key the gateway loaded
 * (gateway/audit-signing-key.ts). The key stays inside a node:crypto KeyObject: its bytes are never
 * exported, so no log line, error or JSON can carry them (JSON.stringify and util.inspect of a
 * signer show its key id and public key only).
 *
 * Shard workers sign too: `auditSignerWorkerData` gives what to put in a worker's workerData (the
 * KeyObject itself, which Node clones into the worker thread) and `auditSignerFromWorkerData`
 * rebuilds the signer there.
 */
import { createPublicKey, sign, type KeyObject } from "node:crypto";
import { inspect } from "node:util";
import { ED25519_PUBLIC_KEY_BYTES, keyIdOf } from "@market-service/client/audit";

export interface AuditSigner {
  /** keyIdOf(publicKey). */
  readonly keyId: string;
  /** The raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** The 64-byte Ed25519 signature of `message` (RFC 8032, pure Ed25519). */
  sign(message: Uint8Array): Uint8Array;
}

/** What a worker thread needs to rebuild the signer: pass it as (part of) workerData. */
export interface AuditSignerWorkerData {
  readonly privateKey: KeyObject;
}

/** The raw public key of an Ed25519 key (private or public) from its SPKI DER: the last 32 bytes. */
export function rawEd25519PublicKey(key: KeyObject): Uint8Array {
  const spki = (key.type === "public" ? key : createPublicKey(key)).export({ format: "der", type: "spki" });
  return new Uint8Array(spki.subarray(spki.length - ED25519_PUBLIC_KEY_BYTES));
}

class KeyObjectSigner implements AuditSigner {
  readonly keyId: string;
  readonly publicKey: Uint8Array;
  readonly #privateKey: KeyObject;

  constructor(privateKey: KeyObject) {
    if (privateKey.type !== "private" || privateKey.asymmetricKeyType !== "ed25519") throw new TypeError("an audit signer needs an Ed25519 private key");
    this.#privateKey = privateKey;
    this.publicKey = rawEd25519PublicKey(privateKey);
    this.keyId = keyIdOf(this.publicKey);
  }

  sign(message: Uint8Array): Uint8Array {
    return new Uint8Array(sign(null, message, this.#privateKey));
  }

  workerData(): AuditSignerWorkerData {
    return { privateKey: this.#privateKey };
  }

  toJSON(): { keyId: string } {
    return { keyId: this.keyId };
  }

  [inspect.custom](): string {
    return `AuditSigner { keyId: '${this.keyId}' }`;
  }
}

export function auditSignerFromPrivateKey(privateKey: KeyObject): AuditSigner {
  return new KeyObjectSigner(privateKey);
}

export function auditSignerWorkerData(signer: AuditSigner): AuditSignerWorkerData {
  if (!(signer instanceof KeyObjectSigner)) throw new TypeError("only a signer built by auditSignerFromPrivateKey can be passed to a worker");
  return signer.workerData();
}

/** In a worker thread: the signer whose workerData the parent passed. */
export function auditSignerFromWorkerData(data: AuditSignerWorkerData): AuditSigner {
  return new KeyObjectSigner(data.privateKey);
}
