/**
 * A saved proof file (docs/proofs.md, "Proof files"), checked offline with nothing but the service's
 * public keys: a receipt as the `Market-Receipt` header gave it, the inclusion proof the endpoint
 * answered for it, and optionally a later signed head with the consistency proof from the receipt's
 * head to it.
 *
 *   { "receipt": {leafIndex, head}, "inclusion": {leafIndex, treeSize, path, leafHash, entry},
 *     "command"?: {type, marketId, commandId, actorId},
 *     "head"?: {…signed head…}, "consistency"?: {oldSize, newSize, path} }
 *
 * Checks in order, the first that fails is named: the receipt head's signature (key by keyId); the
 * inclusion proof is for the receipt's leaf at the receipt head's size; the entry, if present, hashes
 * to the proven leaf; the proof reaches the receipt head's root from that leaf *at the receipt's
 * index*; with `command`, the entry is that command (receipt-command.ts: any leaf of the tree has a
 * valid proof, so only the entry's content ties the index to the sender's command); with a later
 * head: its signature, its log, and the consistency proof from the receipt's head to it.
 *
 * Pure JavaScript (no Node API): the same check can run in a browser.
 */
import { strictBytesOfBase64url } from "../wire/base64url.js";
import { decodeConsistencyProof, decodeInclusionProof, hashFromHex, hashToHex, ProofFormatError, type ConsistencyProof, type InclusionProof } from "./proof-format.js";
import { checkConsistency, checkInclusion } from "./proof-verify.js";
import { leafHash, sameHash } from "./tree-hash.js";
import { parseHead, parseReceipt, signedHeadOf, type Receipt } from "./receipt.js";
import { verifyHead, type SignedHead } from "./signed-head.js";
import { describeReceiptCommand, entryCommandProblem, parseReceiptCommand, type ReceiptCommand } from "./receipt-command.js";

export type ProofFileCheck =
  /** Every check passed; `proven` says what, in one line. */
  | { readonly outcome: "proven"; readonly proven: string }
  /** `check` names the first check that failed. */
  | { readonly outcome: "failed"; readonly check: string; readonly reason: string }
  /** Every proof holds, but the entry is withheld, so it cannot be confirmed to be `command`. */
  | { readonly outcome: "unconfirmed"; readonly reason: string }
  /** The file is not a proof file (a member missing, unknown or malformed). */
  | { readonly outcome: "unusable"; readonly reason: string };

interface ProofFile {
  receipt: Receipt;
  /** The receipt's head as the bytes its signature covers. */
  receiptHead: SignedHead;
  inclusion: InclusionProof;
  leafHash: Uint8Array;
  entry: Uint8Array | null;
  command?: ReceiptCommand;
  later?: { head: SignedHead; consistency: ConsistencyProof };
}

const FILE_MEMBERS = ["receipt", "inclusion", "command", "head", "consistency"];
const INCLUSION_MEMBERS = ["leafIndex", "treeSize", "path", "leafHash", "entry"];

class Unusable extends Error {}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Unusable(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function parseFile(value: unknown): ProofFile {
  const file = objectOf(value, "a proof file");
  for (const name of Object.keys(file)) if (!FILE_MEMBERS.includes(name)) throw new Unusable(`${name} is not a member of a proof file (expected ${FILE_MEMBERS.join(", ")})`);
  if (!("receipt" in file)) throw new Unusable("receipt is missing");
  if (!("inclusion" in file)) throw new Unusable("inclusion is missing");
  if (("head" in file) !== ("consistency" in file)) throw new Unusable("head and consistency come together: a later head, and the proof from the receipt's head to it");
  // The receipt as the header's text, or that text parsed.
  const receiptText = typeof file["receipt"] === "string" ? file["receipt"] : JSON.stringify(file["receipt"]);
  const receipt = parseReceipt(receiptText);
  if (!receipt.ok) throw new Unusable(`receipt: ${receipt.message}`);
  const inclusion = objectOf(file["inclusion"], "inclusion");
  for (const name of Object.keys(inclusion)) if (!INCLUSION_MEMBERS.includes(name)) throw new Unusable(`inclusion.${name} is not a member of an inclusion proof (expected ${INCLUSION_MEMBERS.join(", ")})`);
  const proof = withField("inclusion", () => decodeInclusionProof({ leafIndex: inclusion["leafIndex"], treeSize: inclusion["treeSize"], path: inclusion["path"] }));
  const leaf = withField("inclusion", () => hashFromHex(inclusion["leafHash"], "leafHash"));
  const entryValue = inclusion["entry"] ?? null;
  const entry = typeof entryValue === "string" ? strictBytesOfBase64url(entryValue) : undefined;
  if (entryValue !== null && entry === undefined) throw new Unusable("inclusion.entry must be the entry's payload as unpadded base64url, or null");
  const parsed: ProofFile = { receipt: receipt.receipt, receiptHead: signedHeadOf(receipt.receipt.head), inclusion: proof, leafHash: leaf, entry: entry ?? null };
  if ("command" in file) {
    const command = parseReceiptCommand(file["command"]);
    if (!command.ok) throw new Unusable(command.message);
    parsed.command = command.command;
  }
  if ("head" in file) {
    const head = parseHead(file["head"]);
    if (!head.ok) throw new Unusable(`head: ${head.message}`);
    const consistency = withField("consistency", () => decodeConsistencyProof(file["consistency"]));
    parsed.later = { head: head.head, consistency };
  }
  return parsed;
}

function withField<T>(prefix: string, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof ProofFormatError) throw new Unusable(`${prefix}.${error.message}`);
    throw error;
  }
}

