/**
 * Deterministic, URL-path-safe identifiers (decision 5 in docs/decisions.md).
 *
 *   commitment  c.<ref>.<ordinal>   ordinal = 1-based creation order within the market
 *   bid         b.<ref>.<ordinal>   ordinal = 1-based acceptance order within the market
 *   event       e.<ref>.<sequence>  sequence = the event's record sequence
 *
 * `<ref>` is the unpadded base64url of the market id's UTF-8 bytes, so a commitment id names its
 * market: the gateway routes commitment commands to the owning shard without a lookup table.
 * Only [A-Za-z0-9_-] and `.` occur, all unreserved in RFC 3986.
 */
import { base64urlOfUtf8, utf8OfBase64url } from "./base64url.js";

export function marketRef(marketId: string): string {
  return base64urlOfUtf8(marketId);
}

export function commitmentIdOf(marketId: string, ordinal: number): string {
  return `c.${marketRef(marketId)}.${ordinal}`;
}

export function bidIdOf(marketId: string, ordinal: number): string {
  return `b.${marketRef(marketId)}.${ordinal}`;
}

export function eventIdOf(marketId: string, sequence: number): string {
  return `e.${marketRef(marketId)}.${sequence}`;
}

/** The same ids from an already computed `marketRef` (the hot path keeps it per market). */
export const generatedIdOf = (kind: "c" | "b" | "e", ref: string, ordinal: number): string => `${kind}.${ref}.${ordinal}`;

/**
 * The ordinal of a generated id within the market whose ref is given, without decoding base64:
 * `undefined` unless the id is exactly `<kind>.<ref>.<ordinal>` in canonical form.
 */
export function ordinalWithin(id: string, kind: "c" | "b" | "e", ref: string): number | undefined {
  const prefixLength = ref.length + 3;
  if (id.length <= prefixLength || id.charCodeAt(0) !== kind.charCodeAt(0) || id.charCodeAt(1) !== 46 /* . */) return undefined;
  if (id.charCodeAt(prefixLength - 1) !== 46 || !id.startsWith(ref, 2)) return undefined;
  // The digits are read in place (no slice): every commitment event of a claim asks this.
  const digitCount = id.length - prefixLength;
  if (digitCount > 16 || id.charCodeAt(prefixLength) === 48 /* leading 0 */) return undefined;
  let ordinal = 0;
  for (let i = prefixLength; i < id.length; i += 1) {
    const c = id.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    ordinal = ordinal * 10 + (c - 48);
  }
  return Number.isSafeInteger(ordinal) ? ordinal : undefined;
}

export interface ParsedGeneratedId {
  marketId: string;
  ordinal: number;
}

const GENERATED_ID = /^([cbe])\.([A-Za-z0-9_-]+)\.([1-9][0-9]{0,15})$/;

/**
 * Parse an id this service generated. Returns `undefined` for anything it could not have produced
 * (wrong kind, non-canonical base64url, ordinal out of range, bytes that are not UTF-8).
 */
export function parseGeneratedId(id: string, kind: "c" | "b" | "e"): ParsedGeneratedId | undefined {
  const m = GENERATED_ID.exec(id);
  if (m === null || m[1] !== kind || m[2] === undefined || m[3] === undefined) return undefined;
  const ordinal = Number(m[3]);
  if (!Number.isSafeInteger(ordinal)) return undefined;
  const marketId = utf8OfBase64url(m[2]);
  // Round-trip to reject non-canonical encodings and invalid UTF-8 (decoded to U+FFFD).
  if (marketId === undefined || marketId.length === 0 || marketRef(marketId) !== m[2]) return undefined;
  return { marketId, ordinal };
}

export function parseCommitmentId(commitmentId: string): ParsedGeneratedId | undefined {
  return parseGeneratedId(commitmentId, "c");
}
