/**
 * Identity commands as the simulation's clients and checks see them: the fingerprint the store
 * claims a command under (store.ts `execute`), a reply in the shape the checks compare (a market
 * command's reply: JSON text or code and message), and an Ed25519 public key for a name. The identity
 * store's replies are the frames' own (`r`), so the stream's reply and a node's compare as text.
 */
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { commandFingerprint } from "../../engine/idempotency/fingerprint.js";
import { prepareRequest, type IdentityRequest } from "../../engine/identity/store.js";
import type { IdentityReply } from "../../engine/rules/identity/types.js";
import { errorReply, okReply, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";

export function identityFingerprint(request: IdentityRequest): string {
  const prepared = prepareRequest(request);
  if (!prepared.ok) throw new Error(`the simulation's workload made an invalid identity command: ${prepared.rejection.message}`);
  return commandFingerprint(request.operation, prepared.args);
}

export function identityReplyAsShardReply(reply: IdentityReply): ShardReply {
  return reply.ok ? okReply(JSON.stringify(reply)) : errorReply(reply.code, reply.message);
}

/** PKCS#8 DER of an Ed25519 private key, up to its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * An Ed25519 public key for `name`, from a private key whose seed is derived from the name (no
 * randomness: the same seed always provisions the same keys; nothing in the simulation signs).
 */
export function publicKeyFor(name: string): string {
  const seed = createHash("sha256").update(`simulated key of ${name}`).digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const { x } = createPublicKey(privateKey).export({ format: "jwk" });
  if (typeof x !== "string") throw new Error("an Ed25519 public key exports its point as x");
  return x;
}
