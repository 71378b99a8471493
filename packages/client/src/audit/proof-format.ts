/**
 * The one encoding of proofs, on the wire and in files (docs/proofs.md, "JSON encoding"):
 *
 *   inclusion:   { "leafIndex": 5, "treeSize": 8, "path": ["<64 lowercase hex digits>", …] }
 *   consistency: { "oldSize": 4, "newSize": 8, "path": [ … ] }
 *
 * `path` lists the proof's hashes in RFC 9162 order (lowest node first). Decoding is strict, so that
 * a proof that reads one way here cannot read another way in someone else's verifier: no member
 * missing or added, integers from 0 to 2^53 − 1 only (larger ones do not survive JSON.parse
 * exactly), hashes as exactly 64 lowercase hex digits, sizes in range, and exactly as many hashes as
 * the sizes call for. A decoded proof can still be false: verify it (proof-verify.ts).
 */
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { consistencyNodes, inclusionNodes } from "./proof-shape.js";
import { HASH_BYTES, isHash } from "./tree-hash.js";

/** RFC 9162 PATH(leafIndex, D[treeSize]): leaf `leafIndex`'s audit path in the tree of `treeSize` leaves. */
export interface InclusionProof {
  readonly leafIndex: number;
  readonly treeSize: number;
  readonly path: readonly Uint8Array[];
}

/** RFC 9162 PROOF(oldSize, D[newSize]): the tree of `oldSize` leaves is a prefix of the tree of `newSize`. */
export interface ConsistencyProof {
  readonly oldSize: number;
  readonly newSize: number;
  readonly path: readonly Uint8Array[];
}

export interface InclusionProofJson {
  leafIndex: number;
  treeSize: number;
  path: string[];
}

export interface ConsistencyProofJson {
  oldSize: number;
  newSize: number;
  path: string[];
}

/** A proof document that does not follow the format; `field` names the member at fault (`path[2]`). */
export class ProofFormatError extends Error {
  override readonly name = "ProofFormatError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const HEX_HASH = new RegExp(`^[0-9a-f]{${2 * HASH_BYTES}}$`);

/** A 32-byte hash as 64 lowercase hex digits. */
export function hashToHex(hash: Uint8Array): string {
  if (!isHash(hash)) throw new RangeError(`a hash must be a ${HASH_BYTES}-byte Uint8Array`);
  return bytesToHex(hash);
}

/** 64 lowercase hex digits as a 32-byte hash; a ProofFormatError naming `field` otherwise. */
export function hashFromHex(text: unknown, field: string): Uint8Array {
  if (typeof text !== "string") throw new ProofFormatError(field, `must be a string of ${2 * HASH_BYTES} lowercase hex digits; got ${describe(text)}`);
  if (!HEX_HASH.test(text)) throw new ProofFormatError(field, `must be ${2 * HASH_BYTES} lowercase hex digits (a ${HASH_BYTES}-byte hash); got ${describe(text)}`);
  return hexToBytes(text);
}

export function encodeInclusionProof(proof: InclusionProof): InclusionProofJson {
  return { leafIndex: proof.leafIndex, treeSize: proof.treeSize, path: proof.path.map(hashToHex) };
}

export function encodeConsistencyProof(proof: ConsistencyProof): ConsistencyProofJson {
  return { oldSize: proof.oldSize, newSize: proof.newSize, path: proof.path.map(hashToHex) };
}

/** An inclusion proof from a parsed JSON value; a ProofFormatError naming the field otherwise. */
export function decodeInclusionProof(value: unknown): InclusionProof {
  const object = members(value, ["leafIndex", "treeSize", "path"]);
  const treeSize = count(object["treeSize"], "treeSize", 1);
  const leafIndex = count(object["leafIndex"], "leafIndex", 0);
  if (leafIndex >= treeSize) throw new ProofFormatError("leafIndex", `must be below treeSize (${treeSize}); got ${leafIndex}`);
  const path = hashes(object["path"], inclusionNodes(leafIndex, treeSize).length, `leaf ${leafIndex} of a tree of ${treeSize}`);
  return { leafIndex, treeSize, path };
}

/** A consistency proof from a parsed JSON value; a ProofFormatError naming the field otherwise. */
export function decodeConsistencyProof(value: unknown): ConsistencyProof {
  const object = members(value, ["oldSize", "newSize", "path"]);
  const oldSize = count(object["oldSize"], "oldSize", 1);
  const newSize = count(object["newSize"], "newSize", 1);
  if (oldSize > newSize) throw new ProofFormatError("oldSize", `must not exceed newSize (${newSize}); got ${oldSize}`);
  const path = hashes(object["path"], consistencyNodes(oldSize, newSize).length, `a proof from ${oldSize} to ${newSize} leaves`);
  return { oldSize, newSize, path };
}

/** The members of a plain JSON object that has exactly the names given. */
function members(value: unknown, names: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ProofFormatError("proof", `must be a JSON object with the members ${names.join(", ")}; got ${describe(value)}`);
  }
  const object = value as Record<string, unknown>;
  for (const name of names) {
    if (!Object.hasOwn(object, name)) throw new ProofFormatError(name, "is missing");
  }
  for (const name of Object.keys(object)) {
    if (!names.includes(name)) throw new ProofFormatError(name, `is not a member of this proof (expected only ${names.join(", ")})`);
  }
  return object;
}

function count(value: unknown, field: string, min: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new ProofFormatError(field, `must be an integer from ${min} to 2^53 − 1 (9007199254740991); got ${describe(value)}`);
  }
  return value;
}

function hashes(value: unknown, expected: number, what: string): Uint8Array[] {
  if (!Array.isArray(value)) throw new ProofFormatError("path", `must be an array of hashes; got ${describe(value)}`);
  if (value.length !== expected) {
    throw new ProofFormatError("path", `has ${value.length} hash${value.length === 1 ? "" : "es"}; ${what} takes exactly ${expected}`);
  }
  return value.map((item: unknown, i) => hashFromHex(item, `path[${i}]`));
}

/** A short, safe rendering of an unexpected value for an error message. */
function describe(value: unknown): string {
  if (typeof value === "string") return value.length > 80 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}
