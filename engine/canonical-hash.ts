/**
 * `sha256-canonical-json-v1` (spec §2.10): SHA-256 over the RFC 8785 (JCS) canonical JSON of a value,
 * written `sha256:<64 hex>`; hashing is node:crypto (pure computation, no I/O).
 *
 * The canonicalizer is ours: the `canonicalize` package (by the RFC's co-author) gives the same text
 * for every value (test/engine/canonical-json.test.ts checks random values against it), but it made
 * 44% of an audit replay's time (`replay` of 302k commands: 43.6 s): it scans every string in
 * JavaScript for lone surrogates, tracks cycles in a Set, and builds each object's text as its own
 * string. Here one regular expression tells the (usual) strings that need neither escaping nor a
 * surrogate check, a depth bound stands in for cycle tracking (a cycle has no serialisation either
 * way; it fails with a clear message), text is appended in one place, and `canonicalHash` feeds the
 * hash in slices instead of building the record's whole text (~1.5 KB per command) first.
 *
 * RFC 8785 in short: object members sorted by their names' UTF-16 code units (what
 * `Array.prototype.sort` does by default), no whitespace, strings and numbers as ECMAScript's
 * JSON.stringify writes them, NaN, ±Infinity and lone surrogates refused.
 */
import { createHash, type Hash } from "node:crypto";
import { assert } from "./assert.js";

export const RECORD_HASH_ALGORITHM = "sha256-canonical-json-v1";

/** Deeper than any record or client subject can be (the strict JSON parser bounds client input). */
const MAX_DEPTH = 1_000;
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return true;
    }
  }
  return false;
}

/** Where canonical text goes: kept whole (canonicalJson) or hashed in slices as it is written. */
class CanonicalWriter {
  text = "";
  constructor(private readonly hash: Hash | undefined) {}

  emit(piece: string): void {
    this.text += piece;
    // Hash in slices: a record's text is ~1.5 KB per command, and one flat string of it all would be
    // built, flattened and encoded only to be hashed.
    if (this.hash !== undefined && this.text.length >= HASH_SLICE_CHARS) {
      this.hash.update(this.text, "utf8");
      this.text = "";
    }
  }
}

const HASH_SLICE_CHARS = 16 * 1024;
/** A string that needs JSON escaping or a surrogate check; most ids and names need neither. */
const NEEDS_CARE = /["\\\u0000-\u001F\uD800-\uDFFF]/;

function writeString(out: CanonicalWriter, text: string): void {
  if (!NEEDS_CARE.test(text)) {
    out.emit(`"${text}"`);
    return;
  }
  if (ANY_SURROGATE.test(text) && hasLoneSurrogate(text)) throw new Error("Lone surrogate is not allowed");
  out.emit(JSON.stringify(text));
}

function writeValue(out: CanonicalWriter, value: unknown, depth: number): void {
  switch (typeof value) {
    case "string":
      writeString(out, value);
      return;
    case "number":
      if (Number.isNaN(value)) throw new Error("NaN is not allowed");
      if (!Number.isFinite(value)) throw new Error("Infinity is not allowed");
      out.emit(JSON.stringify(value));
      return;
    case "boolean":
      out.emit(value ? "true" : "false");
      return;
    case "object":
      break;
    default:
      // undefined, bigint, symbol, function: never part of a record or a command.
      throw new Error(`a ${typeof value} has no canonical JSON`);
  }
  if (value === null) {
    out.emit("null");
    return;
  }
  if (depth >= MAX_DEPTH) throw new Error(`value nests deeper than ${MAX_DEPTH} levels (or refers to itself)`);
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === "function") {
    writeValue(out, toJson.call(value), depth + 1);
    return;
  }
  if (Array.isArray(value)) {
    out.emit("[");
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) out.emit(",");
      if (item === undefined || typeof item === "symbol") out.emit("null");
      else writeValue(out, item, depth + 1);
    }
    out.emit("]");
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  out.emit("{");
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined || typeof member === "symbol") continue;
    if (!first) out.emit(",");
    writeString(out, key);
    out.emit(":");
    writeValue(out, member, depth + 1);
    first = false;
  }
  out.emit("}");
}

/** The canonical text of `value`; with `hash`, what is left of it after the slices hashed so far. */
function writeCanonical(value: unknown, hash: Hash | undefined): string {
  assert(value !== undefined, "canonical JSON of a defined value");
  const out = new CanonicalWriter(hash);
  writeValue(out, value, 0);
  return out.text;
}

export function canonicalJson(value: unknown): string {
  return writeCanonical(value, undefined);
}

export function canonicalHash(value: unknown): string {
  const hash = createHash("sha256");
  hash.update(writeCanonical(value, hash), "utf8");
  return `sha256:${hash.digest("hex")}`;
}
