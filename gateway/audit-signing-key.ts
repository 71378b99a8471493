/**
 * The service's audit signing key and its public history, loaded at start (decisions.md I32):
 *
 * - AUDIT_SIGNING_KEY_FILE names an Ed25519 private key, PEM PKCS#8 (`openssl genpkey -algorithm
 *   ed25519`). It must be a regular file no group or other may access (like ssh's keys) and must lie
 *   outside DATA_DIR, real paths compared: the point of signing is that whoever holds the data
 *   directory cannot sign.
 * - Unset (quick start): a key is generated once at DATA_DIR/audit-signing-key.pem (0600, written
 *   atomically) and reused; every start then carries a warning saying what that gives up.
 * - AUDIT_KEY_HISTORY_FILE names the key history written by `market-service signing-key rotate`; its
 *   chain must verify and its last key must be the configured one. Unset: the key alone.
 *
 * Every refusal is a ConfigError naming the setting (or CLI option) and the path; none carries key
 * bytes. The private key never leaves its KeyObject (engine/audit/signing/audit-signer.ts).
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigError } from "./auth/config-error.js";
import { writeFileAtomically } from "../storage/atomic-file.js";
import { auditSignerFromPrivateKey, type AuditSigner } from "../engine/audit/signing/audit-signer.js";
import { checkKeyHistory, currentKey, firstKeyHistory, type KeyHistory } from "@market-service/client/audit";

export const SIGNING_KEY_SETTING = "AUDIT_SIGNING_KEY_FILE";
export const KEY_HISTORY_SETTING = "AUDIT_KEY_HISTORY_FILE";
/** The quick-start key's name in DATA_DIR (data/.gitignore-d with the rest of data/). */
export const QUICK_START_KEY_FILE_NAME = "audit-signing-key.pem";

export interface AuditKeys {
  readonly signer: AuditSigner;
  /** What GET /v1/audit/keys publishes: the history, the signer's key last. */
  readonly history: KeyHistory;
  readonly keyFile: string;
  /** The quick-start key is in use: log this warning (it names no secret) at every start. */
  readonly warning: string | undefined;
}

export interface AuditKeySettings {
  readonly dataDir: string;
  readonly auditSigningKeyFile: string | undefined;
  readonly auditKeyHistoryFile: string | undefined;
}

/**
 * Loads the signer and its history as the service uses them. With `generate: false` (the CLI's
 * `signing-key show`) a missing quick-start key is an error instead of being created.
 */
export function loadAuditKeys(settings: AuditKeySettings, options: { generate: boolean } = { generate: true }): AuditKeys {
  let keyFile: string;
  let privateKey: KeyObject;
  let warning: string | undefined;
  if (settings.auditSigningKeyFile !== undefined) {
    keyFile = settings.auditSigningKeyFile;
    privateKey = readPrivateKeyFile(SIGNING_KEY_SETTING, keyFile, { outsideDir: settings.dataDir });
  } else {
    keyFile = path.join(settings.dataDir, QUICK_START_KEY_FILE_NAME);
    const generated = !fs.existsSync(keyFile);
    if (generated && !options.generate) throw new ConfigError(SIGNING_KEY_SETTING, `is not set and there is no quick-start key at ${keyFile} (the service creates it on its first start)`);
    privateKey = generated ? generateQuickStartKey(keyFile) : readPrivateKeyFile(SIGNING_KEY_SETTING, keyFile, { quickStart: true });
    warning = quickStartWarning(keyFile, generated);
  }
  const signer = auditSignerFromPrivateKey(privateKey);
  const history = settings.auditKeyHistoryFile === undefined ? firstKeyHistory(signer.publicKey) : readKeyHistoryFile(KEY_HISTORY_SETTING, settings.auditKeyHistoryFile);
  const last = currentKey(history);
  if (last.keyId !== signer.keyId) {
    throw new ConfigError(
      KEY_HISTORY_SETTING,
      `${settings.auditKeyHistoryFile ?? ""}: its last key is ${last.keyId}, but the signing key ${keyFile} is ${signer.keyId}; after \`signing-key rotate\` set ${SIGNING_KEY_SETTING} to the new key`,
    );
  }
  return { signer, history, keyFile, warning };
}