/** The parsed file's checks; `keys`: keyId → raw 32-byte Ed25519 public key. */
export function checkProofFile(value: unknown, keys: ReadonlyMap<string, Uint8Array>): ProofFileCheck {
  let file: ProofFile;
  try {
    file = parseFile(value);
  } catch (error) {
    if (error instanceof Unusable) return { outcome: "unusable", reason: error.message };
    throw error;
  }
  const failed = (check: string, reason: string): ProofFileCheck => ({ outcome: "failed", check, reason });
  const { receipt, inclusion } = file;
  const head = file.receiptHead;
  const signature = signatureProblem(head, keys);
  if (signature !== undefined) return failed("receipt head signature", signature);
  if (inclusion.leafIndex !== receipt.leafIndex || inclusion.treeSize !== head.treeSize) {
    return failed("inclusion proof", `the proof is for leaf ${inclusion.leafIndex} of a tree of ${inclusion.treeSize}, the receipt for leaf ${receipt.leafIndex} of the tree of ${head.treeSize} its head signs`);
  }
  if (file.entry !== null && !sameHash(leafHash(file.entry), file.leafHash)) {
    return failed("entry", `the entry (${file.entry.length} bytes) does not hash to the proof's leaf ${hashToHex(file.leafHash)}`);
  }
  const included = checkInclusion(file.leafHash, receipt.leafIndex, head.treeSize, inclusion.path, head.rootHash);
  if (!included.valid) return failed("inclusion proof", `leaf ${receipt.leafIndex} does not reach the root the receipt's head signs: ${included.reason}`);
  if (file.command !== undefined && file.entry !== null) {
    const problem = entryCommandProblem(file.entry, file.command);
    if (problem !== undefined) return failed("entry", `entry ${receipt.leafIndex + 1} (leaf ${receipt.leafIndex}): ${problem}`);
  }
  const at = (h: SignedHead): string => `the tree of ${h.treeSize} entries of log ${h.logId} that key ${h.keyId} signed at ${new Date(h.timeMs).toISOString()}`;
  const what =
    file.command !== undefined && file.entry !== null
      ? `(your ${describeReceiptCommand(file.command)})`
      : file.entry === null
        ? "with leaf hash " + hashToHex(file.leafHash)
        : `(${file.entry.length} bytes, given; not compared with a command: the file names none)`;
  let proven = `entry ${receipt.leafIndex + 1} (leaf ${receipt.leafIndex}) ${what} is in ${at(head)}`;
  if (file.later !== undefined) {
    const later = file.later.head;
    const laterSignature = signatureProblem(later, keys);
    if (laterSignature !== undefined) return failed("later head signature", laterSignature);
    if (later.logId !== head.logId) return failed("later head", `the later head is of log ${later.logId}, the receipt's of log ${head.logId}`);
    const { consistency } = file.later;
    if (consistency.oldSize !== head.treeSize || consistency.newSize !== later.treeSize) {
      return failed("consistency proof", `the proof goes from ${consistency.oldSize} to ${consistency.newSize} entries, the heads sign ${head.treeSize} and ${later.treeSize}`);
    }
    const consistent = checkConsistency(head.treeSize, later.treeSize, head.rootHash, later.rootHash, consistency.path);
    if (!consistent.valid) return failed("consistency proof", `the later head's tree does not extend the receipt's: ${consistent.reason}`);
    proven += `, which is a prefix of ${at(later)}`;
  }
  if (file.command !== undefined && file.entry === null) {
    return { outcome: "unconfirmed", reason: `${proven}, but the entry is withheld (null), so it cannot be confirmed to be your ${describeReceiptCommand(file.command)}` };
  }
  return { outcome: "proven", proven };
}

function signatureProblem(head: SignedHead, keys: ReadonlyMap<string, Uint8Array>): string | undefined {
  const key = keys.get(head.keyId);
  if (key === undefined) return `the head is signed with key ${head.keyId}, which is not among the public keys given`;
  return verifyHead(head, key) ? undefined : `the head's signature does not verify with key ${head.keyId}`;
}
