/**
 * The audit signing key history (docs/proofs.md, "Signing keys"): every key the service has signed
 * with, oldest first, each one after the first endorsed by the key before it. Whoever trusts any one
 * key of the history (typically the first they saw) can check every later key from the history alone;
 * whoever holds the data directory but no key cannot add one.
 *
 * Pure and free of Node APIs: the client SDK checks histories in browsers. Signatures are checked
 * with @noble/ed25519 in RFC 8032's strict mode (`zip215: false`), so this verifier accepts exactly
 * what a strict verifier in another language accepts.
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { base64UrlDecode, base64UrlEncode } from "../wire/base64url.js";
import { ED25519_PUBLIC_KEY_BYTES, KEY_ID_BYTES, KEY_ID_PATTERN, keyIdOf } from "./key-id.js";

// noble's synchronous verify needs a SHA-512 implementation (the same one the client sets).
ed.hashes.sha512 = sha512;

export const KEY_HISTORY_VERSION = 1;
/** Prefix of every endorsement's signed bytes, so no other signature of the key can pass as one. */
export const ENDORSEMENT_DOMAIN = "market-service audit-key endorsement v1";
const SIGNATURE_BYTES = 64;
const DOMAIN_BYTES = new TextEncoder().encode(ENDORSEMENT_DOMAIN);

export interface KeyHistoryEntry {
  /** keyIdOf(publicKey): 32 lowercase hex digits. */
  readonly keyId: string;
  /** The raw 32-byte Ed25519 public key, unpadded base64url (43 characters). */
  readonly publicKey: string;
  /** From when the key signs (ms since the epoch); 0 for a first key in force since the log began. */
  readonly activatedAtMs: number;
  /** The previous key's signature over endorsementMessage(this entry), unpadded base64url; null for the first key. */
  readonly endorsement: string | null;
}

export interface KeyHistory {
  readonly version: typeof KEY_HISTORY_VERSION;
  /** Oldest first; the last is the key in force. */
  readonly keys: readonly KeyHistoryEntry[];
}

export type KeyHistoryResult = { ok: true; history: KeyHistory } | { ok: false; problem: string };

/**
 * The bytes an endorsement signs: the domain's ASCII text, one zero byte, the key id's 16 bytes, the
 * 32 public key bytes and activatedAtMs as an unsigned 64-bit big-endian integer (fixed lengths, so
 * no two entries share a message).
 */
export function endorsementMessage(entry: Pick<KeyHistoryEntry, "keyId" | "publicKey" | "activatedAtMs">): Uint8Array {
  if (!KEY_ID_PATTERN.test(entry.keyId)) throw new RangeError("keyId must be 32 lowercase hex digits");
  const publicKey = base64UrlDecode(entry.publicKey);
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) throw new RangeError("publicKey must encode 32 bytes");
  if (!Number.isSafeInteger(entry.activatedAtMs) || entry.activatedAtMs < 0) throw new RangeError("activatedAtMs must be a non-negative safe integer");
  const message = new Uint8Array(DOMAIN_BYTES.length + 1 + KEY_ID_BYTES + ED25519_PUBLIC_KEY_BYTES + 8);
  message.set(DOMAIN_BYTES, 0);
  let at = DOMAIN_BYTES.length + 1;
  message.set(hexToBytes(entry.keyId), at);
  at += KEY_ID_BYTES;
  message.set(publicKey, at);
  at += ED25519_PUBLIC_KEY_BYTES;
  new DataView(message.buffer).setBigUint64(at, BigInt(entry.activatedAtMs), false);
  return message;
}

/** The history of a service that has only ever had `publicKey`: in force since the log began. */
export function firstKeyHistory(publicKey: Uint8Array): KeyHistory {
  return { version: KEY_HISTORY_VERSION, keys: [{ keyId: keyIdOf(publicKey), publicKey: base64UrlEncode(publicKey), activatedAtMs: 0, endorsement: null }] };
}

/**
 * `history` with `publicKey` appended as the key in force from `activatedAtMs`, endorsed by
 * `signWithCurrent` (a signature by the history's last key). The result is checked before it is
 * returned: a signer that is not the last key, a key already in the history or a time not after the
 * last key's gives the problem instead.
 */
export function extendKeyHistory(history: KeyHistory, publicKey: Uint8Array, activatedAtMs: number, signWithCurrent: (message: Uint8Array) => Uint8Array): KeyHistoryResult {
  const unsigned = { keyId: keyIdOf(publicKey), publicKey: base64UrlEncode(publicKey), activatedAtMs };
  let endorsement: string;
  try {
    endorsement = base64UrlEncode(signWithCurrent(endorsementMessage(unsigned)));
  } catch (error) {
    return { ok: false, problem: `activatedAtMs: ${error instanceof Error ? error.message : String(error)}` };
  }
  const extended: KeyHistory = { version: KEY_HISTORY_VERSION, keys: [...history.keys, { ...unsigned, endorsement }] };
  const check = verifyKeyHistory(extended);
  return check.ok ? { ok: true, history: extended } : check;
}

const ENTRY_MEMBERS = ["keyId", "publicKey", "activatedAtMs", "endorsement"];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function unknownMember(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(value).find((name) => !allowed.includes(name));
}

/** A strict base64url decode: undefined unless `text` is canonical unpadded base64url. */
function decodeStrict(text: string): Uint8Array | undefined {
  try {
    return base64UrlDecode(text);
  } catch {
    return undefined;
  }
}