function quickStartWarning(keyFile: string, generated: boolean): string {
  return (
    `${SIGNING_KEY_SETTING} is not set: audit log heads are signed with the quick-start key ${keyFile}` +
    `${generated ? ", generated on this start," : ""} inside the data directory, so whoever holds the data directory can forge signed heads ` +
    `and an outsider's check of a signed head proves nothing against them. Fix: create a key outside DATA_DIR ` +
    `(openssl genpkey -algorithm ed25519 -out /etc/market-service/audit-key.pem; chmod 600 it), endorse it with ` +
    `\`market-service signing-key rotate --key ${keyFile} --new <that key> --history <history.json>\`, and set ` +
    `${SIGNING_KEY_SETTING} and ${KEY_HISTORY_SETTING} to them (docs/proofs.md, "Signing keys").`
  );
}

function generateQuickStartKey(keyFile: string): KeyObject {
  const { privateKey } = generateKeyPairSync("ed25519");
  try {
    writeFileAtomically(keyFile, privateKey.export({ format: "pem", type: "pkcs8" }).toString(), 0o600);
  } catch {
    throw new ConfigError(SIGNING_KEY_SETTING, `is not set and the quick-start key ${keyFile} cannot be created (is DATA_DIR writable?)`);
  }
  return privateKey;
}

/** Real path of `target`, or of its nearest existing ancestor joined with the rest. */
function realPathOf(target: string): string {
  const resolved = path.resolve(target);
  try {
    return fs.realpathSync(resolved);
  } catch {
    const parent = path.dirname(resolved);
    return parent === resolved ? resolved : path.join(realPathOf(parent), path.basename(resolved));
  }
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(realPathOf(dir), realPathOf(file));
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative));
}

/**
 * Reads an Ed25519 private key file for `label` (a setting or a CLI option), refusing what must not
 * be used: a missing, unreadable or non-regular file, one group or others may access, one inside
 * `outsideDir` (real paths), or anything but a PEM PKCS#8 Ed25519 private key.
 */
export function readPrivateKeyFile(label: string, filePath: string, options: { outsideDir?: string; quickStart?: boolean } = {}): KeyObject {
  const what = options.quickStart === true ? `is not set; the quick-start key ${filePath}` : filePath;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(filePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(label, `${what} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`}`);
  }
  if (!stat.isFile()) throw new ConfigError(label, `${what} is not a regular file`);
  if (options.outsideDir !== undefined && isInside(options.outsideDir, filePath)) {
    throw new ConfigError(label, `${what} lies inside DATA_DIR (${options.outsideDir}): whoever holds the data directory could sign; keep the key outside it`);
  }
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(label, `${what} must not be accessible by group or others (mode ${mode.toString(8).padStart(4, "0")}): chmod 600 it`);
  }
  let pem: Buffer;
  try {
    pem = fs.readFileSync(filePath);
  } catch (error) {
    throw new ConfigError(label, `${what} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    // OpenSSL's message is not passed on: it is of no use to the operator and never worth the risk.
    throw new ConfigError(label, `${what} is not a PEM private key (expected an unencrypted PKCS#8 Ed25519 key, as \`openssl genpkey -algorithm ed25519\` writes)`);
  } finally {
    pem.fill(0);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new ConfigError(label, `${what} holds a ${key.asymmetricKeyType ?? "unknown"} key, not an Ed25519 key`);
  return key;
}

/** Reads and checks a key history file (JSON, docs/proofs.md) for `label`: its chain must verify. */
export function readKeyHistoryFile(label: string, filePath: string): KeyHistory {
  let text: string;
  try {
    text = fs.readFileSync(filePath, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(label, `${filePath} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(label, `${filePath} is not valid JSON`);
  }
  const checked = checkKeyHistory(value);
  if (!checked.ok) throw new ConfigError(label, `${filePath} is not a valid key history: ${checked.problem}`);
  return checked.history;
}

/** Writes a key history file (public data: mode 0644), atomically. */
export function writeKeyHistoryFile(filePath: string, history: KeyHistory): void {
  writeFileAtomically(filePath, `${JSON.stringify(history, null, 2)}\n`, 0o644);
}
