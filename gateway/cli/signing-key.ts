/**
 * `market-service signing-key rotate|show`: the audit signing key's rotation and its public keys
 * (docs/proofs.md, "Signing keys"). Output names key ids, public keys and paths, never a private key.
 * A refusal is one line on stderr and exit status 1.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigError } from "../auth/config-error.js";
import { writeFileAtomically } from "../../storage/atomic-file.js";
import { loadAuditKeys, readKeyHistoryFile, readPrivateKeyFile, writeKeyHistoryFile, KEY_HISTORY_SETTING, SIGNING_KEY_SETTING } from "../audit-signing-key.js";
import { loadServiceConfig } from "../config.js";
import { auditSignerFromPrivateKey } from "../../engine/audit/signing/audit-signer.js";
import { currentKey, extendKeyHistory, firstKeyHistory, type KeyHistory } from "@market-service/client/audit";

export interface RotateOptions {
  key: string;
  new: string;
  history: string;
  json?: boolean;
}

export interface ShowOptions {
  key?: string;
  history?: string;
  json?: boolean;
}

function refuse(command: string, message: string): void {
  process.stderr.write(`signing-key ${command}: ${message}\n`);
  process.exitCode = 1;
}

/** Runs `body`, turning a ConfigError (a refused file) into the one-line refusal. */
function refusing(command: string, body: () => void): void {
  try {
    body();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    refuse(command, error.message);
  }
}

/**
 * Endorses `--new` with `--key` and appends it to `--history` (created, starting with `--key`, when
 * it does not exist). `--key` must be the history's last key. A `--new` file that does not exist is
 * generated there (0600). The history is checked whole before it is written, atomically.
 */
export function rotateSigningKey(options: RotateOptions, nowMs: number = Date.now()): void {
  refusing("rotate", () => {
    const current = auditSignerFromPrivateKey(readPrivateKeyFile("--key", options.key));
    const historyExists = fs.existsSync(options.history);
    const history: KeyHistory = historyExists ? readKeyHistoryFile("--history", options.history) : firstKeyHistory(current.publicKey);
    const last = currentKey(history);
    if (last.keyId !== current.keyId) {
      refuse("rotate", `--key ${options.key} is key ${current.keyId}, but the current key of ${options.history} is ${last.keyId}: only the current key can endorse the next`);
      return;
    }
    if (!(nowMs > last.activatedAtMs)) {
      refuse("rotate", `the current key ${last.keyId} is active from ${new Date(last.activatedAtMs).toISOString()}, not before now: is this machine's clock right?`);
      return;
    }
    const generated = !fs.existsSync(options.new);
    const nextKey: KeyObject = generated ? generateKey(options.new) : readPrivateKeyFile("--new", options.new);
    const next = auditSignerFromPrivateKey(nextKey);
    if (history.keys.some((key) => key.keyId === next.keyId)) {
      refuse("rotate", `--new ${options.new} is key ${next.keyId}, which is already in ${options.history}: a rotation needs a new key`);
      return;
    }
    const extended = extendKeyHistory(history, next.publicKey, nowMs, (message) => current.sign(message));
    if (!extended.ok) {
      refuse("rotate", `the extended history would not verify: ${extended.problem}`);
      return;
    }
    writeKeyHistoryFile(options.history, extended.history);
    if (options.json === true) {
      process.stdout.write(`${JSON.stringify({ keys: extended.history.keys })}\n`);
      return;
    }
    process.stdout.write(
      [
        `${generated ? "generated" : "read"} new key ${next.keyId} (${options.new})`,
        `${historyExists ? "extended" : "created"} ${options.history}: ${extended.history.keys.length} keys, chain verified; ${current.keyId} endorses ${next.keyId} from ${new Date(nowMs).toISOString()}`,
        `next: restart the service with ${SIGNING_KEY_SETTING}=${path.resolve(options.new)} ${KEY_HISTORY_SETTING}=${path.resolve(options.history)}`,
        "",
      ].join("\n"),
    );
  });
}

function generateKey(filePath: string): KeyObject {
  const { privateKey } = generateKeyPairSync("ed25519");
  writeFileAtomically(filePath, privateKey.export({ format: "pem", type: "pkcs8" }).toString(), 0o600);
  return privateKey;
}

/**
 * Prints public keys and key ids: of `--key`, of every key of `--history` (its chain checked), of
 * both (the key must be the history's last), or, with neither, what the service would publish from
 * its settings (AUDIT_SIGNING_KEY_FILE / AUDIT_KEY_HISTORY_FILE / the quick-start key in DATA_DIR).
 */
export function showSigningKeys(options: ShowOptions, env: NodeJS.ProcessEnv = process.env): void {
  refusing("show", () => {
    let history: KeyHistory;
    if (options.key === undefined && options.history === undefined) {
      history = loadAuditKeys(loadServiceConfig(env), { generate: false }).history;
    } else {
      const signer = options.key === undefined ? undefined : auditSignerFromPrivateKey(readPrivateKeyFile("--key", options.key));
      if (options.history !== undefined) history = readKeyHistoryFile("--history", options.history);
      else if (signer !== undefined) history = firstKeyHistory(signer.publicKey);
      else return;
      if (signer !== undefined && currentKey(history).keyId !== signer.keyId) {
        refuse("show", `--key ${options.key ?? ""} is key ${signer.keyId}, but the current key of ${options.history ?? ""} is ${currentKey(history).keyId}`);
        return;
      }
    }
    if (options.json === true) {
      process.stdout.write(`${JSON.stringify({ keys: history.keys })}\n`);
      return;
    }
    const lines = history.keys.map((key, index) => {
      const since = key.activatedAtMs === 0 ? "since the log began" : `from ${new Date(key.activatedAtMs).toISOString()}`;
      const endorsed = index === 0 ? "first key" : `endorsed by ${history.keys[index - 1]?.keyId ?? ""}`;
      return `${key.keyId}  ${key.publicKey}  ${since}, ${endorsed}${index === history.keys.length - 1 ? " (current)" : ""}`;
    });
    process.stdout.write(`keyId                             publicKey (base64url)\n${lines.join("\n")}\n`);
  });
}
