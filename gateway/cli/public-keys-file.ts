/**
 * The service's public keys for `verify --public-key FILE`: a PEM public key (`-----BEGIN PUBLIC
 * KEY-----`, as `market-service signing-key show` or openssl prints it), or a key history (JSON
 * `{version, keys}` as AUDIT_KEY_HISTORY_FILE holds it; `{keys}` as `GET /v1/audit/keys` returns it),
 * whose chain of endorsements is checked first: every key in it is then trusted as far as its first
 * key is (docs/proofs.md, "Signing keys").
 */
import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { checkKeyHistory, KEY_HISTORY_VERSION, keyIdOf } from "@market-service/client/audit";
import { rawEd25519PublicKey } from "../../engine/audit/signing/audit-signer.js";
import { historyPublicKeys, type PublicKeyEntry } from "../../engine/audit/signing/head-keys.js";

export type { PublicKeyEntry };

/**
 * `verify --public-key`: the keys, undefined when the option is not given, or null when the file is
 * unusable (the problem was written to stderr, exit status 2).
 */
export function publicKeysOption(filePath: string | undefined): PublicKeyEntry[] | undefined | null {
  if (filePath === undefined) return undefined;
  try {
    return readPublicKeys(filePath);
  } catch (error) {
    process.stderr.write(`verify: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
    return null;
  }
}

/** The keys in `filePath`; throws an Error naming the file and what is wrong. */
export function readPublicKeys(filePath: string): PublicKeyEntry[] {
  let text: string;
  try {
    text = readFileSync(filePath, "utf8");
  } catch (error) {
    throw new Error(`--public-key ${filePath}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (text.includes("-----BEGIN PUBLIC KEY-----")) return [pemKey(filePath, text)];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`--public-key ${filePath}: neither a PEM public key nor a JSON key history`);
  }
  const history = typeof value === "object" && value !== null && !("version" in value) ? { version: KEY_HISTORY_VERSION, ...value } : value;
  const checked = checkKeyHistory(history);
  if (!checked.ok) throw new Error(`--public-key ${filePath}: ${checked.problem}`);
  return historyPublicKeys(checked.history);
}

function pemKey(filePath: string, text: string): PublicKeyEntry {
  let publicKey: Uint8Array;
  try {
    const key = createPublicKey(text);
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`a ${key.asymmetricKeyType ?? "unknown"} key, not Ed25519`);
    publicKey = rawEd25519PublicKey(key);
  } catch (error) {
    throw new Error(`--public-key ${filePath}: not an Ed25519 public key (${error instanceof Error ? error.message : String(error)})`);
  }
  return { keyId: keyIdOf(publicKey), publicKey };
}
