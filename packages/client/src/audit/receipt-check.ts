/**
 * Receipts in the client (docs/proofs.md, "Receipts" and "Proof files"): the public keys to check
 * them with, and the check itself — the offline checker the service's CLI uses too (./proof-file.ts,
 * pure JavaScript), so the SDK, the CLI's `check-proof` and `check-receipt` prove the same thing.
 *
 * MarketClient.checkReceipt loads this module with a dynamic `import()`: it brings the proof checks
 * and msgpackr's decoder (a proven entry is MessagePack), which a bundler then puts in a chunk of
 * their own that only a receipt check loads (test/client/import-graph.test.ts).
 */
import { base64UrlDecode } from "../wire/base64url.js";
import type { AuditKeyList } from "../wire/audit-log.js";
import { checkKeyHistory, KEY_HISTORY_VERSION } from "./key-history.js";
import { checkProofFile } from "./proof-file.js";

/** keyId → raw 32-byte Ed25519 public key, or the key list `GET /v1/audit/keys` gives (a history). */
export type PublicKeys = ReadonlyMap<string, Uint8Array> | AuditKeyList;

/**
 * The outcome of a receipt check; `proofFile` is what was checked (save it: `check-receipt --proof`
 * and `check-proof` check it again offline). `proven`: the entry at the receipt's index, under its
 * signed head, is your command; `failed`: a check failed (a forgery, or not your receipt);
 * `unconfirmed`: the proofs hold but the entry was withheld, so it could not be compared with your
 * command; `unusable`: the receipt or file is not one.
 */
export type ReceiptCheck =
  | { readonly outcome: "proven"; readonly proven: string; readonly proofFile: Readonly<Record<string, unknown>> }
  | { readonly outcome: "failed"; readonly check: string; readonly reason: string; readonly proofFile?: Readonly<Record<string, unknown>> }
  | { readonly outcome: "unconfirmed"; readonly reason: string; readonly proofFile: Readonly<Record<string, unknown>> }
  | { readonly outcome: "unusable"; readonly reason: string };

/**
 * The keys as a map. A key list's endorsement chain is checked first (each key after the first is
 * signed by the one before): trust it as far as you trust how you got its first key.
 */
export function publicKeysOf(keys: PublicKeys): ReadonlyMap<string, Uint8Array> {
  const checked = checkedKeysOf(keys);
  if (!checked.ok) throw new Error(checked.reason);
  return checked.keys;
}

/**
 * The keys as a map, or why they cannot be used. The receipt checks answer with this rather than
 * throw: a key list often comes from the service (`auditKeys()`), so one that fails its chain is an
 * outcome to report (`unusable`), not a bug of the caller's.
 */
export function checkedKeysOf(keys: PublicKeys): { readonly ok: true; readonly keys: ReadonlyMap<string, Uint8Array> } | { readonly ok: false; readonly reason: string } {
  if (keys instanceof Map) return { ok: true, keys };
  const checked = checkKeyHistory({ version: KEY_HISTORY_VERSION, ...(keys as AuditKeyList) });
  if (!checked.ok) return { ok: false, reason: `the public key list is not a valid key history: ${checked.problem}` };
  return { ok: true, keys: new Map(checked.history.keys.map((key) => [key.keyId, base64UrlDecode(key.publicKey)])) };
}

/**
 * A proof file ({receipt, inclusion, command?, head?, consistency?}) checked offline with the keys
 * alone; with `command` the proven entry must be that command (a receipt check always gives it).
 */
export function checkReceiptProof(proofFile: Readonly<Record<string, unknown>>, keys: PublicKeys): ReceiptCheck {
  const usable = checkedKeysOf(keys);
  if (!usable.ok) return { outcome: "unusable", reason: usable.reason };
  const checked = checkProofFile(proofFile, usable.keys);
  switch (checked.outcome) {
    case "proven":
      return { outcome: "proven", proven: checked.proven, proofFile };
    case "failed":
      return { outcome: "failed", check: checked.check, reason: checked.reason, proofFile };
    case "unconfirmed":
      return { outcome: "unconfirmed", reason: checked.reason, proofFile };
    case "unusable":
      return { outcome: "unusable", reason: checked.reason };
  }
}
