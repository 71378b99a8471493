/**
 * A receipt: what an acknowledged command's reply carries (response header `Market-Receipt`) so that
 * its sender can later prove the service accepted it — the index of its entry in its log (leaf
 * index = the entry's sequence − 1) and a head signed over a tree that includes it. With an inclusion
 * proof for that leaf and tree size (served by the service, or built from a copy of the log) it
 * checks against the service's public key alone, even after whoever holds the data directory has
 * rewritten the log: the rewritten log's tree has another root, and no one else can sign one.
 *
 * JSON with hashes and the signature as lowercase hex (docs/proofs.md). A `Receipt` is that JSON as
 * is, strings and numbers only, so it survives `JSON.stringify` and `JSON.parse` and can be kept,
 * sent and passed back to a check; it becomes bytes only where it is checked (`signedHeadOf`). Pure:
 * the client SDK and the CLI read receipts with the same code.
 */
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { LogHead } from "../wire/audit-log.js";
import type { SignedHead } from "./signed-head.js";

/** A receipt as the `Market-Receipt` header's JSON: the entry's leaf index and the signed head (hex, as `GET …/head` answers it). */
export interface Receipt {
  readonly leafIndex: number;
  readonly head: LogHead;
}

/** A signed head as JSON (`GET …/head`'s body): the hashes and the signature as lowercase hex. */
export function logHeadOf(head: SignedHead): LogHead {
  return {
    logId: head.logId,
    treeSize: head.treeSize,
    rootHash: bytesToHex(head.rootHash),
    timeMs: head.timeMs,
    keyId: head.keyId,
    signature: bytesToHex(head.signature),
  };
}

/** A signed head as JSON text, members in this order. */
export function headJson(head: SignedHead): string {
  return JSON.stringify(logHeadOf(head));
}

/** A receipt's JSON text from its leaf index and its head's JSON (`headJson`: one per batch, shared by its commands). */
export function receiptJson(leafIndex: number, headJsonText: string): string {
  return `{"leafIndex":${leafIndex},"head":${headJsonText}}`;
}

/** A receipt from its JSON text, checked member by member; the error names the member. */
export function parseReceipt(text: string): { ok: true; receipt: Receipt } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: "a receipt is JSON text" };
  }
  if (!isObject(value)) return { ok: false, message: "a receipt is a JSON object" };
  if (!isCount(value["leafIndex"])) return { ok: false, message: "receipt.leafIndex must be a non-negative integer of at most 2^53−1" };
  const head = parseLogHead(value["head"]);
  if (!head.ok) return { ok: false, message: `receipt.head: ${head.message}` };
  if (value["leafIndex"] >= head.head.treeSize) return { ok: false, message: "receipt.leafIndex must be below receipt.head.treeSize" };
  return { ok: true, receipt: { leafIndex: value["leafIndex"], head: head.head } };
}

/** A signed head's JSON (`headJson`'s form) checked member by member, as JSON: only its members, in their order. */
export function parseLogHead(value: unknown): { ok: true; head: LogHead } | { ok: false; message: string } {
  if (!isObject(value)) return { ok: false, message: "a head is a JSON object" };
  const { logId, treeSize, rootHash, timeMs, keyId, signature } = value;
  if (typeof logId !== "string" || logId.length === 0) return { ok: false, message: "logId must be a non-empty string" };
  if (!isCount(treeSize)) return { ok: false, message: "treeSize must be a non-negative integer of at most 2^53−1" };
  if (!isCount(timeMs)) return { ok: false, message: "timeMs must be a non-negative integer of at most 2^53−1" };
  if (typeof keyId !== "string" || keyId.length === 0) return { ok: false, message: "keyId must be a non-empty string" };
  if (!isHex(rootHash, 32)) return { ok: false, message: "rootHash must be 64 lowercase hex digits" };
  if (!isHex(signature, 64)) return { ok: false, message: "signature must be 128 lowercase hex digits" };
  return { ok: true, head: { logId, treeSize, rootHash, timeMs, keyId, signature } };
}

/** A head parsed by `parseLogHead`, as the bytes its signature is checked over. */
export function signedHeadOf(head: LogHead): SignedHead {
  return { logId: head.logId, treeSize: head.treeSize, rootHash: hexToBytes(head.rootHash), timeMs: head.timeMs, keyId: head.keyId, signature: hexToBytes(head.signature) };
}

/** A signed head from parsed JSON (`headJson`'s form), as bytes. */
export function parseHead(value: unknown): { ok: true; head: SignedHead } | { ok: false; message: string } {
  const parsed = parseLogHead(value);
  return parsed.ok ? { ok: true, head: signedHeadOf(parsed.head) } : parsed;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isHex(value: unknown, bytes: number): value is string {
  return typeof value === "string" && value.length === bytes * 2 && /^[0-9a-f]*$/.test(value);
}