/** The shape of a history (members, types, lengths), before any signature is checked. */
export function parseKeyHistory(value: unknown): KeyHistoryResult {
  if (!isPlainObject(value)) return { ok: false, problem: "the history must be a JSON object {version, keys}" };
  const extra = unknownMember(value, ["version", "keys"]);
  if (extra !== undefined) return { ok: false, problem: `unknown member ${JSON.stringify(extra)} (only version and keys)` };
  if (value["version"] !== KEY_HISTORY_VERSION) return { ok: false, problem: `version must be ${KEY_HISTORY_VERSION}` };
  const keys = value["keys"];
  if (!Array.isArray(keys) || keys.length === 0) return { ok: false, problem: "keys must be a non-empty array" };
  const entries: KeyHistoryEntry[] = [];
  for (const [index, entry] of keys.entries()) {
    const at = `keys[${index}]`;
    if (!isPlainObject(entry)) return { ok: false, problem: `${at} must be an object {keyId, publicKey, activatedAtMs, endorsement}` };
    const member = unknownMember(entry, ENTRY_MEMBERS);
    if (member !== undefined) return { ok: false, problem: `${at} has an unknown member ${JSON.stringify(member)}` };
    const { keyId, publicKey, activatedAtMs, endorsement } = entry;
    if (typeof keyId !== "string" || !KEY_ID_PATTERN.test(keyId)) return { ok: false, problem: `${at}.keyId must be 32 lowercase hex digits` };
    if (typeof publicKey !== "string" || decodeStrict(publicKey)?.length !== ED25519_PUBLIC_KEY_BYTES) {
      return { ok: false, problem: `${at}.publicKey must be unpadded base64url of a 32-byte Ed25519 public key` };
    }
    if (typeof activatedAtMs !== "number" || !Number.isSafeInteger(activatedAtMs) || activatedAtMs < 0) {
      return { ok: false, problem: `${at}.activatedAtMs must be a non-negative integer (ms since the epoch)` };
    }
    if (endorsement !== null && (typeof endorsement !== "string" || decodeStrict(endorsement)?.length !== SIGNATURE_BYTES)) {
      return { ok: false, problem: `${at}.endorsement must be null or unpadded base64url of a 64-byte Ed25519 signature` };
    }
    entries.push({ keyId, publicKey, activatedAtMs, endorsement });
  }
  return { ok: true, history: { version: KEY_HISTORY_VERSION, keys: entries } };
}

/**
 * Checks the chain: each key id is its key's id, no key appears twice, activation times increase,
 * the first key has no endorsement, and every later key's endorsement verifies under the key before
 * it. With `trustedKeyId` the history must also contain that key (the one the checker already
 * trusts); everything after it is then vouched for by it.
 */
export function verifyKeyHistory(history: KeyHistory, options: { trustedKeyId?: string } = {}): { ok: true } | { ok: false; problem: string } {
  const seen = new Set<string>();
  let previous: { publicKey: Uint8Array; activatedAtMs: number } | undefined;
  for (const [index, entry] of history.keys.entries()) {
    const at = `keys[${index}]`;
    const publicKey = decodeStrict(entry.publicKey);
    if (publicKey?.length !== ED25519_PUBLIC_KEY_BYTES) return { ok: false, problem: `${at}.publicKey is not a 32-byte key` };
    if (keyIdOf(publicKey) !== entry.keyId) return { ok: false, problem: `${at}.keyId ${entry.keyId} is not the id of its publicKey (${keyIdOf(publicKey)})` };
    if (seen.has(entry.keyId)) return { ok: false, problem: `${at}: key ${entry.keyId} appears twice` };
    seen.add(entry.keyId);
    if (previous === undefined) {
      if (entry.endorsement !== null) return { ok: false, problem: `${at}.endorsement must be null: the first key has no key before it` };
    } else {
      if (!(entry.activatedAtMs > previous.activatedAtMs)) return { ok: false, problem: `${at}.activatedAtMs must be after the previous key's (${previous.activatedAtMs})` };
      const signature = entry.endorsement === null ? undefined : decodeStrict(entry.endorsement);
      if (signature === undefined) return { ok: false, problem: `${at}.endorsement is missing: every key after the first is endorsed by the key before it` };
      if (!verifiesStrictly(signature, endorsementMessage(entry), previous.publicKey)) {
        return { ok: false, problem: `${at}.endorsement does not verify under keys[${index - 1}]'s public key` };
      }
    }
    previous = { publicKey, activatedAtMs: entry.activatedAtMs };
  }
  if (previous === undefined) return { ok: false, problem: "the history has no key" };
  if (options.trustedKeyId !== undefined && !seen.has(options.trustedKeyId)) {
    return { ok: false, problem: `the trusted key ${options.trustedKeyId} is not in the history` };
  }
  return { ok: true };
}

/** parseKeyHistory then verifyKeyHistory: a history from a file or a reply, checked whole. */
export function checkKeyHistory(value: unknown, options: { trustedKeyId?: string } = {}): KeyHistoryResult {
  const parsed = parseKeyHistory(value);
  if (!parsed.ok) return parsed;
  const verified = verifyKeyHistory(parsed.history, options);
  return verified.ok ? parsed : verified;
}

/** The key in force: the history's last. */
export function currentKey(history: KeyHistory): KeyHistoryEntry {
  const last = history.keys[history.keys.length - 1];
  if (last === undefined) throw new RangeError("the history has no key");
  return last;
}

function verifiesStrictly(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    // noble throws on a public key that is no curve point: that verifies nothing.
    return false;
  }
}
